// Recording that a page failed: the one terminal failure event of a page (`once`, so a
// second stage that also gives up cannot write another).
import { toPageErrorCode } from './errors.js';
import { makeEvent } from './events/index.js';
import type { AggregateKind } from './subjects.js';
import type { Clock, IdGenerator } from './ids.js';
import type { EventLog } from './nats/event-log.js';

export interface PageAddress {
  kind: AggregateKind;
  id: string;
  part: string;
}

export async function recordPageFailure(
  log: EventLog,
  at: PageAddress,
  error: { code: string; message: string },
  attempt: number,
  meta: { newId: IdGenerator; clock: Clock },
  cacheKey?: string,
): Promise<void> {
  const now = meta.clock();
  const data = { error: { code: toPageErrorCode(error), message: error.message }, failedAt: now.toISOString(), attempt, ...(cacheKey ? { cacheKey } : {}) };
  await log.append(
    makeEvent('page_failed', at, data, { eventId: meta.newId(), now }),
    { once: true },
  );
}
