// The one decider runner for multi-page jobs (crawl, batch): durable consumers of the five
// events a job reacts to (triggerConsumers: one filter subject each, nats-server 2.9) run
// the job decider (decider.ts) against the log. The log, not the
// message, is the truth, so arrival order, redeliveries and other replicas do not matter.
import { makeEvent, type AnyEvent } from '../../../../shared/src/domain/events/index.js';
import type { MultiPageKind } from '../../../../shared/src/domain/events/job.js';
import { newId as defaultNewId, systemClock, type Clock, type IdGenerator } from '../../../../shared/src/infra/ids.js';
import { KeyedLock } from '../../../../shared/src/infra/keyed-lock.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import type { JetStreamManager } from 'nats';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { isNotFound } from '../../../../shared/src/infra/nats/infrastructure.js';
import { ConsumerWorker } from '../../../../shared/src/infra/nats/worker.js';
import type { RunningService, ServiceContext } from '../../../../shared/src/infra/service.js';
import { parseSubject, STREAM_NAME, SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import { DEFAULT_MAX_IN_FLIGHT, type DecideContext, type Emitted, type JobCommand, type JobDecider, type JobState, type JobStatus, type LogEvent } from './decider.js';
import { RedriveSweep } from './redrive-sweep.js';
import { DeciderStates } from './states.js';

export const JOB_RUNNER_DEFAULTS = {
  /** Messages handled at once (different jobs run in parallel, one job in order). */
  concurrency: 8,
  /** Job states kept in memory per kind; an evicted one is rebuilt from the log when needed. */
  cachedJobs: 200,
  /** One message's handling at most. */
  handlerTimeoutMs: 60_000,
} as const;

/** What the runner needs of one kind of job. */
export interface JobSpec<S extends { status: JobStatus }, C extends DecideContext> {
  kind: MultiPageKind;
  decider: JobDecider<S, C>;
  /**
   * The name the trigger consumers' names start with (kept across releases: a new name would
   * replay the stream); earlier versions' single consumer had it, replaced at start.
   */
  durable: string;
  /** Who a job failed by the runner names in its reason ("the crawl frontier gave up: …"). */
  failedBy: string;
  /** The decision's context beyond the clock and bounds, prepared with IO (a crawl's robots). */
  prepare?(state: S, signal?: AbortSignal): Promise<Omit<C, keyof DecideContext>>;
}

export interface JobRunnerOptions {
  newId?: IdGenerator;
  clock?: Clock;
  maxInFlight?: number;
  concurrency?: number;
}

export interface JobRunner {
  /** Brings a job's state up to date (at least to `triggerSeq`, the event handled) and appends what is due. */
  advance(jobId: string, signal?: AbortSignal, logger?: Logger, triggerSeq?: number): Promise<void>;
  /**
   * The same from a state rebuilt from the whole history (the sweep of an idle job): a cached
   * state caught up by direct gets that a replica with a hole answered (after a thaw) has
   * passed an event for good, and decides nothing while it waits for that event's page.
   */
  advanceRebuilt(jobId: string): Promise<void>;
  /** Ends a job FAILED (a trigger the worker gave up on). */
  fail(jobId: string, reason: string): Promise<void>;
  /** The parts of the job's pages in flight, up to the log's end; undefined once it is over or cancelled. */
  pagesInFlight(jobId: string): Promise<readonly string[] | undefined>;
}

/**
 * Per event: take the job's lock (one job's messages one at a time, jobs in parallel),
 * bring its state up to date from the log (states.ts), prepare what the policy needs with
 * IO (a crawl's robots.txt), decide `Advance` and append every event `once`, so a decision
 * repeated after a crash or by another replica is refused. Own appends are read back by the
 * next catch-up, not folded in (that would skip events not seen yet). A trigger the worker
 * gives up on ends its job FAILED.
 */
export function createJobRunner<S extends { status: JobStatus }, C extends DecideContext>(
  log: EventLog, spec: JobSpec<S, C>, options: JobRunnerOptions = {},
): JobRunner {
  const newId = options.newId ?? defaultNewId;
  const clock = options.clock ?? systemClock;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const { kind, decider } = spec;
  const states = new DeciderStates<S, LogEvent>(log, { kind, ...decider }, JOB_RUNNER_DEFAULTS.cachedJobs);
  const locks = new KeyedLock();

  const appendAll = async (jobId: string, events: Emitted[]): Promise<void> => {
    for (const e of events) {
      const event = makeEvent(e.event, { kind, id: jobId, part: e.part }, e.data as never, { eventId: newId(), now: clock() });
      const { seq } = await log.append(event as AnyEvent, { once: true });
      if (seq > 0) states.appended(jobId, seq);
    }
  };

  const run = (jobId: string, command: JobCommand, triggerSeq = 0, signal?: AbortSignal, rebuilt = false): Promise<Emitted[]> => {
    // Noted before the job's lock: a catch-up made meanwhile confirms it rather than finding it.
    if (triggerSeq > 0) states.delivered(jobId, triggerSeq);
    return locks.run(jobId, async () => {
      if (states.isKnownFinished(jobId)) return [];
      if (rebuilt) states.forget(jobId);
      const state = await states.load(jobId, triggerSeq);
      if (state.status === 'NONE' || decider.isFinished(state)) return [];
      const prepared = command.type === 'Advance' && spec.prepare ? await spec.prepare(state, signal) : {};
      try {
        const out = decider.decide(command, state, { ...prepared, now: clock(), maxInFlight } as C);
        await appendAll(jobId, out);
        return out;
      } catch (err) {
        // The cache may now lag behind half-appended decisions: rebuild it next time.
        states.forget(jobId);
        throw err;
      }
    });
  };

  return {
    async advance(jobId, signal, logger, triggerSeq) {
      const out = await run(jobId, { type: 'Advance', jobId }, triggerSeq, signal);
      const done = out.find((e) => e.event === `${kind}_finished`);
      if (done && logger) logger.info({ [`${kind}Id`]: jobId, ...(done.data as object) }, `${kind} finished`);
    },
    async advanceRebuilt(jobId) {
      await run(jobId, { type: 'Advance', jobId }, 0, undefined, true);
    },
    async fail(jobId, reason) {
      await run(jobId, { type: 'Fail', jobId, reason });
    },
    pagesInFlight(jobId) {
      return locks.run(jobId, async () => {
        if (states.isKnownFinished(jobId)) return undefined;
        const state = await states.load(jobId) as S & Partial<Pick<JobState<unknown>, 'inFlight' | 'cancelRequested'>>;
        if (state.status === 'NONE' || decider.isFinished(state) || state.cancelRequested) return undefined;
        return [...(state.inFlight?.keys() ?? [])];
      });
    },
  };
}

/** The events a job reacts to. */
const triggers = (kind: MultiPageKind): ReadonlySet<string> =>
  new Set([`${kind}_requested`, 'page_fetched', 'page_completed', 'page_failed', `${kind}_cancel_requested`]);

/**
 * The durable consumers of a kind's triggers, one filter subject each (nats-server 2.9):
 * its job part (`<kind>_requested` and `<kind>_cancel_requested`; its own `_started` and
 * `_finished` come too, once per job) and each page outcome. Not `trawl.<kind>.>`: that
 * delivered the runner's own appends back to it, two of an unchanged page's three.
 */
export function triggerConsumers(kind: MultiPageKind, durable: string): { durable: string; filterSubject: string }[] {
  return [
    { durable: `${durable}-${JOB_PART}`, filterSubject: `${SUBJECT_ROOT}.${kind}.*.${JOB_PART}.*` },
    ...(['page_fetched', 'page_completed', 'page_failed'] as const).map((event) => ({ durable: `${durable}-${event}`, filterSubject: `${SUBJECT_ROOT}.${kind}.*.*.${event}` })),
  ];
}

/**
 * Where the trigger consumers of an existing deployment start: after the last event the
 * single consumer of earlier versions (`durable`, on `trawl.<kind>.>`) had settled, so no
 * trigger is missed and none older is replayed (those above its ack floor are handled
 * again: the runner is idempotent). Undefined for a deployment without it.
 */
async function legacyStart(jsm: JetStreamManager, durable: string): Promise<number | undefined> {
  try {
    return (await jsm.consumers.info(STREAM_NAME, durable)).ack_floor.stream_seq + 1;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function startJobWorker<S extends { status: JobStatus }, C extends DecideContext>(
  ctx: ServiceContext, spec: JobSpec<S, C>, options: JobRunnerOptions = {},
): Promise<RunningService> {
  const runner = createJobRunner(ctx.log, spec, options);
  // Jobs that no trigger moves any more are advanced, and their lost messages re-driven (redrive-sweep.ts).
  const sweep = new RedriveSweep({
    kind: spec.kind, log: ctx.log, jsm: ctx.jsm, nc: ctx.nc, logger: ctx.logger.child({ worker: spec.kind }),
    jobs: { advance: (jobId) => runner.advanceRebuilt(jobId), pagesInFlight: (jobId) => runner.pagesInFlight(jobId) },
  });
  const acts = triggers(spec.kind);
  const startSeq = await legacyStart(ctx.jsm, spec.durable);
  const workers = triggerConsumers(spec.kind, spec.durable).map(({ durable, filterSubject }) => new ConsumerWorker({
    js: ctx.js,
    jsm: ctx.jsm,
    logger: ctx.logger.child({ worker: spec.kind, durable }),
    durable,
    filterSubject,
    ...(startSeq !== undefined ? { startSeq } : {}),
    concurrency: options.concurrency ?? JOB_RUNNER_DEFAULTS.concurrency,
    handlerTimeoutMs: JOB_RUNNER_DEFAULTS.handlerTimeoutMs,
    // The job part's own `_started` and `_finished`: acked undecoded.
    ignores: (subject) => {
      const named = parseSubject(subject)?.event;
      return named !== undefined && !acts.has(named);
    },
    async handle(event, mctx) {
      if (!acts.has(event.event)) return;
      sweep.touched(event.id);
      await runner.advance(event.id, mctx.signal, mctx.logger, event.seq);
    },
    async giveUp(event, error) {
      if (!acts.has(event.event)) return;
      await runner.fail(event.id, `${spec.failedBy} gave up: ${error.message}`);
    },
  }));
  for (const worker of workers) await worker.start();
  sweep.start();
  // Every trigger consumer exists now: the single one of earlier versions can go (a crash
  // before this line finds it again and starts the missing ones where it stands).
  if (startSeq !== undefined) {
    await ctx.jsm.consumers.delete(STREAM_NAME, spec.durable).catch((err) => {
      if (!isNotFound(err)) throw err;
    });
    ctx.logger.info({ durable: spec.durable, startSeq }, 'the job consumer of earlier versions replaced by one per trigger');
  }
  return {
    ready: async () => ({ [`${spec.kind}Worker`]: workers.every((w) => w.ready) }),
    stop: async () => {
      await sweep.stop();
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}
