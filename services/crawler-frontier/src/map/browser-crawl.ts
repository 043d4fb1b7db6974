// The map's browser-crawl fallback as a pure controller: breadth first from the start
// page, bounded concurrency, at most `maxPages` pages requested, stopped by the signal
// (the map budget) or when the consumer has enough links. How a page is fetched is
// injected: in the service it is the page pipeline (page_requested -> fetcher ->
// transformer -> page_completed), the same browser and link extraction scrapes use.
import { isSameSite, normalizeUrl } from '../../../../shared/src/net/url-normalize.js';

export interface CrawlPageResult {
  ok: boolean;
  /** Absolute links found on the page. */
  links: string[];
  error?: { code: string; message: string };
}

export interface MapCrawlOptions {
  startUrl: string;
  includeSubdomains: boolean;
  maxPages: number;
  /** Pages in flight at once. */
  concurrency: number;
  signal: AbortSignal;
  fetchPage(url: string, depth: number, signal: AbortSignal): Promise<CrawlPageResult>;
  /** A URL found (a crawled page or a link on one); return false when no more are wanted. */
  onLink(url: string): boolean | void;
}

export interface MapCrawlResult {
  pagesRequested: number;
  pagesCompleted: number;
  pagesFailed: number;
  /** Stopped by the signal or the page cap with pages still unvisited. */
  partial: boolean;
  /** The start page's error, when it failed. */
  startError?: { code: string; message: string };
}

/** Paths that are files rather than pages: listed in the map, never opened in the browser. */
const NOT_A_PAGE = /\.(?:jpe?g|png|gif|webp|avif|svg|ico|bmp|tiff?|pdf|zip|gz|tgz|bz2|xz|7z|rar|tar|dmg|exe|msi|apk|iso|mp[34]|m4[av]|mov|avi|mkv|webm|wav|ogg|flac|woff2?|ttf|otf|eot|css|js|mjs|json|xml|rss|atom|csv|xlsx?|docx?|pptx?|txt)$/i;

export function isCrawlable(url: string): boolean {
  try {
    return !NOT_A_PAGE.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

export async function crawlForLinks(opts: MapCrawlOptions): Promise<MapCrawlResult> {
  const result: MapCrawlResult = { pagesRequested: 0, pagesCompleted: 0, pagesFailed: 0, partial: false };
  const start = normalizeUrl(opts.startUrl);
  if (!start) return result;
  const visited = new Set<string>([start.key]);
  const queue: { url: string; depth: number }[] = [{ url: start.url, depth: 0 }];
  const stop = new AbortController();
  const signal = AbortSignal.any([opts.signal, stop.signal]);
  const emit = (url: string): void => {
    if (!stop.signal.aborted && opts.onLink(url) === false) stop.abort();
  };

  const visit = async (url: string, depth: number): Promise<void> => {
    let page: CrawlPageResult;
    try {
      page = await opts.fetchPage(url, depth, signal);
    } catch (err) {
      if (signal.aborted) return;
      page = { ok: false, links: [], error: { code: 'INTERNAL_ERROR', message: (err as Error).message } };
    }
    if (signal.aborted) return;
    if (!page.ok) {
      result.pagesFailed++;
      if (depth === 0 && page.error) result.startError = page.error;
      return;
    }
    result.pagesCompleted++;
    emit(url);
    for (const link of page.links) {
      if (stop.signal.aborted) return;
      const normalized = normalizeUrl(link, url);
      if (!normalized || !isSameSite(normalized.url, start.url, opts.includeSubdomains)) continue;
      emit(normalized.url);
      if (visited.has(normalized.key) || !isCrawlable(normalized.url)) continue;
      visited.add(normalized.key);
      queue.push({ url: normalized.url, depth: depth + 1 });
    }
  };

  await new Promise<void>((resolve) => {
    let active = 0;
    let settled = false;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      opts.signal.removeEventListener('abort', finish);
      resolve();
    };
    // At the deadline, answer with what was found; pages still in flight finish in the
    // pipeline on their own and their results are simply not waited for.
    opts.signal.addEventListener('abort', finish, { once: true });
    const pump = (): void => {
      while (!signal.aborted && active < opts.concurrency && queue.length > 0 && result.pagesRequested < opts.maxPages) {
        const next = queue.shift()!;
        active++;
        result.pagesRequested++;
        void visit(next.url, next.depth).finally(() => { active--; pump(); });
      }
      if (active === 0) finish();
    };
    if (opts.signal.aborted) finish();
    else pump();
  });
  result.partial = opts.signal.aborted || (queue.length > 0 && !stop.signal.aborted);
  stop.abort();
  return result;
}
