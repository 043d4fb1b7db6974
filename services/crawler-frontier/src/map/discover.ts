// One map job's discovery, from request to ranked links: sitemaps first, the browser
// crawl when the sitemaps know nothing of the site (or always with ignoreSitemap), the
// filter applied as URLs stream in. The page fetcher of the crawl is injected (the page
// pipeline in the service).
import type { CidrRange } from '../../../../shared/src/net/url-safety.js';
import { crawlForLinks, type CrawlPageResult, type MapCrawlResult } from './browser-crawl.js';
import { LinkCollector } from './filter.js';
import { discoverSitemaps, type SitemapDiscoveryResult } from '../../../../shared/src/net/sitemaps/discover.js';

export const MAP_DEFAULTS = {
  /** Pages of the browser fallback in flight at once, per map. */
  crawlConcurrency: 4,
  /**
   * With a search, every match is kept for ranking, up to this many; without one,
   * discovery stops as soon as `limit` links are kept (the first ones found are the answer).
   */
  maxCollectedWithSearch: 100_000,
} as const;

export interface MapRequest {
  url: string;
  search?: string;
  limit: number;
  ignoreSitemap: boolean;
  includeSubdomains: boolean;
}

export interface PageFetcher {
  fetchPage(url: string, depth: number, signal: AbortSignal): Promise<CrawlPageResult>;
  close(): void;
}

export interface DiscoverDeps {
  allow: CidrRange[];
  maxCrawlPages: number;
  /** Ends discovery: what was found by then is the answer. */
  signal: AbortSignal;
  openPageFetcher(): Promise<PageFetcher>;
  crawlConcurrency?: number;
}

export interface MapOutcome {
  links: string[];
  sources: ('sitemap' | 'crawl')[];
  partial: boolean;
  sitemapsFetched: number;
  pagesCrawled: number;
  /** Set when nothing was found and the start page itself failed: the map failed. */
  error?: { code: string; message: string };
  sitemap?: SitemapDiscoveryResult;
  crawl?: MapCrawlResult;
}

export async function discoverLinks(request: MapRequest, deps: DiscoverDeps): Promise<MapOutcome> {
  const collector = new LinkCollector(
    { baseUrl: request.url, includeSubdomains: request.includeSubdomains, ...(request.search ? { search: request.search } : {}) },
    request.search ? Math.max(request.limit, MAP_DEFAULTS.maxCollectedWithSearch) : request.limit,
  );
  const offer = (url: string): boolean => { collector.add(url); return !collector.full; };
  const outcome: MapOutcome = { links: [], sources: [], partial: false, sitemapsFetched: 0, pagesCrawled: 0 };

  if (!request.ignoreSitemap) {
    const sitemap = await discoverSitemaps(request.url, { allow: deps.allow, signal: deps.signal, onUrl: offer });
    outcome.sitemap = sitemap;
    outcome.sitemapsFetched = sitemap.sitemapsFetched;
    outcome.partial ||= sitemap.partial;
    if (collector.sameSiteSeen > 0) outcome.sources.push('sitemap');
  }

  if (request.ignoreSitemap || collector.sameSiteSeen === 0) {
    if (deps.signal.aborted) {
      outcome.partial = true;
    } else {
      const fetcher = await deps.openPageFetcher();
      try {
        const crawl = await crawlForLinks({
          startUrl: request.url,
          includeSubdomains: request.includeSubdomains,
          maxPages: deps.maxCrawlPages,
          concurrency: deps.crawlConcurrency ?? MAP_DEFAULTS.crawlConcurrency,
          signal: deps.signal,
          fetchPage: (url, depth, signal) => fetcher.fetchPage(url, depth, signal),
          onLink: offer,
        });
        outcome.crawl = crawl;
        outcome.pagesCrawled = crawl.pagesCompleted;
        outcome.partial ||= crawl.partial;
        outcome.sources.push('crawl');
        if (collector.size === 0 && crawl.startError) outcome.error = crawl.startError;
      } finally {
        fetcher.close();
      }
    }
  }

  outcome.links = collector.links(request.limit);
  return outcome;
}
