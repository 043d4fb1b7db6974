// The projector reads the whole log in order (an ordered consumer from its checkpoint) and
// applies each event to the read models that handle it. Idempotent twice over: each
// document stores the stream sequence it last applied and skips anything not newer, and
// the checkpoint only moves forward. A failing store write is retried in place, never
// skipped, so no event is lost. Deleting the read models and the checkpoint rebuilds them.
// Given a partition (service.ts, at 2+ replicas), it folds that partition's models only,
// keeps that partition's checkpoint, and stops before an event once `mayApply` (its lease)
// says no: one writer per read model at a time.
import { DeliverPolicy, type ConsumerMessages, type JetStreamClient, type NatsConnection } from 'nats';
import { decodeEvent, PoisonMessageError, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { Logger } from '../../../shared/src/infra/logger.js';
import type { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import type { ReadModelStore } from '../../../shared/src/infra/store/index.js';
import { encodeNotice, type JobStatusChange } from '../../../shared/src/infra/projection-notice.js';
import { ALL_EVENTS, PROJECTED_SUBJECT, PROJECTOR_CHECKPOINT, STREAM_NAME, partitionCheckpoint, type ProjectionPartition } from '../../../shared/src/infra/subjects.js';
import type { AnyReadModel } from './read-models/types.js';

export const CHECKPOINT_NAME = PROJECTOR_CHECKPOINT;

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

  constructor(private readonly deps: ProjectorDeps) {}

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
        hydrated = await model.hydrate?.(event, { getJson: (ref) => payloads.getJson(ref), payloadTtlMs, crawlPage: (id, key) => store.getCrawlPage(id, key) });
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
      // A lapsed lease: wait until it is renewed, or until it is lost and this projector stopped.
      while (this.deps.mayApply && !this.deps.mayApply()) {
        if (this.stopping) return;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (this.stopping) return;
      let event: StoredEvent;
      try {
        event = decodeEvent(m.subject, m.data, m.seq);
      } catch (err) {
        if (!(err instanceof PoisonMessageError)) throw err;
        this.deps.logger.error({ seq: m.seq, subject: m.subject, err: err.message }, 'skipping undecodable event');
        await this.advance(m.seq);
        continue;
      }
      await this.advance(m.seq, await this.applyWithRetry(event));
      if (this.stopping) break;
    }
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

  /** Moves the checkpoint, then announces it (with the job status the event changed). */
  private async advance(seq: number, change?: JobStatusChange): Promise<void> {
    await this.deps.store.setCheckpoint(this.checkpoint, seq);
    this.appliedSeq = seq;
    const { data, headers } = encodeNotice({ seq, ...(change ? { change } : {}), ...(this.deps.partition ? { partition: this.deps.partition } : {}) });
    this.deps.nc.publish(PROJECTED_SUBJECT, data, headers ? { headers } : undefined);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.messages?.close();
    await this.loop?.catch(() => undefined);
  }
}
