// Read-your-writes: after appending an event the gateway waits (briefly) until the
// projector reports a checkpoint at or past that event's sequence, so a GET right after a
// POST finds the job. Partitioned projector replicas report per partition: the read models
// include a sequence once every partition has passed it. If the projector is slow or down, the wait ends at the timeout and
// the answer goes out anyway: the event is in the log and will be projected.
// The same notices tell which job's status changed: listeners (the long-polls, job-waits.ts)
// get those changes, and a call after each NATS reconnect (notices may have been lost).
import type { NatsConnection, Subscription } from 'nats';
import { decodeNotice, type JobStatusChange } from '../../../shared/src/infra/projection-notice.js';
import type { ReadModelStore } from '../../../shared/src/infra/store/index.js';
import { PROJECTED_SUBJECT, PROJECTION_PARTITIONS, PROJECTOR_CHECKPOINT as CHECKPOINT_NAME, partitionCheckpoint, type ProjectionPartition } from '../../../shared/src/infra/subjects.js';

/** How long a write waits for the read models to include it before it answers anyway. */
export const PROJECTION_WAIT_MS = 5_000;

export class ProjectionWaiter {
  private projected = 0;
  /** Each partition's sequence; the read models include the least of them. */
  private readonly partitions = new Map<ProjectionPartition, number>(PROJECTION_PARTITIONS.map((p) => [p, 0]));
  private readonly waiters = new Set<{ seq: number; resolve: () => void }>();
  private sub: Subscription | undefined;
  private readonly listeners = new Set<JobStatusListener>();
  private stopped = false;

  constructor(private readonly nc: NatsConnection, private readonly store: ReadModelStore) {}

  async start(): Promise<void> {
    this.sub = this.nc.subscribe(PROJECTED_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        const notice = decodeNotice(msg);
        this.advance(notice.seq, notice.partition);
        if (notice.change) for (const l of this.listeners) l.changed(notice.change);
      },
    });
    void (async () => {
      for await (const status of this.nc.status()) {
        if (this.stopped) return;
        if (status.type === 'reconnect') for (const l of this.listeners) l.reconnected();
      }
    })().catch(() => undefined);
    await this.readCheckpoints();
  }

  /** The store's checkpoints: one projector's, and every partition's. */
  private async readCheckpoints(): Promise<void> {
    this.advance(await this.store.getCheckpoint(CHECKPOINT_NAME));
    for (const p of PROJECTION_PARTITIONS) this.advance(await this.store.getCheckpoint(partitionCheckpoint(p)), p);
  }

  /** Calls `listener` with every job status change the projector announces; returns the unsubscribe. */
  onJobStatus(listener: JobStatusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private advance(reported: number, partition?: ProjectionPartition): void {
    if (!Number.isFinite(reported)) return;
    let seq = reported;
    if (partition) {
      this.partitions.set(partition, Math.max(reported, this.partitions.get(partition) ?? 0));
      seq = Math.min(...this.partitions.values());
    }
    if (seq <= this.projected) return;
    this.projected = seq;
    for (const w of this.waiters) {
      if (w.seq <= seq) {
        this.waiters.delete(w);
        w.resolve();
      }
    }
  }

  /**
   * Resolves true once `seq` is projected, false at the timeout. 5 s, not 2: a fresh-clone CI
   * run on a slower machine saw the projector more than 2 s behind under load, and a GET right
   * after a DELETE or a create then read the state from before the write.
   */
  async waitFor(seq: number, timeoutMs = PROJECTION_WAIT_MS): Promise<boolean> {
    if (seq <= this.projected) return true;
    // The notice may have been missed (a reconnect): the store has the truth.
    await this.readCheckpoints();
    if (seq <= this.projected) return true;
    return new Promise((resolve) => {
      const waiter = { seq, resolve: () => { clearTimeout(timer); resolve(true); } };
      const timer = setTimeout(() => { this.waiters.delete(waiter); resolve(false); }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  stop(): void {
    this.stopped = true;
    this.listeners.clear();
    this.sub?.unsubscribe();
    for (const w of this.waiters) w.resolve();
    this.waiters.clear();
  }
}

export interface JobStatusListener {
  changed(change: JobStatusChange): void;
  /** NATS reconnected: notices sent meanwhile were lost. */
  reconnected(): void;
}
