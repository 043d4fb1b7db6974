// The crawl aggregate as a pure decider (emmett style): `evolve` folds the crawl's log
// events into a state, `decide` turns a command and the state into new events. No IO, no
// clock, no randomness: the worker (IO at the edge) passes `now` and a robots predicate.
//
// The crawl's stream holds events written by others (crawl_requested and
// crawl_cancel_requested by the gateway, page_completed / page_failed by the page pipeline)
// and the frontier's own decisions. The frontier reacts to every event with one command,
// `Advance`, which emits whatever the state says is due, in this order:
//   1. a cancelled crawl finishes at once (CANCELLED), nothing else is scheduled;
//   2. a requested crawl starts: crawl_started, the start page (depth 0) joins the queue;
//   3. each completed page's links are judged once (crawl_links_discovered);
//   4. queued pages are requested while fewer than `maxInFlight` are loading (FIFO, so
//      the crawl is breadth-first and one crawl never floods the fetcher's queue). A page
//      is loading from page_requested to page_fetched: once fetched it puts no more load
//      on the site, and the next page may load while it is transformed. Pages requested
//      and not finished are bounded too, at 2 × maxInFlight (see `maxUnfinished`);
//   5. with nothing in flight, queued or awaiting its links, the crawl finishes.
// Because the command is "do what is due" rather than "react to this event", deciding
// again after a crash or a redelivery yields the same events, which the log refuses as
// duplicates (every event here is appended with `once`).
//
// Memory: the state holds page keys, depths and the URLs still queued, never page
// content; a completed page's links are held only until its verdict is recorded.
import { IllegalStateError, NotFoundError } from '../../../../shared/src/errors.js';
import type { CrawlFinalStatus, CrawlRequested, CrawlSkipReason, WebhookEventType } from '../../../../shared/src/events/crawl.js';
import { JOB_PART, WEBHOOK_PART } from '../../../../shared/src/events/crawl.js';
import type { EventData, EventName } from '../../../../shared/src/events/index.js';
import { isHttpErrorPage } from '../../../../shared/src/events/page.js';
import { checkLink, pageKeyOfUrl } from './links.js';
import { backingOff, dueToBlock, hostOf, isBlocked, noRefusals, REFUSAL_CODES, withBlocked, withResult, type HostRefusals } from './host-blocks.js';

/** Pages of one crawl loading at once (CRAWL_MAX_IN_FLIGHT overrides). */
export const DEFAULT_MAX_IN_FLIGHT = 4;

/**
 * Pages of one crawl requested and not yet finished (loading or being transformed): twice
 * the pages loading. The transformer is the longer stage of an HTTP-engine page, so letting
 * the next pages load while the last ones are transformed keeps both busy, without letting
 * a crawl pile up fetched pages in front of a slower transformer.
 */
export const maxUnfinished = (maxInFlight: number): number => 2 * maxInFlight;

/** An event as the decider sees it: the subject part, the name and the data. */
export type LogEvent = { [N in EventName]: { part: string; event: N; data: EventData<N> } }[EventName];
export type Emitted<N extends EventName = EventName> = { part: string; event: N; data: EventData<N> };

export type CrawlStatus = 'NONE' | 'PENDING' | 'PROCESSING' | CrawlFinalStatus;

export interface QueuedPage {
  pageKey: string;
  url: string;
  depth: number;
}

export interface CrawlState {
  status: CrawlStatus;
  crawl: CrawlRequested | null;
  startPageKey: string | null;
  /** Every page accepted into the crawl (queued, in flight or done): key -> depth. */
  discovered: ReadonlyMap<string, number>;
  /** Accepted, not yet requested, in discovery order. */
  queue: readonly QueuedPage[];
  /** Requested, no result yet: key -> depth. */
  inFlight: ReadonlyMap<string, number>;
  /** Pages of inFlight already fetched (page_fetched): no longer loading, being transformed. */
  fetched: ReadonlySet<string>;
  /** Completed pages whose links have not been judged yet. */
  awaitingLinks: ReadonlyMap<string, { depth: number; links: readonly string[] }>;
  completed: number;
  failed: number;
  /** The start page's error, which fails the crawl. */
  startPageError: string | null;
  cancelRequested: boolean;
  /** Hosts refusing the crawler (host-blocks.ts): streaks and the hosts no longer asked. */
  hosts: HostRefusals;
  /** The host of each page in flight, for the result's streak. */
  pageHosts: ReadonlyMap<string, string>;
}

