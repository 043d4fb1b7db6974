// Cancelling a crawl or batch stops its transforms (issue 20): the transformer listens to
// the jobs' cancel events on core NATS (every event published to the log is also delivered
// to plain subscribers) and aborts the signals of that job's pages in flight here; the pool
// then removes a waiting transform or terminates the thread running one. A cancel recorded
// while this process was not listening is caught by the check before a page starts
// (JobCancelledError either way; the consumer acks: the job is over, nothing to record).
import type { NatsConnection, Subscription } from 'nats';
import { cancelEventOf } from '../../../shared/src/domain/events/index.js';
import { parseSubject, SUBJECT_ROOT } from '../../../shared/src/infra/subjects.js';

export class JobCancelledError extends Error {
  constructor(kind: string, id: string) {
    super(`${kind} ${id} was cancelled`);
    this.name = 'JobCancelledError';
  }
}

export class Cancellations {
  private readonly running = new Map<string, Set<AbortController>>();
  private readonly subs: Subscription[] = [];

  constructor(nc: NatsConnection) {
    for (const kind of ['crawl', 'batch']) {
      const sub = nc.subscribe(`${SUBJECT_ROOT}.${kind}.*.job.${cancelEventOf(kind)}`, {
        callback: (err, msg) => {
          const parts = err ? null : parseSubject(msg.subject);
          if (parts) this.cancel(parts.kind, parts.id);
        },
      });
      this.subs.push(sub);
    }
  }

  /**
   * A signal for one page's work that aborts with JobCancelledError when its job is
   * cancelled, or with `parent`'s reason (the handler's deadline, shutdown). Call the
   * returned `done` when the page's work ends.
   */
  track(kind: string, id: string, parent: AbortSignal): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const onParent = () => controller.abort(parent.reason);
    if (parent.aborted) onParent();
    else parent.addEventListener('abort', onParent, { once: true });
    const job = `${kind}.${id}`;
    const set = this.running.get(job) ?? new Set();
    set.add(controller);
    this.running.set(job, set);
    return {
      signal: controller.signal,
      done: () => {
        parent.removeEventListener('abort', onParent);
        set.delete(controller);
        if (set.size === 0 && this.running.get(job) === set) this.running.delete(job);
      },
    };
  }

  cancel(kind: string, id: string): void {
    for (const controller of this.running.get(`${kind}.${id}`) ?? []) controller.abort(new JobCancelledError(kind, id));
  }

  close(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }
}
