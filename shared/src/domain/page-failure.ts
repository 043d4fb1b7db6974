// Recording that a page failed: the one terminal failure event of a page (`once`, so a
// second stage that also gives up cannot write another).
import { toPageErrorCode } from './errors.js';
import { makeEvent } from './events/index.js';
import type { AggregateKind } from '../infra/subjects.js';
import type { Clock, IdGenerator } from '../infra/ids.js';
import type { EventLog } from '../infra/nats/event-log.js';

export interface PageAddress {
  kind: AggregateKind;
  id: string;
  part: string;
}

/**
 * True when a stage has nothing left to do for a page: its own result (`done`) is in the
 * log, or the page already failed for good. The second matters after a crash between
 * recording page_failed and terming the message: the redelivered message must not load
 * or transform the page again and give a failed page a result.
 */
export async function pageSettled(log: EventLog, at: PageAddress, done: 'page_fetched' | 'page_completed'): Promise<boolean> {
  const [finished, failed] = await Promise.all([log.exists({ ...at, event: done }), log.exists({ ...at, event: 'page_failed' })]);
  return finished || failed;
}

export async function recordPageFailure(
  log: EventLog,
  at: PageAddress,
  error: { code: string; message: string; pageOutcome?: string; evidence?: string[] },
  attempt: number,
  meta: { newId: IdGenerator; clock: Clock },
  cacheKey?: string,
): Promise<void> {
  const now = meta.clock();
  const outcome = error.pageOutcome ? { pageOutcome: error.pageOutcome, evidence: error.evidence ?? [] } : {};
  const data = { error: { code: toPageErrorCode(error), message: error.message, ...outcome }, failedAt: now.toISOString(), attempt, ...(cacheKey ? { cacheKey } : {}) };
  await log.append(
    makeEvent('page_failed', at, data, { eventId: meta.newId(), now }),
    { once: true },
  );
}
