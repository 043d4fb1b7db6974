// The fetcher's consumer: page_requested -> (Chromium or HTTP, engine/engine-router.ts) -> page_fetched. Raw HTML (or a
// document's bytes) and screenshots go to the Object Store under deterministic names; the event carries refs.
// Idempotent: a page that already has page_fetched is not loaded again, and the append is
// `once`, so a redelivery after a crash between append and ack writes nothing twice.
// A crawl or batch page answered 304 whose stored result holds every format asked is
// completed here (its observation and a page_completed naming that result, the events the
// transformer would write): no page_fetched, no transformer hop. A redelivery finds its
// page_completed, or its own observation (shared/src/domain/observations/).
//
// One durable consumer per kind of job ("lanes": fetcher-scrape, fetcher-map,
// fetcher-crawl, fetcher-batch), each filtering `trawl.<kind>.*.*.page_requested` (one
// filter subject each, as nats-server 2.9 requires). A single consumer would hand out pages
// in log order, so a scrape requested after a thousand crawl pages would wait for them;
// with lanes, each kind is pulled on its own, and the browser pool gives the next free slot
// to scrapes and maps (interactive) before crawl and batch pages (bulk; slots.ts).
import { screenshotMediaType } from '../../../shared/src/api/media.js';
import type { TrawlError } from '../../../shared/src/domain/errors.js';
import { pageSettled, recordPageFailure, type PageAddress } from '../../../shared/src/domain/page-failure.js';
import { makeEvent, type StoredEvent, type TrawlEvent } from '../../../shared/src/domain/events/index.js';
import type { IdGenerator, Clock } from '../../../shared/src/infra/ids.js';
import { ConsumerWorker, type MessageContext } from '../../../shared/src/infra/nats/worker.js';
import type { ServiceContext } from '../../../shared/src/infra/service.js';
import { BASELINE_BUCKET, fetcherDurable, SUBJECT_ROOT, type AggregateKind } from '../../../shared/src/infra/subjects.js';
import type { EngineRouter, RoutedPage } from './engine/engine-router.js';
import type { JobKind } from './engine/resolve-engine.js';
import type { CaptureResult } from './engine/browser/page-capturer.js';
import { storedContentType } from '../../../shared/src/domain/document-type.js';
import type { CapturePriority } from './engine/browser/slots.js';
import { ConditionalPlanner, type FetchPlan } from './conditional.js';
import { SITEMAP_LASTMOD } from '../../../shared/src/domain/conditional-fetch.js';
import { reusable, sourcePage } from '../../../shared/src/domain/observations/not-modified.js';
import { PageObserver } from '../../../shared/src/domain/observations/observer.js';
import { completeReused, type ReusedCompletionDeps } from '../../../shared/src/domain/observations/reused-completion.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { CancelCheck } from '../../../shared/src/infra/nats/cancel-check.js';
import { AppendConflictError } from '../../../shared/src/infra/nats/event-log.js';
import type { HolderLiveness } from './fleet/slot-holders.js';

type PageRequestedEvent = TrawlEvent<'page_requested'> & { seq: number };

export interface FetchWorkerDeps {
  ctx: ServiceContext;
  /** Picks the engine (browser, http, auto) for each page and fetches it. */
  router: Pick<EngineRouter, 'fetch'>;
  newId: IdGenerator;
  clock: Clock;
  /** This process's name in page_started (its slot holder id, so other fetchers can tell whether it lives). */
  workerName: string;
  /** Whether the fetcher that was `worker` at `since` (ms) lives (slot-holders.ts); without it, none is waited for. */
  workerLiveness?: (worker: string, since: number) => Promise<HolderLiveness>;
}

/** The job kinds whose pages the fetcher loads, and who is waiting for them. */
export const FETCH_LANES = { scrape: 'interactive', map: 'interactive', crawl: 'bulk', batch: 'bulk' } as const satisfies Record<string, CapturePriority>;
type LaneKind = keyof typeof FETCH_LANES;

/**
 * How long a page may wait for a browser slot before its attempt is abandoned. Each lane
 * holds up to FETCHER_CONCURRENCY pages, so a page can queue behind the other lanes' pages
 * (interactive ones first); this is far beyond that under any load the pool can serve.
 */
