// Given / when / then for the crawl decider (emmett's DeciderSpecification, in node:test
// terms), event builders, and a small simulator that plays the page pipeline's part
// against a link graph so tests can assert exact page sets.
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { urlKeyHash, normalizeUrl } from '../../../shared/src/net/url-normalize.js';
import type { CrawlRequested } from '../../../shared/src/domain/events/job.js';
import {
  decide, evolve, initialState, rehydrate,
  type CrawlCommand, type CrawlState, type DecideContext, type Emitted, type LogEvent,
} from '../../../services/crawler-frontier/src/crawl/decider.js';
import { deciderSpec } from '../../support/decider.js';

export const NOW = new Date('2025-01-02T03:04:05.678Z');
export const AT = NOW.toISOString();
export const CRAWL_ID = 'crawl1';
export const ORIGIN = 'https://site.test';

export const keyOf = (url: string): string => urlKeyHash(normalizeUrl(url)!.key);
export const u = (path: string): string => (path.startsWith('/') ? `${ORIGIN}${path}` : path);

export function requested(overrides: Partial<CrawlRequested> = {}): LogEvent {
  return {
    part: 'job',
    event: 'crawl_requested',
    data: {
      startUrl: u('/'),
      maxDepth: 3,
      limit: 100,
      includePaths: [],
      excludePaths: [],
      allowExternalLinks: false,
      ignoreRobots: false,
      scrapeOptions: normalizeScrapeOptions({}),
      apiKeyId: 'key1',
      requestedAt: AT,
      ...overrides,
    },
  };
}
export const started = (): LogEvent => ({ part: 'job', event: 'crawl_started', data: { startedAt: AT } });
export const pageRequested = (path: string, depth: number): LogEvent => ({
  part: keyOf(u(path)),
  event: 'page_requested',
  data: { url: u(path), options: normalizeScrapeOptions({}), apiKeyId: 'key1', depth, requestedAt: AT },
});
export const pageCompleted = (path: string, links: string[] = [], statusCode?: number): LogEvent => ({
  part: keyOf(u(path)),
  event: 'page_completed',
  data: {
    result: { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' },
    metadata: { title: path, description: '', ...(statusCode !== undefined ? { statusCode } : {}) },
    links: links.map(u),
    timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 },
    completedAt: AT,
  },
});
export const pageFetched = (path: string): LogEvent => ({
  part: keyOf(u(path)),
  event: 'page_fetched',
  data: {
    finalUrl: u(path),
    statusCode: 200,
    rawHtml: { bucket: 'b', name: 'n', size: 1, contentType: 'text/html' },
    timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, screenshotMs: 0 },
    fetchedAt: AT,
  },
});
export const pageFailed = (path: string, message = 'boom'): LogEvent => ({
  part: keyOf(u(path)),
  event: 'page_failed',
  data: { error: { code: 'NETWORK_ERROR', message }, failedAt: AT, attempt: 1 },
});
export const linksDiscovered = (from: string, depth: number, paths: string[], skipped: Record<string, number> = {}): LogEvent => ({
  part: keyOf(u(from)),
  event: 'crawl_links_discovered',
  data: { depth, urls: paths.map(u), skipped, discoveredAt: AT },
});
export const cancelRequested = (): LogEvent => ({ part: 'job', event: 'crawl_cancel_requested', data: { requestedAt: AT } });
export const finished = (status: 'COMPLETED' | 'FAILED' | 'CANCELLED', totalUrls: number, completedUrls: number, failedUrls: number, reason?: string): LogEvent => ({
  part: 'job',
  event: 'crawl_finished',
  data: { status, totalUrls, completedUrls, failedUrls, ...(reason ? { reason } : {}), finishedAt: AT },
});

export const advance: CrawlCommand = { type: 'Advance', jobId: CRAWL_ID };

/** given([events]).when(command, ctx).then([events]) | .thenThrows(Class) | .result() */
export const { given } = deciderSpec<CrawlCommand, LogEvent, CrawlState, Emitted[], Partial<DecideContext>>({
  decide: (command, state, ctx) => decide(command, state, { now: NOW, ...ctx }),
  evolve,
  initialState,
});

export interface SimResult {
  /** Paths requested, in request order. */
  requested: string[];
  /** Max pages in flight at once. */
  maxInFlight: number;
  finished: Extract<LogEvent, { event: 'crawl_finished' }>['data'];
  events: LogEvent[];
  state: CrawlState;
}

/**
 * Runs a whole crawl: the decider's page_requested events are answered from `graph`
 * (path -> links; a path missing from the graph fails), oldest request first.
 */
export function simulate(
  graph: Record<string, string[]>,
  overrides: Partial<CrawlRequested> = {},
  ctx: Partial<DecideContext> = {},
): SimResult {
  const events: LogEvent[] = [requested(overrides)];
  let state = rehydrate(events);
  const inFlight: string[] = [];
  const requestedPaths: string[] = [];
  let maxInFlight = 0;
  const apply = (e: LogEvent): void => { events.push(e); state = evolve(state, e); };
  for (let step = 0; step < 10_000; step++) {
    for (const e of decide(advance, state, { now: NOW, ...ctx }) as LogEvent[]) {
      apply(e);
      if (e.event === 'page_requested') {
        const url = new URL(e.data.url);
        const path = url.origin === ORIGIN ? `${url.pathname}${url.search}` : url.toString();
        inFlight.push(path);
        requestedPaths.push(path);
      }
    }
    maxInFlight = Math.max(maxInFlight, inFlight.length);
    const done = events.find((e) => e.event === 'crawl_finished');
    if (done && done.event === 'crawl_finished') {
      return { requested: requestedPaths, maxInFlight, finished: done.data, events, state };
    }
    const next = inFlight.shift();
    if (next === undefined) throw new Error('crawl stalled: nothing in flight and not finished');
    const links = graph[next];
    apply(links ? pageCompleted(next, links) : pageFailed(next, 'not found'));
  }
  throw new Error('crawl did not finish');
}

export { initialState };
