// The one decider runner for multi-page jobs (crawl, batch): one durable consumer per kind
// on `trawl.<kind>.>` (nats-server 2.9 allows one filter subject) runs the job decider
// (decider.ts) against the log for the five events a job reacts to. The log, not the
// message, is the truth, so arrival order, redeliveries and other replicas do not matter.
import { makeEvent, type AnyEvent } from '../../../../shared/src/domain/events/index.js';
import type { MultiPageKind } from '../../../../shared/src/domain/events/job.js';
import { newId as defaultNewId, systemClock, type Clock, type IdGenerator } from '../../../../shared/src/infra/ids.js';
import { KeyedLock } from '../../../../shared/src/infra/keyed-lock.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import { ConsumerWorker } from '../../../../shared/src/infra/nats/worker.js';
import type { RunningService, ServiceContext } from '../../../../shared/src/infra/service.js';
import { parseSubject, SUBJECT_ROOT } from '../../../../shared/src/infra/subjects.js';
import { DEFAULT_MAX_IN_FLIGHT, type DecideContext, type Emitted, type JobCommand, type JobDecider, type JobStatus, type LogEvent } from './decider.js';
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
  /** The durable consumer's name (kept across releases: a new name would replay the stream). */
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
  /** Ends a job FAILED (a trigger the worker gave up on). */
  fail(jobId: string, reason: string): Promise<void>;
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
      await log.append(event as AnyEvent, { once: true });
    }
  };

  const run = (jobId: string, command: JobCommand, triggerSeq = 0, signal?: AbortSignal): Promise<Emitted[]> =>
    locks.run(jobId, async () => {
      if (states.isKnownFinished(jobId)) return [];
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

  return {
    async advance(jobId, signal, logger, triggerSeq) {
      const out = await run(jobId, { type: 'Advance', jobId }, triggerSeq, signal);
      const done = out.find((e) => e.event === `${kind}_finished`);
      if (done && logger) logger.info({ [`${kind}Id`]: jobId, ...(done.data as object) }, `${kind} finished`);
    },
    async fail(jobId, reason) {
      await run(jobId, { type: 'Fail', jobId, reason });
    },
  };
}

/** The events a job reacts to. */
const triggers = (kind: MultiPageKind): ReadonlySet<string> =>
  new Set([`${kind}_requested`, 'page_fetched', 'page_completed', 'page_failed', `${kind}_cancel_requested`]);

export async function startJobWorker<S extends { status: JobStatus }, C extends DecideContext>(
  ctx: ServiceContext, spec: JobSpec<S, C>, options: JobRunnerOptions = {},
): Promise<RunningService> {
  const runner = createJobRunner(ctx.log, spec, options);
  const acts = triggers(spec.kind);
  const worker = new ConsumerWorker({
    js: ctx.js,
    jsm: ctx.jsm,
    logger: ctx.logger.child({ worker: spec.kind }),
    durable: spec.durable,
    filterSubject: `${SUBJECT_ROOT}.${spec.kind}.>`,
    concurrency: options.concurrency ?? JOB_RUNNER_DEFAULTS.concurrency,
    handlerTimeoutMs: JOB_RUNNER_DEFAULTS.handlerTimeoutMs,
    // Its own appends (page_requested, links discovered...) come back too: acked undecoded.
    ignores: (subject) => {
      const named = parseSubject(subject)?.event;
      return named !== undefined && !acts.has(named);
    },
    async handle(event, mctx) {
      if (!acts.has(event.event)) return;
      await runner.advance(event.id, mctx.signal, mctx.logger, event.seq);
    },
    async giveUp(event, error) {
      if (!acts.has(event.event)) return;
      await runner.fail(event.id, `${spec.failedBy} gave up: ${error.message}`);
    },
  });
  await worker.start();
  return {
    ready: async () => ({ [`${spec.kind}Worker`]: worker.ready }),
    stop: () => worker.stop(),
  };
}
