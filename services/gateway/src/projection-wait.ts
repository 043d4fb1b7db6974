// Read-your-writes: after appending an event the gateway waits (briefly) until the
// projector reports a checkpoint at or past that event's sequence, so a GET right after a
// POST finds the job. If the projector is slow or down, the wait ends at the timeout and
// the answer goes out anyway: the event is in the log and will be projected.
import type { NatsConnection, Subscription } from 'nats';
import type { ReadModelStore } from '../../../shared/src/store/index.js';
import { PROJECTED_SUBJECT, PROJECTOR_CHECKPOINT as CHECKPOINT_NAME } from '../../../shared/src/subjects.js';

export class ProjectionWaiter {
  private projected = 0;
  private readonly waiters = new Set<{ seq: number; resolve: () => void }>();
  private sub: Subscription | undefined;

  constructor(private readonly nc: NatsConnection, private readonly store: ReadModelStore) {}

  async start(): Promise<void> {
    this.sub = this.nc.subscribe(PROJECTED_SUBJECT, {
      callback: (_err, msg) => this.advance(Number(msg.string())),
    });
    this.advance(await this.store.getCheckpoint(CHECKPOINT_NAME));
  }

  private advance(seq: number): void {
    if (!Number.isFinite(seq) || seq <= this.projected) return;
    this.projected = seq;
    for (const w of this.waiters) {
      if (w.seq <= seq) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }

  /** Resolves true once `seq` is projected, false at the timeout. */
  async waitFor(seq: number, timeoutMs = 2000): Promise<boolean> {
    if (seq <= this.projected) return true;
    // The notice may have been missed (a reconnect): the store has the truth.
    this.advance(await this.store.getCheckpoint(CHECKPOINT_NAME));
    if (seq <= this.projected) return true;
    return new Promise((resolve) => {
      const waiter = { seq, resolve: () => { clearTimeout(timer); resolve(true); } };
      const timer = setTimeout(() => { this.waiters.delete(waiter); resolve(false); }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  stop(): void {
    this.sub?.unsubscribe();
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
  }
}