export const initialState = (): CrawlState => ({
  status: 'NONE',
  crawl: null,
  startPageKey: null,
  discovered: new Map(),
  queue: [],
  inFlight: new Map(),
  fetched: new Set(),
  awaitingLinks: new Map(),
  completed: 0,
  failed: 0,
  startPageError: null,
  cancelRequested: false,
  hosts: noRefusals(),
  pageHosts: new Map(),
});

export const isFinished = (s: CrawlState): boolean =>
  s.status === 'COMPLETED' || s.status === 'FAILED' || s.status === 'CANCELLED';

/** Page results after a cancel or the end no longer change the crawl (counters freeze). */
const frozen = (s: CrawlState): boolean => isFinished(s) || s.cancelRequested;

function without<K, V>(map: ReadonlyMap<K, V>, key: K): Map<K, V> {
  const copy = new Map(map);
  copy.delete(key);
  return copy;
}

function withoutKey<K>(set: ReadonlySet<K>, key: K): ReadonlySet<K> {
  if (!set.has(key)) return set;
  const copy = new Set(set);
  copy.delete(key);
  return copy;
}

/** Pages requested and not yet fetched: the load this crawl puts on its site right now. */
export const loadingCount = (s: CrawlState): number => s.inFlight.size - s.fetched.size;

