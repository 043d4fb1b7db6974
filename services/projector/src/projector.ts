// The projector reads the whole log in order (an ordered consumer from its checkpoint) and
// applies each event to the read models that handle it. Idempotent twice over: each
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
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type NatsConnection } from 'nats';
import { decodeEvent, PoisonMessageError, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { Logger } from '../../../shared/src/infra/logger.js';
import type { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import type { ReadModelStore } from '../../../shared/src/infra/store/index.js';
import { encodeNotice, type JobStatusChange } from '../../../shared/src/infra/projection-notice.js';
import { ALL_EVENTS, PROJECTED_SUBJECT, PROJECTOR_CHECKPOINT, STREAM_NAME, parseSubject, partitionCheckpoint, type ProjectionPartition } from '../../../shared/src/infra/subjects.js';
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

export class Projector {
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
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

  async start(): Promise<void> {
    // A partition starts where it left off, or where the single projector of an older
    // version left off (its models are already folded up to there).
    const own = await this.deps.store.getCheckpoint(this.checkpoint);
    const from = Math.max(own, this.deps.partition ? await this.deps.store.getCheckpoint(CHECKPOINT_NAME) : 0) + 1;
    this.appliedSeq = from - 1;
    this.flushedSeq = from - 1;
    this.flushedAt = Date.now();
    const consumer = await this.deps.js.consumers.get(STREAM_NAME, {
      filterSubjects: ALL_EVENTS,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
    });
    this.messages = await consumer.consume({ max_messages: 512 });
    this.loop = this.run(this.messages);
    this.deps.logger.info({ from, partition: this.deps.partition }, 'projector consuming');
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const m of messages) {
      // A lapsed lease: announce what is applied, then wait until the lease is renewed, or
      // until it is lost and this projector stopped.
      if (this.deps.mayApply && !this.deps.mayApply()) await this.flush();
      while (this.deps.mayApply && !this.deps.mayApply()) {
        if (this.stopping) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (this.stopping) break;
      const named = parseSubject(m.subject)?.event;
      if (named !== undefined && !this.handled.has(named)) {
        await this.passed(m.seq);
        continue;
      }
      let event: StoredEvent;
      try {
        event = decodeEvent(m.subject, m.data, m.seq);
      } catch (err) {
        if (!(err instanceof PoisonMessageError)) throw err;
        this.deps.logger.error({ seq: m.seq, subject: m.subject, err: err.message }, 'skipping undecodable event');
        await this.passed(m.seq);
        continue;
      }
      const change = await this.applyWithRetry(event);
      this.appliedSeq = event.seq;
      if (change) await this.flush(change);
      else await this.passed(event.seq);
      if (this.stopping) break;
    }
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
    await this.messages?.close();
    await this.loop?.catch(() => undefined);
    clearTimeout(this.flushTimer);
  }
}
