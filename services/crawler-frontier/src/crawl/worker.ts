// The crawl worker: runs the crawl decider against the log.
//
// One durable consumer on `trawl.crawl.>` (nats-server 2.9 allows one filter subject, so it
// sees every crawl event and acts on five: crawl_requested, page_fetched (a page no longer
// loading lets the next one load), page_completed, page_failed, crawl_cancel_requested). For each of those it
//   1. takes the crawl's lock (messages of one crawl are handled one at a time; different
//      crawls in parallel),
//   2. brings the crawl's state up to date: a cached state is caught up with the events
//      after its last sequence (EventLog.historyAfter: point reads, no consumer), a missing
//      one is rebuilt from the whole history, and so is one whose catch-up did not reach the
//      message's own sequence (a gap: the read must cover what triggered it). The log, not
//      the message, is the truth, so the order in which messages arrive, redeliveries, and
//      other replicas' appends do not matter;
//   3. loads robots.txt for the origins of the links about to be judged,
//   4. decides `Advance` and appends every event with `once`: a decision repeated after a
//      crash or by another replica is refused by the server, never applied twice.
// Own appends are not folded into the cache directly (that would skip sequence numbers of
// events not seen yet); the next catch-up reads them back.
import { makeEvent, type AnyEvent } from '../../../../shared/src/events/index.js';
import { newId as defaultNewId, systemClock, type Clock, type IdGenerator } from '../../../../shared/src/ids.js';
import type { Logger } from '../../../../shared/src/logger.js';
import type { EventLog } from '../../../../shared/src/nats/event-log.js';
import { KeyedLock } from '../../../../shared/src/keyed-lock.js';
import { ConsumerWorker } from '../../../../shared/src/nats/worker.js';
import type { RunningService, ServiceContext } from '../../../../shared/src/service.js';
import { SUBJECT_ROOT } from '../../../../shared/src/subjects.js';
import {
  decide, DEFAULT_MAX_IN_FLIGHT, evolve, initialState, isFinished, robotsCandidates,
  type CrawlCommand, type CrawlState, type Emitted, type LogEvent,
} from './decider.js';
import { RobotsCache } from './robots.js';
import { DeciderStates } from '../decider-states.js';

export const CRAWL_WORKER_DEFAULTS = {
  durable: 'crawler-frontier-crawl',
  /** Messages handled at once (different crawls run in parallel, one crawl in order). */
  concurrency: 8,
  /** Crawl states kept in memory; an evicted one is rebuilt from the log when needed. */
  cachedCrawls: 200,
} as const;

const TRIGGERS = new Set(['crawl_requested', 'page_fetched', 'page_completed', 'page_failed', 'crawl_cancel_requested']);

/** Crawl states folded from the log, cached with their last sequence (see decider-states.ts). */
export class CrawlStates extends DeciderStates<CrawlState, LogEvent> {
  constructor(log: EventLog, maxEntries: number = CRAWL_WORKER_DEFAULTS.cachedCrawls) {
    super(log, { kind: 'crawl', initialState, evolve, isFinished }, maxEntries);
  }
}

export interface CrawlWorkerOptions {
  newId?: IdGenerator;
  clock?: Clock;
  maxInFlight?: number;
  concurrency?: number;
  robots?: RobotsCache;
}

export interface CrawlEngine {
  /** Brings a crawl's state up to date (at least to `triggerSeq`, the event handled) and appends what is due. */
  advance(crawlId: string, signal?: AbortSignal, logger?: Logger, triggerSeq?: number): Promise<void>;
  /** Ends a crawl FAILED (a trigger the worker gave up on). */
  fail(crawlId: string, reason: string): Promise<void>;
}

export function createCrawlEngine(log: EventLog, allow: ServiceContext['config']['ssrfAllowCidrs'], options: CrawlWorkerOptions = {}): CrawlEngine {
  const newId = options.newId ?? defaultNewId;
  const clock = options.clock ?? systemClock;
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const robots = options.robots ?? new RobotsCache({ allow });
  const states = new CrawlStates(log);
  const locks = new KeyedLock();

  const appendAll = async (crawlId: string, events: Emitted[]): Promise<void> => {
    for (const e of events) {
      const event = makeEvent(e.event, { kind: 'crawl', id: crawlId, part: e.part }, e.data as never, { eventId: newId(), now: clock() });
      await log.append(event as AnyEvent, { once: true });
    }
  };

  const run = async (crawlId: string, command: (state: CrawlState) => Promise<CrawlCommand | null>, triggerSeq = 0): Promise<Emitted[]> =>
    locks.run(crawlId, async () => {
      if (states.isKnownFinished(crawlId)) return [];
      const state = await states.load(crawlId, triggerSeq);
      if (state.status === 'NONE' || isFinished(state)) return [];
      const cmd = await command(state);
      if (!cmd) return [];
      try {
        const out = decide(cmd, state, { now: clock(), maxInFlight, robotsAllows: (url) => robots.allows(url) });
        await appendAll(crawlId, out);
        return out;
      } catch (err) {
        // The cache may now lag behind half-appended decisions: rebuild it next time.
        states.forget(crawlId);
        throw err;
      }
    });

  return {
    async advance(crawlId, signal, logger, triggerSeq) {
      const out = await run(crawlId, async (state) => {
        await robots.prepare(robotsCandidates(state), signal);
        return { type: 'Advance', crawlId };
      }, triggerSeq);
      const done = out.find((e) => e.event === 'crawl_finished');
      if (done && logger) logger.info({ crawlId, ...(done.data as object) }, 'crawl finished');
    },
    async fail(crawlId, reason) {
      await run(crawlId, async () => ({ type: 'FailCrawl', crawlId, reason }));
    },
  };
}

export async function startCrawlWorker(ctx: ServiceContext, options: CrawlWorkerOptions = {}): Promise<RunningService> {
  const engine = createCrawlEngine(ctx.log, ctx.config.ssrfAllowCidrs, { maxInFlight: ctx.config.crawlMaxInFlight, ...options });
  const worker = new ConsumerWorker({
    js: ctx.js,
    jsm: ctx.jsm,
    logger: ctx.logger.child({ worker: 'crawl' }),
    durable: CRAWL_WORKER_DEFAULTS.durable,
    filterSubject: `${SUBJECT_ROOT}.crawl.>`,
    concurrency: options.concurrency ?? CRAWL_WORKER_DEFAULTS.concurrency,
    handlerTimeoutMs: 60_000,
    async handle(event, mctx) {
      if (!TRIGGERS.has(event.event)) return;
      await engine.advance(event.id, mctx.signal, mctx.logger, event.seq);
    },
    async giveUp(event, error) {
      if (!TRIGGERS.has(event.event)) return;
      await engine.fail(event.id, `the crawl frontier gave up: ${error.message}`);
    },
  });
  await worker.start();
  return {
    ready: async () => ({ crawlWorker: worker.ready }),
    stop: () => worker.stop(),
  };
}