export function evolve(state: CrawlState, event: LogEvent): CrawlState {
  switch (event.event) {
    case 'crawl_requested':
      return state.status === 'NONE' ? { ...state, status: 'PENDING', crawl: event.data } : state;
    case 'crawl_started': {
      if (state.status !== 'PENDING' || !state.crawl) return state;
      const pageKey = pageKeyOfUrl(state.crawl.startUrl)!;
      return {
        ...state,
        status: 'PROCESSING',
        startPageKey: pageKey,
        discovered: new Map([[pageKey, 0]]),
        queue: [{ pageKey, url: state.crawl.startUrl, depth: 0 }],
      };
    }
    case 'page_requested': {
      const index = state.queue.findIndex((q) => q.pageKey === event.part);
      if (index < 0) return state;
      const inFlight = new Map(state.inFlight).set(event.part, state.queue[index]!.depth);
      const pageHosts = new Map(state.pageHosts).set(event.part, hostOf(state.queue[index]!.url));
      return { ...state, queue: state.queue.filter((_, i) => i !== index), inFlight, pageHosts };
    }
    case 'page_fetched':
      if (!state.inFlight.has(event.part) || state.fetched.has(event.part)) return state;
      return { ...state, fetched: new Set(state.fetched).add(event.part) };
    case 'page_completed': {
      const depth = state.inFlight.get(event.part);
      if (depth === undefined || frozen(state)) return state;
      const fetched = withoutKey(state.fetched, event.part);
      state = { ...state, hosts: withResult(state.hosts, state.pageHosts.get(event.part) ?? '', 'completed'), pageHosts: without(state.pageHosts, event.part) };
      if (isHttpErrorPage(event.data)) {
        // An error page's links are the server's error template, not the site: not followed.
        return {
          ...state,
          inFlight: without(state.inFlight, event.part),
          fetched,
          failed: state.failed + 1,
          startPageError: event.part === state.startPageKey ? httpErrorReason(event.data.metadata) : state.startPageError,
        };
      }
      return {
        ...state,
        inFlight: without(state.inFlight, event.part),
        fetched,
        completed: state.completed + 1,
        awaitingLinks: new Map(state.awaitingLinks).set(event.part, { depth, links: event.data.links }),
      };
    }
    case 'page_failed': {
      if (!state.inFlight.has(event.part) || frozen(state)) return state;
      const result = REFUSAL_CODES.has(event.data.error.code) ? 'refused' : 'other';
      return {
        ...state,
        hosts: withResult(state.hosts, state.pageHosts.get(event.part) ?? '', result),
        pageHosts: without(state.pageHosts, event.part),
        inFlight: without(state.inFlight, event.part),
        fetched: withoutKey(state.fetched, event.part),
        failed: state.failed + 1,
        startPageError: event.part === state.startPageKey ? event.data.error.message : state.startPageError,
      };
    }
    case 'crawl_links_discovered': {
      if (!state.awaitingLinks.has(event.part) || !state.crawl) return state;
      // Re-checks duplicates and the limit: two frontier replicas may have judged two pages
      // from the same state; the first verdict in the log wins for each URL.
      const discovered = new Map(state.discovered);
      const queue = [...state.queue];
      for (const url of event.data.urls) {
        const pageKey = pageKeyOfUrl(url);
        if (!pageKey || discovered.has(pageKey) || discovered.size >= state.crawl.limit) continue;
        discovered.set(pageKey, event.data.depth);
        queue.push({ pageKey, url, depth: event.data.depth });
      }
      return { ...state, discovered, queue, awaitingLinks: without(state.awaitingLinks, event.part) };
    }
    case 'crawl_host_blocked': {
      // The host's queued pages are never asked for: they count as failed.
      const host = event.data.host;
      const queue = state.queue.filter((q) => hostOf(q.url) !== host);
      return { ...state, hosts: withBlocked(state.hosts, host), queue, failed: state.failed + (state.queue.length - queue.length) };
    }
    case 'crawl_cancel_requested':
      return isFinished(state) || state.status === 'NONE' ? state : { ...state, cancelRequested: true };
    case 'crawl_finished':
      return { ...state, status: event.data.status };
    default:
      return state;
  }
}

// ---- commands ---------------------------------------------------------------------

export type CrawlCommand =
  | { type: 'RequestCrawl'; crawlId: string; request: Omit<CrawlRequested, 'requestedAt'> }
  | { type: 'CancelCrawl'; crawlId: string }
  | { type: 'Advance'; crawlId: string }
  /** The frontier could not process the crawl (a message it gave up on): end it FAILED. */
  | { type: 'FailCrawl'; crawlId: string; reason: string };

export interface DecideContext {
  now: Date;
  /** Pages of this crawl loading at once (twice as many may be unfinished, see maxUnfinished). */
  maxInFlight?: number;
  /** robots.txt verdict for a URL; absent means allowed. Must answer synchronously. */
  robotsAllows?: (url: string) => boolean;
}

export function decide(command: CrawlCommand, state: CrawlState, ctx: DecideContext): Emitted[] {
  switch (command.type) {
    case 'RequestCrawl':
      if (state.status !== 'NONE') throw new IllegalStateError(`crawl ${command.crawlId} already exists`);
      return [{ part: JOB_PART, event: 'crawl_requested', data: { ...command.request, requestedAt: ctx.now.toISOString() } }];
    case 'CancelCrawl':
      if (state.status === 'NONE') throw new NotFoundError(`crawl ${command.crawlId} not found`);
      if (isFinished(state)) throw new IllegalStateError(`crawl ${command.crawlId} already finished with status ${state.status}`);
      if (state.cancelRequested) return [];
      return [{ part: JOB_PART, event: 'crawl_cancel_requested', data: { requestedAt: ctx.now.toISOString() } }];
    case 'Advance':
      return advance(command.crawlId, state, ctx);
    case 'FailCrawl': {
      if (state.status === 'NONE' || isFinished(state)) return [];
      const out: Emitted[] = [];
      finish(command.crawlId, state, 'FAILED', ctx.now.toISOString(), (e) => out.push(e), command.reason);
      return out;
    }
  }
}

