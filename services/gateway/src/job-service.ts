// What the gateway's job services (scrape, crawl, batch) share: their dependencies, and how
// an admitted job is recorded: its first event appended once, then a wait until the read
// models show it (read-your-writes), which also frees the job's admission reservation.
import type { AnyEvent } from '../../../shared/src/events/index.js';
import type { Clock, IdGenerator } from '../../../shared/src/ids.js';
import type { EventLog } from '../../../shared/src/nats/event-log.js';
import type { ReadModelStore } from '../../../shared/src/store/index.js';
import type { Admission, Admitter } from './limits.js';
import type { ProjectionWaiter } from './projection-wait.js';
import type { UrlPolicy } from './url-policy.js';

export interface JobServiceDeps {
  log: EventLog;
  store: ReadModelStore;
  waiter: ProjectionWaiter;
  urlPolicy: UrlPolicy;
  newId: IdGenerator;
  clock: Clock;
  limits: Admitter;
}

/** Appends the job's event (once) and waits for the projection; `admission` is freed after. */
export function recordJob(deps: Pick<JobServiceDeps, 'log' | 'waiter'>, event: AnyEvent, admission?: Admission): Promise<number> {
  const append = async (): Promise<number> => (await deps.log.append(event, { once: true })).seq;
  const projected = (seq: number): Promise<boolean> => deps.waiter.waitFor(seq);
  if (admission) return admission.record(append, projected);
  return append().then(async (seq) => { await projected(seq); return seq; });
}
