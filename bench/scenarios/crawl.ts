// 6. Crawl (engine browser, as before engines existed; 8. compares it with auto): a site of its own with N article pages (65-85 KB each, boilerplate, about 20
// links per page, duplicates through #fragments and trailing slashes), crawled from `/`
// with maxDepth 5 and limit 1000. Time to COMPLETED, pages per second, CPU per page, peak
// RSS/PSS of the process tree, and a check at the server that every page was requested
// exactly once (any spelling of a page counts as that page).
import { startSite, type TestSite } from '../../test/support/site.js';
import type { TrawlSystem } from '../../test/support/system.js';
import { crawlLinks, crawlPageOf, crawlPath } from '../lib/crawl-site.js';
import { articleHtml, PIXEL_PNG } from '../lib/pages.js';
import { cpuShares, TreeSampler } from '../lib/proc.js';
import { sleep } from '../lib/system.js';
import { mb, missing, row } from '../lib/table.js';
import { SCRAPE_BODY, type BenchContext, type ScenarioResult } from './context.js';

const B = '6. Crawl';
const MAX_DEPTH = 5;
const LIMIT = 1000;

interface CrawlView {
  id: string;
  status: string;
  totalUrls: number;
  completedUrls: number;
  failedUrls: number;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  data?: unknown[];
  next?: string;
  error?: { message: string };
}

/** The crawl site's first `pages` pages as served (final URL and HTML), the site closed after: the in-process probes' input. */
export async function crawlSitePages(pages: number): Promise<Array<{ url: string; html: string }>> {
  const site = await crawlSite(pages);
  const htmls: Array<{ url: string; html: string }> = [];
  try {
    for (let i = 0; i < pages; i++) {
      const res = await fetch(site.url(crawlPath(i)));
      if (res.ok) htmls.push({ url: res.url, html: await res.text() });
    }
  } finally {
    await site.close();
  }
  return htmls;
}

/** `decorate`: turns each generated page into another site's (the engines' data-island site). */
export async function crawlSite(pages: number, decorate?: (html: string, i: number) => string): Promise<TestSite> {
  const site = await startSite();
  for (let i = 0; i < pages; i++) {
    const links = crawlLinks(i, pages);
    const targetBytes = 65_000 + ((i * 7919) % 20_000);
    // Boilerplate text stays (header, cookie banner, sidebar, footer); its links are only the header's.
    const html = articleHtml({ seed: 50_000 + i, targetBytes, navLinks: links.nav, bodyLinks: links.body, footerLinks: [], relatedLinks: [] });
    const body = Buffer.from(decorate ? decorate(html, i) : html);
    site.route(crawlPath(i), { body });
    if (i > 0) site.route(`${crawlPath(i)}/`, { body });
  }
  for (let i = 0; i < 100; i++) site.route(`/img/${i}.png`, { body: PIXEL_PNG, contentType: 'image/png' });
  site.route('/robots.txt', { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' });
  // The cookie banner's link: one more (small) page of the site.
  site.route('/privacy', { body: '<!doctype html><html><head><title>Privacy</title></head><body><h1>Privacy</h1><p>We keep nothing.</p><a href="/">Home</a></body></html>' });
  return site;
}

/** The longest long-poll the API takes (docs/api.md "Waiting for a job"). */
const WAIT_MS_MAX = 60_000;

/**
 * The crawl's view once it is final, or undefined after `timeoutMs`. It waits as the docs
 * tell a client to, with `?waitMs=` long-polls: a poll every 250 ms made the gateway
 * serialize a batch of pages 4 times a second, CPU that counted as the crawl's.
 */
export async function finishedCrawl<V extends { status: string }>(sys: TrawlSystem, id: string, timeoutMs: number): Promise<V | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const waitMs = Math.max(0, Math.min(WAIT_MS_MAX, deadline - Date.now()));
    const got = await sys.api<V>('GET', `/api/v1/crawl/${id}?waitMs=${waitMs}`);
    if (got.status === 200 && ['COMPLETED', 'FAILED', 'CANCELLED'].includes(got.body.status)) return got.body;
    if (got.status !== 200) await sleep(250);
  }
  return undefined;
}

/** Requests per page index (all spellings together); other paths are ignored. */
export function pageHits(paths: readonly string[]): Map<number, number> {
  const hits = new Map<number, number>();
  for (const p of paths) {
    const page = crawlPageOf(p);
    if (page !== undefined) hits.set(page, (hits.get(page) ?? 0) + 1);
  }
  return hits;
}

export async function crawl(ctx: BenchContext): Promise<ScenarioResult> {
  const { sys, rootPid } = ctx.bs;
  const pages = ctx.sizes.crawlPages;
  const site = await crawlSite(pages);
  try {
    const sampler = new TreeSampler(rootPid).start();
    const started = performance.now();
    const res = await sys.api<CrawlView>('POST', '/api/v1/crawl', { url: site.url('/'), maxDepth: MAX_DEPTH, limit: LIMIT, scrapeOptions: { ...SCRAPE_BODY, engine: 'browser' } });
    if (res.status === 404) {
      sampler.stop();
      return { rows: [missing(B)], details: { status: 404 } };
    }
    if (res.status >= 300) throw new Error(`POST /api/v1/crawl answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    const view = await finishedCrawl<CrawlView>(sys, res.body.id, 10 * 60_000);
    const clientMs = performance.now() - started;
    const usage = sampler.stop();
    if (!view) throw new Error(`crawl ${res.body.id} did not finish in 10 minutes`);

    const jobMs = view.completedAt ? Date.parse(view.completedAt) - Date.parse(view.createdAt) : clientMs;
    const hits = pageHits(site.requests.map((r) => r.path));
    const once = [...hits.values()].filter((n) => n === 1).length;
    const twice = [...hits.values()].filter((n) => n > 1).length;
    const never = pages - hits.size;
    const done = view.completedUrls;
    const note = view.status === 'COMPLETED' ? '' : ` ${view.status}${view.error ? `: ${view.error.message}` : ''}`;
    return {
      rows: [
        row(B, 'time to COMPLETED', jobMs / 1000, { unit: 's', note: `${pages}-page site, maxDepth ${MAX_DEPTH}, limit ${LIMIT};${note} ${done} completed, ${view.failedUrls} failed, ${view.totalUrls} discovered` }),
        row(B, 'pages per second', done / (jobMs / 1000)),
        row(B, 'CPU per page', usage.cpuMs / Math.max(1, done), { unit: 'ms', note: cpuShares(usage.cpuByName) }),
        row(B, 'peak RSS / PSS (sum over processes)', `${Math.round(mb(usage.peakRssKb))} / ${Math.round(mb(usage.peakPssKb))} MB`),
        row(B, 'pages fetched exactly once', `${once}/${pages}`, { note: `${twice} fetched more than once, ${never} never` }),
      ],
      details: { id: view.id, status: view.status, jobMs, clientMs, totalUrls: view.totalUrls, completedUrls: done, failedUrls: view.failedUrls, usage, once, twice, never },
    };
  } finally {
    await site.close();
  }
}