function advance(crawlId: string, initial: CrawlState, ctx: DecideContext): Emitted[] {
  if (initial.status === 'NONE' || isFinished(initial)) return [];
  const at = ctx.now.toISOString();
  const out: Emitted[] = [];
  let s = initial;
  const emit = (e: Emitted): void => {
    out.push(e);
    s = evolve(s, e as LogEvent);
  };

  if (s.cancelRequested) {
    finish(crawlId, s, 'CANCELLED', at, emit);
    return out;
  }
  if (s.status === 'PENDING') emit({ part: JOB_PART, event: 'crawl_started', data: { startedAt: at } });

  for (const [pageKey, page] of s.awaitingLinks) {
    emit({ part: pageKey, event: 'crawl_links_discovered', data: { ...judgeLinks(s, page.depth + 1, page.links, ctx), discoveredAt: at } });
  }

  for (const host of dueToBlock(s.hosts)) {
    emit({ part: hostPart(host), event: 'crawl_host_blocked', data: { host, refusals: s.hosts.streak.get(host) ?? 0, blockedAt: at } });
    const crawl = s.crawl!;
    if (crawl.webhookUrl) {
      // A part of its own: the crawl's final webhook is recorded once on WEBHOOK_PART.
      emit({
        part: `webhook-${hostPart(host)}`,
        event: 'webhook_requested',
        data: {
          url: crawl.webhookUrl,
          type: 'crawl.host_blocked',
          body: JSON.stringify({ event: 'crawl.host_blocked', data: { id: crawlId, status: s.status, startUrl: crawl.startUrl, host, refusals: s.hosts.streak.get(host) ?? 0 }, timestamp: at }),
          webhookId: `msg_${crawlId}_${hostPart(host)}`,
          apiKeyId: crawl.apiKeyId,
          requestedAt: at,
        },
      });
    }
  }

  const maxInFlight = ctx.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  for (;;) {
    if (!(loadingCount(s) < maxInFlight && s.inFlight.size < maxUnfinished(maxInFlight))) break;
    const next = nextRequestable(s);
    if (!next) break;
    const crawl = s.crawl!;
    emit({
      part: next.pageKey,
      event: 'page_requested',
      data: { url: next.url, options: crawl.scrapeOptions, apiKeyId: crawl.apiKeyId, depth: next.depth, requestedAt: at },
    });
  }

  if (s.inFlight.size === 0 && s.queue.length === 0 && s.awaitingLinks.size === 0) {
    finish(crawlId, s, s.startPageError !== null ? 'FAILED' : 'COMPLETED', at, emit);
  }
  return out;
}

/**
 * The first queued page the crawl may ask for now: not of a blocked host, and not of a host
 * backing off while one of its pages is still loading (host-blocks.ts).
 */
function nextRequestable(s: CrawlState): QueuedPage | undefined {
  const loadingHosts = new Set<string>();
  for (const [key, host] of s.pageHosts) if (!s.fetched.has(key)) loadingHosts.add(host);
  return s.queue.find((q) => {
    const host = hostOf(q.url);
    return !isBlocked(s.hosts, host) && !(backingOff(s.hosts, host) && loadingHosts.has(host));
  });
}

/** The subject part of a host's crawl_host_blocked: a hash token (a host has dots, subjects split at them). */
export const hostPart = (host: string): string => pageKeyOfUrl(`http://${host}/`) ?? 'host';