const SLOT_WAIT_ALLOWANCE_MS = 5 * 60_000;

/**
 * The kinds whose 304s the fetcher completes itself (no page_fetched, no transformer hop). A
 * scrape keeps the hop: the identical scrapes that joined it wait for its page_fetched.
 */
const COMPLETES_REUSED: ReadonlySet<AggregateKind> = new Set(['crawl', 'batch']);
/** A page whose latest event is one of these has nothing left for the fetcher. */
const SETTLED: ReadonlySet<string> = new Set(['page_fetched', 'page_completed', 'page_failed']);
/**
 * How long a redelivered page waits for another live fetcher's earlier delivery of it to
 * settle (that one may be running its handler again in place through an outage: up to the
 * worker's outage allowance of 60 s), and how often it looks.
 */
const OTHER_DELIVERY_WAIT_MS = 60_000;
const OTHER_DELIVERY_POLL_MS = 1_000;
/**
 * How long another fetcher must be judged gone, with every server of the holders' bucket in
 * the cluster, before it counts as dead: one renewal (2 s) that may have waited out a
 * JetStream request timeout (5 s) it sent while cut off, and a second of margin.
 */
const OTHER_GONE_CONFIRM_MS = 8_000;
/** Claims a delivery may lose in a row (another delivery appended its page_started first) before it hands the page back. */
const MAX_CLAIMS_LOST = 5;

export class FetchWorker {
  readonly consumers: ConsumerWorker<PageRequestedEvent>[];
  private readonly planner: ConditionalPlanner;
  private readonly cancels: CancelCheck;
  private readonly reuseDeps: Omit<ReusedCompletionDeps, 'newId' | 'clock'>;
  /**
   * The page each delivery has loaded, kept while the worker runs its handler again in place
   * through a NATS outage (the same context each time): a log append or a payload put that met
   * the outage after the page loaded must not ask the site for the page a second time.
   */
  private readonly loaded = new WeakMap<MessageContext, { plan: string; result: RoutedPage }>();

  constructor(private readonly deps: FetchWorkerDeps) {
    const { ctx } = deps;
    this.planner = new ConditionalPlanner({
      log: ctx.log, payloads: ctx.payloads, limits: { payloadTtlMs: ctx.config.payloadTtlMs, baselineTtlMs: ctx.config.baselineTtlMs },
    });
    this.cancels = new CancelCheck(ctx.log, ctx.nc);
    const baselines = new PayloadStore(ctx.js, BASELINE_BUCKET);
    this.reuseDeps = {
      log: ctx.log, payloads: ctx.payloads, baselines,
      observer: new PageObserver({ log: ctx.log, baselines, newId: deps.newId, baselineTtlMs: ctx.config.baselineTtlMs }),
    };
    this.consumers = (Object.keys(FETCH_LANES) as LaneKind[]).map((kind) => new ConsumerWorker<PageRequestedEvent>({
      js: ctx.js,
      jsm: ctx.jsm,
      logger: ctx.logger,
      durable: fetcherDurable(kind),
      filterSubject: laneFilter(kind),
      // Each lane may hold as many pages as the pool renders; the pool orders them.
      concurrency: ctx.config.fetcherConcurrency,
      ackWaitMs: ctx.config.fetcherAckWaitMs,
      maxDeliver: 3,
      confirmAcks: true, // a redelivered page would be asked of its site again
      stopGraceMs: ctx.config.stopGraceMs,
      // The page's own timeouts bound a capture once it runs; this backstop also allows for
      // waiting for a browser slot behind other lanes' pages (heartbeats keep the message).
      handlerTimeoutMs: (e) => e.data.options.timeoutMs * 2 + 30_000 + SLOT_WAIT_ALLOWANCE_MS,
      handle: (event, mctx) => this.handle(event, mctx, FETCH_LANES[kind]),
      giveUp: (event, error, mctx) => this.recordFailure(event, error, mctx),
    }));
  }

