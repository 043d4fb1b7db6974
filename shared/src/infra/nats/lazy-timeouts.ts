// nats.js 2.29 builds a timeout's error (a NatsError with its stack) when the timer is set,
// unless its caller passes asyncTraces = false; a pull consumer's fetch does not, so every
// pull of every worker loop built an error it threw away when the pull ended (about 1% of
// the fetcher's and the service host's CPU on a recrawl, docs/benchmarks.md). Here a
// timeout whose caller says nothing builds its error when it fires, as connections made
// with `noAsyncTraces` already do for requests: the same error, without the setter's stack.
// Applied once, on import; checked against the shape it replaces.
import { createRequire } from 'node:module';

type Timeout = (ms: number, asyncTraces?: boolean) => Promise<void> & { cancel(): void };

const require = createRequire(import.meta.url);

function patch(): boolean {
  let util: { timeout?: Timeout } | undefined;
  try {
    util = require('nats/lib/nats-base-client/util.js') as { timeout?: Timeout };
  } catch {
    return false;
  }
  const original = util?.timeout;
  if (typeof original !== 'function' || !/asyncTraces\s*=\s*true/.test(original.toString())) return false;
  util!.timeout = (ms: number, asyncTraces = false) => original(ms, asyncTraces);
  return true;
}

/** Whether timeouts set without a word on traces build their error only when they fire. */
export const lazyTimeoutsPatched = patch();
