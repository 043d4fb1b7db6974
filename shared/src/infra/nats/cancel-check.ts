// Whether a page's job was cancelled, before the page is fetched. The log is the answer (a
// point read of the job's cancel event), but a crawl's pages come many a second: one read
// per page was one more request per page, and a miss (the usual answer) an error built on
// both sides. So a job found not cancelled is believed for NOT_CANCELLED_REUSE_MS, and a
// cancel is learnt at once from the jobs' cancel events on core NATS (every event published
// to the log is also delivered to plain subscribers), so a cancelled job's next page is not
// fetched; a cancel this process did not hear (not connected then) is read within
// NOT_CANCELLED_REUSE_MS. A page already loading when the cancel comes finishes, as before.
import type { NatsConnection, Subscription } from 'nats';
import { cancelEventOf } from '../../domain/events/index.js';
import type { EventLog } from './event-log.js';
import { parseSubject, SUBJECT_ROOT, type AggregateKind } from '../subjects.js';
import { LRUCache } from 'lru-cache';

/** How long a job read as not cancelled is believed without reading again. */
export const NOT_CANCELLED_REUSE_MS = 1_000;
/** Jobs whose answer is kept (the most recently asked). */
const JOBS_KEPT = 1_000;

export class CancelCheck {
  /** `kind.id` -> cancelled, or when it was read as not cancelled (its read, while in flight). */
  private readonly known = new LRUCache<string, { cancelled: true } | { readAt: number; read: Promise<boolean> }>({ max: JOBS_KEPT });
  private readonly subs: Subscription[] = [];

  constructor(
    private readonly log: Pick<EventLog, 'exists'>, nc: Pick<NatsConnection, 'subscribe'>,
    private readonly reuseMs = NOT_CANCELLED_REUSE_MS, private readonly now: () => number = Date.now,
  ) {
    for (const kind of ['crawl', 'batch']) {
      this.subs.push(nc.subscribe(`${SUBJECT_ROOT}.${kind}.*.job.${cancelEventOf(kind)}`, {
        callback: (err, msg) => {
          const parts = err ? null : parseSubject(msg.subject);
          if (parts) this.keep(`${parts.kind}.${parts.id}`, { cancelled: true });
        },
      }));
    }
  }

  /** Whether the job is cancelled (false for a kind that cannot be). */
  async cancelled(kind: AggregateKind, id: string): Promise<boolean> {
    const event = cancelEventOf(kind);
    if (!event) return false;
    const job = `${kind}.${id}`;
    const known = this.known.get(job);
    if (known && 'cancelled' in known) return true;
    if (known && this.now() - known.readAt < this.reuseMs) return known.read;
    const read = this.log.exists({ kind, id, part: 'job', event });
    this.keep(job, { readAt: this.now(), read });
    // A failed read is not kept; a cancel read is kept for good (a cancel is final).
    read.then((yes) => { if (yes) this.keep(job, { cancelled: true }); }, () => {
      const now = this.known.get(job);
      if (now && 'read' in now && now.read === read) this.known.delete(job);
    });
    return read;
  }

  close(): void {
    for (const sub of this.subs) sub.unsubscribe();
  }

  private keep(job: string, answer: { cancelled: true } | { readAt: number; read: Promise<boolean> }): void {
    // A cancel heard while the job's read is in flight stays: the read's "no" does not overwrite it.
    const was = this.known.get(job);
    if (was && 'cancelled' in was) return;
    this.known.set(job, answer);
  }
}