  async start(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.start()));
  }

  get ready(): boolean {
    return this.consumers.every((c) => c.ready);
  }

  async stop(): Promise<void> {
    await Promise.all(this.consumers.map((c) => c.stop()));
    this.cancels.close();
  }

  private at(event: StoredEvent) {
    return { kind: event.kind, id: event.id, part: event.part };
  }

  private async handle(event: PageRequestedEvent, mctx: MessageContext, priority: CapturePriority, claimsLost = 0): Promise<void> {
    const { ctx, router, clock, newId } = this.deps;
    const receivedAt = performance.now(); // the message is in hand (the host pace's reads, host-governor.ts)
    const at = this.at(event);
    const startedAt = clock();
    // The checks and the plan at once: each may be a round trip to the log before the page
    // can start (a settled or cancelled page wastes its plan's read, rarely).
    const [latest, cancelled, plan] = await Promise.all([
      ctx.log.lastOfPart(event.kind, event.id, event.part, event), // the page's latest step (at or after this event)
      this.cancels.cancelled(event.kind, event.id),
      this.planner.plan(at, event.data, startedAt),
    ]);
    // Done (fetched, completed here, or given up on) before a crash. After another attempt's
    // page_started, or after a later step of another service on the page's part (the
    // frontier's crawl_links_discovered follows page_completed), the page may still be done:
    // look at each. (Looking only at page_started let a redelivery after crawl_links_discovered
    // load a completed page again: the chaos drill's pages asked twice after a leader died.)
    if (latest && SETTLED.has(latest.event)) return;
    if (latest && latest.event !== 'page_requested' && (await this.settled(at))) return;
    if (latest?.event === 'page_started' && (await this.settledByOther(latest as TrawlEvent<'page_started'>, at, mctx))) return;
    if (cancelled) {
      mctx.logger.info('job cancelled; page not fetched');
      return;
    }
    const startEvent = (claim?: { after: number }) => ctx.log.append(
      makeEvent('page_started', at, { attempt: mctx.deliveryCount, startedAt: startedAt.toISOString(), worker: this.deps.workerName }, { eventId: newId(), now: startedAt }),
      // Keyed by this fetcher too: another's claim with the same delivery count (a count
      // reset with a consumer's leader) is not taken for this one's, past the claim's check.
      { msgId: `${event.kind}.${event.id}.${event.part}.page_started.${mctx.deliveryCount}.${this.deps.workerName}`, ...(claim ? { expectedLastSubjectSequence: claim.after } : {}) },
    );
    // A crawl or batch page that may turn out a 304 completed here writes page_started only
    // if it is not: such a page's whole attempt takes a GET, and its start would be one more
    // event to deliver. Any other page claims itself before the site is asked: page_started
    // follows the page_started this delivery saw (none: 0), so of two deliveries racing
    // (a redelivery while another fetcher still holds the page) one wins, and the other waits
    // for it (settledByOther) instead of asking the site too. A run again in place whose
    // claim is already in the log goes on with it.
    const deferStart = COMPLETES_REUSED.has(event.kind) && plan.kind !== 'full';
    const ownClaim = latest?.event === 'page_started' && latest.data.worker === this.deps.workerName && latest.data.attempt === mctx.deliveryCount;
    if (!deferStart && !ownClaim) {
      const after = latest?.event === 'page_started' || latest?.event === 'page_requested' ? { after: latest.event === 'page_started' ? latest.seq : 0 } : undefined;
      try {
        await startEvent(after);
      } catch (err) {
        if (!(err instanceof AppendConflictError)) throw err;
        // Bounded: each look reads the winner's claim from the stream's leader, so a second
        // loss in a row is already odd; past a few the page goes back to its consumer.
        if (claimsLost + 1 >= MAX_CLAIMS_LOST) throw new Error(`lost the page's claim ${claimsLost + 1} times in a row`, { cause: err });
        mctx.logger.warn('another delivery claimed the page first; looking again');
        return this.handle(event, mctx, priority, claimsLost + 1);
      }
    }
    // A page that may be completed here from a stored page: that page is read while the GET runs.
    const basis = plan.kind === 'full' ? undefined : notModifiedOf(plan);
    const source = deferStart && basis && reusable(basis, event.data.options) ? sourcePage({ log: ctx.log }, basis) : undefined;
    source?.catch(() => undefined); // awaited by the completion; unused when the answer is not a 304
    let result: RoutedPage;
    const earlier = this.loaded.get(mctx);
    if (earlier?.plan === plan.kind) result = earlier.result;
    else {
      result = plan.kind === 'skip'
        ? skippedPage(event.data.url, event.data.options.engine ?? 'auto')
        : await router.fetch(jobKindOf(event.kind), event.data.url, event.data.options, { signal: mctx.signal, priority, receivedAt, apiKeyId: event.data.apiKeyId }, plan.kind === 'conditional' ? plan.basis.validators : undefined);
      this.loaded.set(mctx, { plan: plan.kind, result });
    }
    const queueWaitMs = Math.max(0, startedAt.getTime() - Date.parse(event.data.requestedAt));
    const notModified = result.notModified && plan.kind !== 'full' ? notModifiedOf(plan) : undefined;
    const completesHere = notModified && COMPLETES_REUSED.has(event.kind) && reusable(notModified, event.data.options);
    if (deferStart && !completesHere) await startEvent();
    if (completesHere) {
      // A crawl or batch page standing for a stored result that holds every format asked: completed here, naming it.
      return completeReused({ ...this.reuseDeps, newId, clock }, {
        at, request: { event: 'page_requested', data: event.data }, basis: notModified, fetchedSeq: event.seq,
        validators: result.validators, ...(plan.kind === 'conditional' ? { lastObservation: plan.last } : {}), source, timings: { queueWaitMs, ...roundTimings(result.timings) }, engine: result.engine.used,
      });
    }
    // Any other 304 (or skip) stores nothing: the transformer completes the page from the observation it names.
    const fetched = notModified ? { notModified } : await this.store(event, result);
    const now = clock();
    await ctx.log.append(
      makeEvent('page_fetched', at, {
        finalUrl: result.finalUrl,
        statusCode: result.statusCode,
        ...(result.contentType ? { contentType: result.contentType } : {}),
        ...fetched,
        timings: { queueWaitMs, ...roundTimings(result.timings) },
        fetchedAt: now.toISOString(),
        // The one field that says which engine served the page, and why.
        engine: result.engine,
        ...(result.abortedNavigations ? { abortedNavigations: result.abortedNavigations } : {}),
        ...(result.domSnapshot ? { domSnapshot: result.domSnapshot } : {}),
        ...(result.outcomeHeaders && Object.keys(result.outcomeHeaders).length ? { outcomeHeaders: result.outcomeHeaders } : {}),
        ...(result.validators ? { validators: result.validators } : {}),
        ...(result.consent ? { consent: result.consent } : {}),
        ...(plan.kind === 'full' && plan.unobserved ? { unobserved: true as const } : {}),
      }, { eventId: newId(), now }),
      { once: true },
    );
  }

  private async settled(at: PageAddress): Promise<boolean> {
    const { log } = this.deps.ctx;
    const [settled, completed] = await Promise.all([pageSettled(log, at, 'page_fetched'), log.exists({ ...at, event: 'page_completed' })]);
    return settled || completed;
  }

  /**
   * A redelivery of a page whose earlier delivery another fetcher is still loading (its ack
   * or heartbeats were lost with the consumer's leader, or its appends wait out an outage):
   * asking the site again would serve the page twice, so this one waits, while that fetcher
   * may live, for the page to settle. True when it did; false to load it here (that fetcher
   * died, this process restarted in its place, or the wait ran out).
   */
  private async settledByOther(started: TrawlEvent<'page_started'>, at: PageAddress, mctx: MessageContext): Promise<boolean> {
    const { workerLiveness, workerName } = this.deps;
    const { worker, attempt, startedAt } = started.data;
    // Another fetcher's claim, whatever its attempt: a consumer whose leader died may hand a
    // page out again as a first delivery (its delivery count not yet replicated), while the
    // fetcher that claimed it still holds it (the chaos drill's page asked twice, the second
    // time 3 s after the first fetcher had the page, its append waiting for a new leader).
    if (!workerLiveness || worker === workerName) return false;
    mctx.logger.warn({ worker, attempt }, 'redelivered after another fetcher claimed the page; waiting for its result');
    let goneSince: number | undefined;
    for (const end = Date.now() + OTHER_DELIVERY_WAIT_MS; Date.now() < end && !mctx.signal.aborted;) {
      // Gone for a while with the whole cluster there, not at one look: a fetcher cut off
      // with its server cannot renew its key until that server is back (or it has moved to
      // another), and 'unsure' while a server is out never counts towards its death.
      const liveness = await workerLiveness(worker, Date.parse(startedAt));
      if (liveness === 'replaced') return false; // restarted in its place: the one that claimed the page died
      if (liveness !== 'gone') goneSince = undefined;
      else if (Date.now() - (goneSince ??= Date.now()) >= OTHER_GONE_CONFIRM_MS) return false;
      await new Promise((resolve) => setTimeout(resolve, OTHER_DELIVERY_POLL_MS));
      if (await this.settled(at)) return true;
    }
    // Shut down or past the deadline while waiting: handed back, not loaded here.
    mctx.signal.throwIfAborted();
    mctx.logger.warn({ worker, attempt }, 'the other fetcher\'s result did not come in time; loading the page here');
    return false;
  }

  private async store(event: PageRequestedEvent, result: RoutedPage) {
    const base = `${event.kind}/${event.id}/${event.part}`;
    const { payloads } = this.deps.ctx;
    if (result.document) {
      // A document: its bytes as served, for the transformer and for the result's link.
      const { kind, bytes } = result.document;
      return { document: { ref: await payloads.putBytes(`${base}/document`, bytes, storedContentType(kind, result.contentType)), type: kind } };
    }
    const rawHtml = await payloads.putText(`${base}/raw.html`, result.html, 'text/html; charset=utf-8');
    let actionIndex = 0;
    const screenshots = [];
    for (const shot of result.screenshots) {
      const name = shot.role === 'final' ? `${base}/screenshot.${shot.format}` : `${base}/action-${actionIndex++}.${shot.format}`;
      const ref = await payloads.putBytes(name, shot.data, screenshotMediaType(shot.format));
      screenshots.push({ ref, width: shot.width, height: shot.height, format: shot.format, role: shot.role });
    }
    return { rawHtml, ...(screenshots.length ? { screenshots } : {}) };
  }

  private recordFailure(event: PageRequestedEvent, error: TrawlError, mctx: MessageContext): Promise<void> {
    return recordPageFailure(this.deps.ctx.log, this.at(event), error, mctx.deliveryCount, this.deps, event.data.cacheKey);
  }

}

