// Polling until something the test waits for has happened (a page was hit, a process is
// ready, an event is in the log). A check that throws counts as "not yet" (a server not
// listening yet); the last error is in the timeout's message.
import { setTimeout as sleep } from 'node:timers/promises';

export interface UntilOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

export async function until(check: () => boolean | Promise<boolean>, { timeoutMs = 15_000, intervalMs = 50 }: UntilOptions = {}): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`condition not reached in ${timeoutMs} ms${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await sleep(intervalMs);
  }
}