/** The verdict on one page's links, against the state the crawl is in now. */
function judgeLinks(s: CrawlState, depth: number, links: readonly string[], ctx: DecideContext) {
  const crawl = s.crawl!;
  const urls: string[] = [];
  const taken = new Set<string>();
  const skipped: Partial<Record<CrawlSkipReason, number>> = {};
  const skip = (reason: CrawlSkipReason): void => { skipped[reason] = (skipped[reason] ?? 0) + 1; };
  for (const raw of links) {
    const verdict = checkLink(raw, depth, crawl);
    if (!verdict.accept) { skip(verdict.reason); continue; }
    const { url, pageKey } = verdict.candidate;
    if (s.discovered.has(pageKey) || taken.has(pageKey)) { skip('duplicate'); continue; }
    if (isBlocked(s.hosts, hostOf(url))) { skip('blocked-host'); continue; }
    if (!crawl.ignoreRobots && ctx.robotsAllows && !ctx.robotsAllows(url)) { skip('robots'); continue; }
    if (s.discovered.size + urls.length >= crawl.limit) { skip('limit'); continue; }
    taken.add(pageKey);
    urls.push(url);
  }
  return { depth, urls, skipped: skipped as Record<string, number> };
}

/** URLs whose robots.txt the worker must have loaded before `Advance` (pure checks passed). */
export function robotsCandidates(s: CrawlState): string[] {
  if (!s.crawl || s.crawl.ignoreRobots || s.cancelRequested) return [];
  const urls: string[] = [];
  for (const page of s.awaitingLinks.values()) {
    for (const raw of page.links) {
      const verdict = checkLink(raw, page.depth + 1, s.crawl);
      if (verdict.accept && !s.discovered.has(verdict.candidate.pageKey)) urls.push(verdict.candidate.url);
    }
  }
  return urls;
}

function finish(crawlId: string, s: CrawlState, status: CrawlFinalStatus, at: string, emit: (e: Emitted) => void, reason?: string): void {
  const counters = { totalUrls: s.discovered.size, completedUrls: s.completed, failedUrls: s.failed };
  const why = reason ?? (status === 'FAILED' && s.startPageError !== null ? `start page failed: ${s.startPageError}` : undefined);
  emit({
    part: JOB_PART,
    event: 'crawl_finished',
    data: { status, ...counters, ...(why !== undefined ? { reason: why } : {}), finishedAt: at },
  });
  const crawl = s.crawl!;
  if (!crawl.webhookUrl) return;
  const type: WebhookEventType = status === 'COMPLETED' ? 'crawl.completed' : status === 'FAILED' ? 'crawl.failed' : 'crawl.cancelled';
  emit({
    part: WEBHOOK_PART,
    event: 'webhook_requested',
    data: {
      url: crawl.webhookUrl,
      type,
      body: crawlWebhookBody(type, { id: crawlId, status, startUrl: crawl.startUrl, ...counters }, at),
      webhookId: `msg_${crawlId}`,
      apiKeyId: crawl.apiKeyId,
      requestedAt: at,
    },
  });
}

/** The spec's crawl.completed payload (the same shape for crawl.failed and crawl.cancelled). */
export function crawlWebhookBody(
  type: WebhookEventType,
  data: { id: string; status: CrawlFinalStatus; startUrl: string; totalUrls: number; completedUrls: number; failedUrls: number },
  timestamp: string,
): string {
  return JSON.stringify({
    event: type,
    data: {
      id: data.id,
      status: data.status,
      startUrl: data.startUrl,
      totalUrls: data.totalUrls,
      completedUrls: data.completedUrls,
      failedUrls: data.failedUrls,
    },
    timestamp,
  });
}

/** Folds a history into a state. */
export function rehydrate(events: Iterable<LogEvent>, from: CrawlState = initialState()): CrawlState {
  let s = from;
  for (const e of events) s = evolve(s, e);
  return s;
}

/** Why an error page failed the start page: its status, or a soft 404's outcome (docs/api.md "Page outcome"). */
function httpErrorReason(metadata: { statusCode?: number; pageOutcome?: unknown }): string {
  return (metadata.statusCode ?? 0) >= 400 ? `the server answered HTTP ${metadata.statusCode}` : `the page is an error page served with HTTP ${metadata.statusCode ?? 200} (soft-404)`;
}
