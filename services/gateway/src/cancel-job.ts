// Cancelling a multi-page job (crawl, batch): one rule for both. A job that has finished
// cannot be cancelled (409); the read model may lag behind the log, so the log decides.
// The cancel event is appended `once`: a second cancel finds it and is a 409 too.
import { isFinalStatus } from '../../../shared/src/api/index.js';
import { IllegalStateError } from '../../../shared/src/errors.js';
import { makeEvent } from '../../../shared/src/events/index.js';
import type { Clock, IdGenerator } from '../../../shared/src/ids.js';
import type { EventLog } from '../../../shared/src/nats/event-log.js';
import type { ProjectionWaiter } from './projection-wait.js';

export interface CancelDeps {
  log: EventLog;
  waiter: ProjectionWaiter;
  clock: Clock;
  newId: IdGenerator;
}

export async function cancelJob(
  deps: CancelDeps,
  job: { kind: 'crawl' | 'batch'; id: string; status: string; label: string },
): Promise<{ id: string; status: 'CANCELLED' }> {
  const finished = (status: string): IllegalStateError =>
    new IllegalStateError(`${job.label} "${job.id}" has already finished (${status}) and cannot be cancelled`);
  if (isFinalStatus(job.status)) throw finished(job.status);
  const at = { kind: job.kind, id: job.id, part: 'job' };
  const done = await deps.log.last({ ...at, event: `${job.kind}_finished` });
  if (done && (done.event === 'crawl_finished' || done.event === 'batch_finished')) throw finished(done.data.status);
  const now = deps.clock();
  const meta = { eventId: deps.newId(), now };
  const event = job.kind === 'crawl'
    ? makeEvent('crawl_cancel_requested', at, { requestedAt: now.toISOString() }, meta)
    : makeEvent('batch_cancel_requested', at, { requestedAt: now.toISOString() }, meta);
  const { seq, duplicate } = await deps.log.append(event, { once: true });
  if (duplicate) throw finished('CANCELLED');
  await deps.waiter.waitFor(seq);
  return { id: job.id, status: 'CANCELLED' };
}
