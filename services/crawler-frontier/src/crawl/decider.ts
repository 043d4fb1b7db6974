// The crawl policy of the multi-page job decider (../job/decider.ts): a crawl starts from one
// page and grows by the links of the pages it completes, judged once each (depth, paths,
// robots.txt, limit) and queued FIFO, so the crawl is breadth-first; hosts that refuse it are
// backed off, then blocked (host-blocks.ts). The state holds page keys, depths and queued
// URLs, never page content (a page's links only until their verdict is recorded).
import type { CrawlRequested, CrawlSkipReason } from '../../../../shared/src/domain/events/job.js';
import { checkLink, pageKeyOfUrl } from './links.js';
import { backingOff, dueToBlock, hostOf, isBlocked, noRefusals, REFUSAL_CODES, withBlocked, withResult, type HostRefusals } from './host-blocks.js';
import {
  jobDecider, jobState, without, type DecideContext as JobContext, type Emitted, type JobCommand, type JobState, type LogEvent, type PageResult, type QueuedPage,
} from '../job/decider.js';

export { isFinished, jobWebhookBody } from '../job/decider.js';
export type { Emitted, LogEvent, QueuedPage } from '../job/decider.js';
export type CrawlCommand = JobCommand;

export interface DecideContext extends JobContext {
  /** robots.txt verdict for a URL; absent means allowed. Must answer synchronously. */
  robotsAllows?: (url: string) => boolean;
}

export interface CrawlState extends JobState<CrawlRequested> {
  startPageKey: string | null;
  /** Every page accepted into the crawl (queued, in flight or done): key -> depth. */
  discovered: ReadonlyMap<string, number>;
  /** Completed pages whose links have not been judged yet. */
  awaitingLinks: ReadonlyMap<string, { depth: number; links: readonly string[] }>;
  /** The start page's error, which fails the crawl. */
  startPageError: string | null;
  /** Hosts refusing the crawler (host-blocks.ts): streaks and the hosts no longer asked. */
  hosts: HostRefusals;
  /** The host of each page in flight, for the result's streak. */
  pageHosts: ReadonlyMap<string, string>;
}

const initial = (): CrawlState => ({
  ...jobState<CrawlRequested>(),
  startPageKey: null,
  discovered: new Map(),
  awaitingLinks: new Map(),
  startPageError: null,
  hosts: noRefusals(),
  pageHosts: new Map(),
});

/** The host streak and the start page's error after a page's result. */
function onResult(s: CrawlState, r: PageResult): CrawlState {
  const host = s.pageHosts.get(r.pageKey) ?? '';
  const refused = !r.ok && !r.errorPage && REFUSAL_CODES.has((r.event as { error: { code: string } }).error.code);
  const next: CrawlState = {
    ...s,
    hosts: withResult(s.hosts, host, r.ok || r.errorPage ? 'completed' : refused ? 'refused' : 'other'),
    pageHosts: without(s.pageHosts, r.pageKey),
  };
  if (r.ok) return { ...next, awaitingLinks: new Map(s.awaitingLinks).set(r.pageKey, { depth: r.depth, links: r.event.links }) };
  // An error page's links are the server's error template, not the site: not followed.
  if (r.pageKey !== s.startPageKey) return next;
  const why = 'error' in r.event ? r.event.error.message : httpErrorReason(r.event.metadata);
  return { ...next, startPageError: why };
}

function evolveCrawl(s: CrawlState, e: LogEvent): CrawlState {
  switch (e.event) {
    case 'crawl_links_discovered': {
      if (!s.awaitingLinks.has(e.part) || !s.request) return s;
      // Re-checks duplicates and the limit: two frontier replicas may have judged two pages
      // from the same state; the first verdict in the log wins for each URL.
      // The state's map and queue are copied only when a URL is new: most pages' links are
      // all known by then (a site's navigation repeats), and a copy per page made folding a
      // crawl's events quadratic in its size.
      let added: { discovered: Map<string, number>; queue: QueuedPage[] } | undefined;
      for (const url of e.data.urls) {
        const pageKey = pageKeyOfUrl(url);
        const known = added?.discovered ?? s.discovered;
        if (!pageKey || known.has(pageKey) || known.size >= s.request.limit) continue;
        added ??= { discovered: new Map(s.discovered), queue: [...s.queue] };
        added.discovered.set(pageKey, e.data.depth);
        added.queue.push({ pageKey, url, depth: e.data.depth });
      }
      return { ...s, ...added, awaitingLinks: without(s.awaitingLinks, e.part) };
    }
    case 'crawl_host_blocked': {
      // The host's queued pages are never asked for: they count as failed.
      const host = e.data.host;
      const queue = s.queue.filter((q) => hostOf(q.url) !== host);
      return { ...s, hosts: withBlocked(s.hosts, host), queue, failed: s.failed + (s.queue.length - queue.length) };
    }
    default:
      return s;
  }
}

