// The projector takes the whole log in order from its checkpoint (reader.ts: one reader
// for every partition of a process) and applies each event to the read models that handle it. Idempotent twice over: each
// document stores the stream sequence it last applied and skips anything not newer, and
// the checkpoint only moves forward. A failing store write is retried in place, never
// skipped, so no event is lost. Deleting the read models and the checkpoint rebuilds them.
// Given a partition (service.ts, at 2+ replicas), it folds that partition's models only,
// keeps that partition's checkpoint, and stops before an event once `mayApply` (its lease)
// says no: one writer per read model at a time.
// The checkpoint and the projection notice are throttled: at once after a quiet spell or a
// job status change, else at most every CHECKPOINT_EVERY_MS (a timer takes the last of a
// run) or CHECKPOINT_EVERY_EVENTS. A crash in between replays those events, which the
// documents' `lastSeq` makes harmless. An event none of this partition's models handles
// (known from its subject) is passed without being decoded.
import type { JetStreamClient, NatsConnection } from 'nats';
import { PoisonMessageError, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { confirmPoison } from '../../../shared/src/infra/nats/confirmed-decode.js';
import type { Logger } from '../../../shared/src/infra/logger.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';
import type { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import type { ReadModelStore } from '../../../shared/src/infra/store/index.js';
import { encodeNotice, type JobStatusChange } from '../../../shared/src/infra/projection-notice.js';
import { PROJECTED_SUBJECT, PROJECTOR_CHECKPOINT, partitionCheckpoint, type ProjectionPartition } from '../../../shared/src/infra/subjects.js';
import { ProjectionReader, type Delivery, type ReaderMember } from './reader.js';
import type { AnyReadModel } from './read-models/types.js';

export const CHECKPOINT_NAME = PROJECTOR_CHECKPOINT;
/** Events passed at most between two checkpoints (bounds the replay after a crash). */
const CHECKPOINT_EVERY_EVENTS = 256;
/** Least time between two checkpoints while events come close together (a read-your-writes wait may take this much longer). */
const CHECKPOINT_EVERY_MS = 20;

export interface ProjectorDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  store: ReadModelStore;
  payloads: PayloadStore;
  logger: Logger;
  readModels: AnyReadModel[];
  payloadTtlMs: number;
  /** The partition folded (its checkpoint; its name on the notices); absent: every model, one checkpoint. */
  partition?: ProjectionPartition;
  /** Asked before each event: false stops this projector without applying it (a lapsed lease). */
  mayApply?: () => boolean;
}

/**
 * Whether an event whose payload could not be read is applied without it (its content
 * dropped for good): when the payload is gone or unreadable, not while NATS is unavailable.
 */
export function appliesWithoutPayload(err: unknown): boolean {
  return !isNatsOutage(err);
}

export class Projector implements ReaderMember {
  /** The reader of a projector started on its own (`start`). */
  private ownReader: ProjectionReader | undefined;
  /** The event being taken, awaited by `stop`. */
  private taking: Promise<void> | undefined;
  private stopping = false;
  /** Highest sequence applied by this process. */
  appliedSeq = 0;
  /** Highest sequence checkpointed and announced. */
  private flushedSeq = 0;
  private flushedAt = 0;
  private flushTimer: NodeJS.Timeout | undefined;
  /** Names of the events this projector's models handle. */
  private readonly handled: ReadonlySet<string>;

  constructor(private readonly deps: ProjectorDeps) {
    this.handled = new Set(deps.readModels.flatMap((m) => m.handles));
  }

  /**
   * Applies one event to every read model that handles it. Pure IO around `evolve`.
   * Returns the job status it changed, if any (announced with the projection notice).
   */
  async apply(event: StoredEvent): Promise<JobStatusChange | undefined> {
    const { store, payloads, logger, payloadTtlMs } = this.deps;
    let change: JobStatusChange | undefined;
    for (const model of this.deps.readModels) {
      if (!model.handles.includes(event.event) || (model.accepts && !model.accepts(event))) continue;
      const doc = await model.load(store, event);
      if (doc && doc.lastSeq >= event.seq) continue; // already applied
      let hydrated: unknown;
      try {
        hydrated = await model.hydrate?.(event, { getJson: (ref) => payloads.getJson(ref), payloadTtlMs, crawlPageOrigin: (id, key) => store.crawlPageOrigin(id, key) });
      } catch (err) {
        // NATS unavailable (the "no responders" after a thaw) says nothing of the payload: the
        // event is applied again once NATS answers (applyWithRetry). Before, the page's content
        // was dropped from the read model for good (the chaos drill's SIGSTOP test, a page once).
        if (!appliesWithoutPayload(err)) throw err;
        // An expired payload must not block the projection: keep status, drop content.
        logger.warn({ seq: event.seq, model: model.name, err: String(err) }, 'could not hydrate event; applying without payload');
      }
      const next = model.evolve(doc, event, hydrated);
      if (!next) continue;
      await model.save(store, next);
      const notice = model.notice?.(next);
      if (notice) this.deps.nc.publish(notice.subject, notice.data);
      if (model.announcesStatus && next.status !== doc?.status) change = { kind: event.kind, id: event.id, status: next.status };
    }
    return change;
  }

  private get checkpoint(): string {
    return this.deps.partition ? partitionCheckpoint(this.deps.partition) : CHECKPOINT_NAME;
  }

  /**
   * Where this projector stands: its checkpoint, or where the single projector of an older
   * version left off (its models are already folded up to there). Before `take`.
   */
  async prepare(): Promise<void> {
    const own = await this.deps.store.getCheckpoint(this.checkpoint);
    const at = Math.max(own, this.deps.partition ? await this.deps.store.getCheckpoint(CHECKPOINT_NAME) : 0);
    this.appliedSeq = at;
    this.flushedSeq = at;
    this.flushedAt = Date.now();
  }

  /** Reads the log for this projector alone (service.ts shares one reader among partitions). */
  async start(): Promise<void> {
    await this.prepare();
    this.ownReader = new ProjectionReader(this.deps.js, this.deps.logger);
    await this.ownReader.read([this]);
  }

  /** One event at a time: a reader restarted while one still takes an event waits for it. */
  async take(delivery: Delivery): Promise<void> {
    const previous = this.taking;
    if (!previous && (this.stopping || delivery.seq <= this.appliedSeq)) return;
    const run = (async () => {
      await previous?.catch(() => undefined);
      if (this.stopping || delivery.seq <= this.appliedSeq) return;
      await this.takeOne(delivery);
    })();
    this.taking = run;
    try {
      await run;
    } finally {
      if (this.taking === run) this.taking = undefined;
    }
  }

  private async takeOne(delivery: Delivery): Promise<void> {
    // A lapsed lease: announce what is applied, then wait until the lease is renewed, or
    // until it is lost and this projector stopped.
    if (this.deps.mayApply && !this.deps.mayApply()) await this.flush();
    while (this.deps.mayApply && !this.deps.mayApply()) {
      if (this.stopping) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (this.stopping) return;
    if (delivery.named !== undefined && !this.handled.has(delivery.named)) {
      await this.passed(delivery.seq);
      return;
    }
    let event: StoredEvent;
    try {
      event = delivery.decode();
    } catch (err) {
      if (!(err instanceof PoisonMessageError)) throw err;
      try {
        // Skipped only on the log's word: a delivery spoiled on its way is read from the leader (confirmed-decode.ts).
        event = await confirmPoison(this.deps.nc, delivery, err);
        this.deps.logger.warn({ seq: delivery.seq, subject: delivery.subject, err: err.message }, 'delivered body did not decode; the log\'s copy does: applied from it');
      } catch (confirmed) {
        if (!(confirmed instanceof PoisonMessageError)) throw confirmed;
        this.deps.logger.error({ seq: delivery.seq, subject: delivery.subject, err: confirmed.message }, 'skipping undecodable event');
        await this.passed(delivery.seq);
        return;
      }
    }
    const change = await this.applyWithRetry(event);
    this.appliedSeq = event.seq;
    if (change) await this.flush(change);
    else await this.passed(event.seq);
  }

  /** The reader's end: what is applied is checkpointed and announced (not after the lease was lost). */
  async settle(): Promise<void> {
    if (this.deps.mayApply && !this.deps.mayApply()) return;
    await this.flush();
  }

  /** `seq` is applied (or not this projector's): checkpoints now, or leaves it to the timer. */
  private async passed(seq: number): Promise<void> {
    this.appliedSeq = seq;
    if (Date.now() - this.flushedAt >= CHECKPOINT_EVERY_MS || seq - this.flushedSeq >= CHECKPOINT_EVERY_EVENTS) {
      await this.flush();
      return;
    }
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      if (!this.stopping) void this.flush().catch((err) => this.deps.logger.warn({ err: String(err) }, 'projector checkpoint failed; the next one carries it'));
    }, Math.max(0, this.flushedAt + CHECKPOINT_EVERY_MS - Date.now()));
  }

  private async applyWithRetry(event: StoredEvent): Promise<JobStatusChange | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.apply(event);
      } catch (err) {
        if (this.stopping) throw err;
        const delayMs = Math.min(10_000, 200 * 2 ** attempt);
        this.deps.logger.error({ seq: event.seq, event: event.event, err: String(err), delayMs }, 'projection failed; retrying');
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  /** Moves the checkpoint to what is applied, then announces it (with the job status the last event changed). */
  private async flush(change?: JobStatusChange): Promise<void> {
    const seq = this.appliedSeq;
    if (seq <= this.flushedSeq && !change) return;
    await this.deps.store.setCheckpoint(this.checkpoint, seq);
    this.flushedSeq = seq;
    this.flushedAt = Date.now();
    const { data, headers } = encodeNotice({ seq, ...(change ? { change } : {}), ...(this.deps.partition ? { partition: this.deps.partition } : {}) });
    this.deps.nc.publish(PROJECTED_SUBJECT, data, headers ? { headers } : undefined);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.flushTimer);
    if (this.ownReader) await this.ownReader.stop();
    else {
      await this.taking?.catch(() => undefined);
      await this.settle().catch((err) => this.deps.logger.warn({ err: String(err) }, 'projector checkpoint at stop failed'));
    }
  }
}
