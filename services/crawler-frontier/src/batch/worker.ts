// The batch worker: runs the batch decider against the log, like the crawl worker.
//
// One durable consumer on `trawl.batch.>` (one filter subject on nats-server 2.9); it acts
// on batch_requested, page_completed, page_failed and batch_cancel_requested. For each it
// takes the batch's lock (one batch's messages one at a time, batches in parallel), brings
// the batch's state up to date from the log (a cached state catches up from its last
// sequence by point reads, EventLog.historyAfter; a missing one, or one whose catch-up did
// not reach the message's own sequence, is rebuilt from the whole history), decides `Advance` and
// appends every event with `once`, so a decision repeated after a crash or by another
// replica is refused by the server, never applied twice.
import { makeEvent, type AnyEvent } from '../../../../shared/src/events/index.js';
import { newId as defaultNewId, systemClock, type Clock, type IdGenerator } from '../../../../shared/src/ids.js';
import type { Logger } from '../../../../shared/src/logger.js';
import type { EventLog } from '../../../../shared/src/nats/event-log.js';
import { ConsumerWorker } from '../../../../shared/src/nats/worker.js';
import type { RunningService, ServiceContext } from '../../../../shared/src/service.js';
import { SUBJECT_ROOT } from '../../../../shared/src/subjects.js';
import { KeyedLock } from '../../../../shared/src/keyed-lock.js';
import {
  decide, DEFAULT_MAX_IN_FLIGHT, evolve, initialState, isFinished,
  type BatchCommand, type BatchState, type Emitted, type LogEvent,
} from './decider.js';
import { DeciderStates } from '../decider-states.js';

export const BATCH_WORKER_DEFAULTS = {
  durable: 'crawler-frontier-batch',
  /** Messages handled at once (different batches in parallel, one batch in order). */
  concurrency: 8,
  /** Batch states kept in memory; an evicted one is rebuilt from the log when needed. */
  cachedBatches: 200,
} as const;

const TRIGGERS = new Set(['batch_requested', 'page_completed', 'page_failed', 'batch_cancel_requested']);

/** Batch states folded from the log, cached with their last sequence (see decider-states.ts). */
class BatchStates extends DeciderStates<BatchState, LogEvent> {
  constructor(log: EventLog, maxEntries: number = BATCH_WORKER_DEFAULTS.cachedBatches) {
    super(log, { kind: 'batch', initialState, evolve, isFinished }, maxEntries);
  }
}

export interface BatchWorkerOptions {
  newId?: IdGenerator;
  clock?: Clock;
  maxInFlight?: number;
  concurrency?: number;
}

export interface BatchEngine {
  /** Brings a batch's state up to date (at least to `triggerSeq`, the event handled) and appends what is due. */
  advance(batchId: string, logger?: Logger, triggerSeq?: number): Promise<void>;
  /** Ends a batch FAILED (a trigger the worker gave up on). */
  fail(batchId: string, reason: string): Promise<void>;
}

export function createBatchEngine(log: EventLog, options: BatchWorkerOptions = {}): BatchEngine {
  const newId = options.newId ?? defaultNewId;
  const clock = options.clock ?? systemClock;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const states = new BatchStates(log);
  const locks = new KeyedLock();

  const run = (batchId: string, command: BatchCommand, triggerSeq = 0): Promise<Emitted[]> =>
    locks.run(batchId, async () => {
      if (states.isKnownFinished(batchId)) return [];
      const state = await states.load(batchId, triggerSeq);
      try {
        const out = decide(command, state, { now: clock(), maxInFlight });
        for (const e of out) {
          const event = makeEvent(e.event, { kind: 'batch', id: batchId, part: e.part }, e.data as never, { eventId: newId(), now: clock() });
          await log.append(event as AnyEvent, { once: true });
        }
        return out;
      } catch (err) {
        // The cache may now lag behind half-appended decisions: rebuild it next time.
        states.forget(batchId);
        throw err;
      }
    });

  return {
    async advance(batchId, logger, triggerSeq) {
      const out = await run(batchId, { type: 'Advance', batchId }, triggerSeq);
      const done = out.find((e) => e.event === 'batch_finished');
      if (done && logger) logger.info({ batchId, ...(done.data as object) }, 'batch finished');
    },
    async fail(batchId, reason) {
      await run(batchId, { type: 'FailBatch', batchId, reason });
    },
  };
}

export async function startBatchWorker(ctx: ServiceContext, options: BatchWorkerOptions = {}): Promise<RunningService> {
  const engine = createBatchEngine(ctx.log, { maxInFlight: ctx.config.batchMaxInFlight, ...options });
  const worker = new ConsumerWorker({
    js: ctx.js,
    jsm: ctx.jsm,
    logger: ctx.logger.child({ worker: 'batch' }),
    durable: BATCH_WORKER_DEFAULTS.durable,
    filterSubject: `${SUBJECT_ROOT}.batch.>`,
    concurrency: options.concurrency ?? BATCH_WORKER_DEFAULTS.concurrency,
    handlerTimeoutMs: 60_000,
    async handle(event, mctx) {
      if (!TRIGGERS.has(event.event)) return;
      await engine.advance(event.id, mctx.logger, event.seq);
    },
    async giveUp(event, error) {
      if (!TRIGGERS.has(event.event)) return;
      await engine.fail(event.id, `the batch worker gave up: ${error.message}`);
    },
  });
  await worker.start();
  return {
    ready: async () => ({ batchWorker: worker.ready }),
    stop: () => worker.stop(),
  };
}