/** The crawl's own decisions before pages are requested: link verdicts, then host blocks. */
function decideCrawl(crawlId: string, s0: CrawlState, ctx: DecideContext, emit: (e: Emitted) => void, at: string): void {
  let s = s0;
  const emitAndFold = (e: Emitted): void => { emit(e); s = crawlDecider.evolve(s, e as LogEvent); };
  for (const [pageKey, page] of s.awaitingLinks) {
    emitAndFold({ part: pageKey, event: 'crawl_links_discovered', data: { ...judgeLinks(s, page.depth + 1, page.links, ctx), discoveredAt: at } });
  }
  for (const host of dueToBlock(s.hosts)) {
    const refusals = s.hosts.streak.get(host) ?? 0;
    emitAndFold({ part: hostPart(host), event: 'crawl_host_blocked', data: { host, refusals, blockedAt: at } });
    const request = s.request!;
    if (!request.webhookUrl) continue;
    // A part of its own: the crawl's final webhook is recorded once on WEBHOOK_PART.
    emitAndFold({
      part: `webhook-${hostPart(host)}`,
      event: 'webhook_requested',
      data: {
        url: request.webhookUrl,
        type: 'crawl.host_blocked',
        body: JSON.stringify({ event: 'crawl.host_blocked', data: { id: crawlId, status: s.status, startUrl: request.startUrl, host, refusals }, timestamp: at }),
        webhookId: `msg_${crawlId}_${hostPart(host)}`,
        apiKeyId: request.apiKeyId,
        requestedAt: at,
      },
    });
  }
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

export const crawlDecider = jobDecider<CrawlRequested, CrawlState, DecideContext>({
  kind: 'crawl',
  initialState: initial,
  start(s) {
    const startUrl = s.request!.startUrl;
    const pageKey = pageKeyOfUrl(startUrl)!;
    return { ...s, startPageKey: pageKey, discovered: new Map([[pageKey, 0]]), queue: [{ pageKey, url: startUrl, depth: 0 }] };
  },
  onRequested: (s, page) => ({ ...s, pageHosts: new Map(s.pageHosts).set(page.pageKey, hostOf(page.url)) }),
  onResult,
  evolve: evolveCrawl,
  decide: decideCrawl,
  nextRequestable,
  busy: (s) => s.awaitingLinks.size > 0,
  outcome: (s) => (s.startPageError !== null ? { status: 'FAILED', reason: `start page failed: ${s.startPageError}` } : { status: 'COMPLETED' }),
  pageOptions: (r) => r.scrapeOptions,
  totalUrls: (s) => s.discovered.size,
  webhookFields: (r) => ({ startUrl: r.startUrl }),
});

export const { decide, evolve, initialState, rehydrate } = crawlDecider;

/** The subject part of a host's crawl_host_blocked: a hash token (a host has dots, subjects split at them). */
export const hostPart = (host: string): string => pageKeyOfUrl(`http://${host}/`) ?? 'host';

/** The verdict on one page's links, against the state the crawl is in now. */
function judgeLinks(s: CrawlState, depth: number, links: readonly string[], ctx: DecideContext) {
  const request = s.request!;
  const urls: string[] = [];
  const taken = new Set<string>();
  const skipped: Partial<Record<CrawlSkipReason, number>> = {};
  const skip = (reason: CrawlSkipReason): void => { skipped[reason] = (skipped[reason] ?? 0) + 1; };
  for (const raw of links) {
    const verdict = checkLink(raw, depth, request);
    if (!verdict.accept) { skip(verdict.reason); continue; }
    const { url, pageKey } = verdict.candidate;
    if (s.discovered.has(pageKey) || taken.has(pageKey)) { skip('duplicate'); continue; }
    if (isBlocked(s.hosts, hostOf(url))) { skip('blocked-host'); continue; }
    if (!request.ignoreRobots && ctx.robotsAllows && !ctx.robotsAllows(url)) { skip('robots'); continue; }
    if (s.discovered.size + urls.length >= request.limit) { skip('limit'); continue; }
    taken.add(pageKey);
    urls.push(url);
  }
  return { depth, urls, skipped: skipped as Record<string, number> };
}

/** URLs whose robots.txt the worker must have loaded before `Advance` (pure checks passed). */
export function robotsCandidates(s: CrawlState): string[] {
  if (!s.request || s.request.ignoreRobots || s.cancelRequested) return [];
  const urls: string[] = [];
  for (const page of s.awaitingLinks.values()) {
    for (const raw of page.links) {
      const verdict = checkLink(raw, page.depth + 1, s.request);
      if (verdict.accept && !s.discovered.has(verdict.candidate.pageKey)) urls.push(verdict.candidate.url);
    }
  }
  return urls;
}

/** Why an error page failed the start page: its status, or a soft 404's outcome (docs/api.md "Page outcome"). */
function httpErrorReason(metadata: { statusCode?: number; pageOutcome?: unknown }): string {
  return (metadata.statusCode ?? 0) >= 400 ? `the server answered HTTP ${metadata.statusCode}` : `the page is an error page served with HTTP ${metadata.statusCode ?? 200} (soft-404)`;
}