/** A recrawl's page skipped on its sitemap lastmod: nothing was requested. */
function skippedPage(url: string, requested: NonNullable<PageRequestedEvent['data']['options']['engine']>): RoutedPage {
  return {
    finalUrl: url, statusCode: 304, html: '', screenshots: [], timings: { fetchMs: 0, renderMs: 0, screenshotMs: 0 },
    engine: { used: 'http', requested, reason: SITEMAP_LASTMOD }, notModified: true,
  };
}

function notModifiedOf(plan: Exclude<FetchPlan, { kind: 'full' }>) {
  const { observationSeq, observedAt, source, markdownHash, baseline, formats, resultStoredAt } = plan.basis;
  return {
    observationSeq, observedAt, source,
    ...(markdownHash ? { markdownHash } : {}),
    ...(baseline ? { baseline } : {}),
    ...(formats ? { formats } : {}),
    ...(resultStoredAt ? { resultStoredAt } : {}),
    ...(plan.kind === 'skip' ? { by: SITEMAP_LASTMOD } : {}),
  };
}

function laneFilter(kind: LaneKind): string {
  return `${SUBJECT_ROOT}.${kind}.*.*.page_requested`;
}

function roundTimings(t: CaptureResult['timings']) {
  return { fetchMs: Math.round(t.fetchMs), renderMs: Math.round(t.renderMs), screenshotMs: Math.round(t.screenshotMs) };
}

/** The job kind whose engine default applies: only job kinds request pages; any other is a scrape. */
function jobKindOf(kind: AggregateKind): JobKind {
  return kind === 'crawl' || kind === 'batch' || kind === 'map' ? kind : 'scrape';
}
