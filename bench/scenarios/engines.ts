// 8-10. Fetch engines, all in the same run (docs/benchmarks.md "What is measured"): 8 the
// crawl site crawled with engine browser, then auto (plus a no-browser HTTP crawler,
// bench/http-crawler.ts, and a server-rendered site with data islands); 9 a mixed site where
// every third page builds its content with JavaScript; 10 N scrapes at once with auto
// against the naive Playwright baseline. Every crawl counts the site's requests per page.
import { startSite, type TestSite } from '../../test/support/site.js';
import { pageRequests } from '../../test/zoo/sites.js';
import { runHttpCrawler, type BaselineRun, type HttpCrawlerRun } from '../lib/baseline-runner.js';
import { articleHtml } from '../lib/pages.js';
import { cpuShares, snapshotTree, TreeSampler, type TreeUsage } from '../lib/proc.js';
import { mb, row, type Row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';
import { crawlSite, finishedCrawl } from './crawl.js';
import { throughput } from './throughput.js';

type EngineName = 'browser' | 'auto';

interface CrawlPage { url: string; markdown?: string; metadata?: { engine?: string } }
interface CrawlView {
  id: string; status: string; completedUrls: number; failedUrls: number; createdAt: string; completedAt?: string;
  data?: CrawlPage[]; next?: string;
}

export interface CrawlRun {
  engine: EngineName;
  status: string;
  pages: number;
  failed: number;
  jobMs: number;
  usage: TreeUsage;
  /** Markdown by path. */
  markdown: Map<string, string>;
  /** Pages per engine used (metadata.engine). */
  served: Record<string, number>;
  /** Crawled pages the site was asked for more than once (any spelling of the path aside). */
  requestedTwice: number;
}

export async function crawlWith(ctx: BenchContext, site: TestSite, engine: EngineName, body: Record<string, unknown>): Promise<CrawlRun> {
  const { sys, rootPid } = ctx.bs;
  const before = snapshotTree(rootPid);
  ctx.log(`  PSS before the ${engine} crawl: ${Math.round(mb(before.pssKb))} MB (${Object.entries(before.byName).map(([k, v]) => `${k} ${Math.round(mb(v.pssKb))}`).join(', ')})`);
  const sampler = new TreeSampler(rootPid).start();
  const res = await sys.api<CrawlView>('POST', '/api/v1/crawl', { url: site.url('/'), ...body, scrapeOptions: { formats: ['markdown'], engine } });
  if (res.status >= 300) {
    sampler.stop();
    throw new Error(`POST /api/v1/crawl answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const view = await finishedCrawl<CrawlView>(sys, res.body.id, 15 * 60_000);
  const usage = sampler.stop();
  if (!view) throw new Error(`crawl ${res.body.id} (${engine}) did not finish in 15 minutes`);
  const markdown = new Map<string, string>();
  const crawled: string[] = [];
  const served: Record<string, number> = {};
  let part: CrawlView | undefined = view;
  while (part) {
    for (const p of part.data ?? []) {
      // Each run crawls its own copy of the site (its own port): links are compared without the origin.
      crawled.push(new URL(p.url).pathname);
      markdown.set(new URL(p.url).pathname.replace(/\/$/, '') || '/', (p.markdown ?? '').trim().replaceAll(site.origin, 'ORIGIN'));
      const used = p.metadata?.engine ?? 'unknown';
      served[used] = (served[used] ?? 0) + 1;
    }
    if (!part.next) break;
    const next: URL = new URL(part.next);
    part = (await sys.api<CrawlView>('GET', `${next.pathname}${next.search}`)).body;
  }
  const jobMs = view.completedAt ? Date.parse(view.completedAt) - Date.parse(view.createdAt) : usage.wallMs;
  // As pages: the engine's GETs and browser navigations, not a page's own prefetches of others.
  const requestedTwice = crawled.filter((p) => pageRequests(site, p) > 1).length;
  return { engine, status: view.status, pages: view.completedUrls, failed: view.failedUrls, jobMs, usage, markdown, served, requestedTwice };
}

/** Pages of both runs, and those whose markdown is identical (origins aside). */
export function sameMarkdown(browser: CrawlRun, auto: CrawlRun): { identical: number; compared: number } {
  let identical = 0;
  let compared = 0;
  for (const [path, md] of browser.markdown) {
    const other = auto.markdown.get(path);
    if (other === undefined) continue;
    compared++;
    if (other === md) identical++;
  }
  return { identical, compared };
}

function identicalRow(B: string, browser: CrawlRun, auto: CrawlRun): Row {
  const { identical, compared } = sameMarkdown(browser, auto);
  return row(B, 'pages with identical markdown (auto vs browser)', compared ? (100 * identical) / compared : 0, { unit: '%', note: `${identical}/${compared} pages` });
}

const pps = (r: CrawlRun): number => r.pages / (r.jobMs / 1000);
const cpuPerPage = (r: CrawlRun): number => r.usage.cpuMs / Math.max(1, r.pages);
const servedNote = (r: CrawlRun): string => Object.entries(r.served).map(([k, v]) => `${v} ${k}`).join(', ');

function compareRows(B: string, browser: CrawlRun, auto: CrawlRun): Row[] {
  return [
    row(B, 'pages per second, auto', pps(auto), { baseline: pps(browser), note: `baseline = engine browser; ${auto.pages} pages (${servedNote(auto)}) vs ${browser.pages}; ${auto.failed}/${browser.failed} failed` }),
    row(B, 'CPU per page, auto', cpuPerPage(auto), { unit: 'ms', baseline: cpuPerPage(browser), note: `auto: ${cpuShares(auto.usage.cpuByName)}; browser: ${cpuShares(browser.usage.cpuByName)}` }),
    row(B, 'peak PSS of the tree, auto', mb(auto.usage.peakPssKb), { unit: 'MB', baseline: mb(browser.usage.peakPssKb) }),
    requestedTwiceRow(B, auto, browser),
  ];
}

function requestedTwiceRow(B: string, auto: CrawlRun, browser?: CrawlRun): Row {
  return row(B, 'pages requested more than once, auto', auto.requestedTwice, { note: `of ${auto.markdown.size} pages, by the site's own count${browser ? `; browser run: ${browser.requestedTwice}` : ''}` });
}

/**
 * A server-rendered page as SSR frameworks serve it: the article inside `#__next`, its data
 * in a `<script id="__NEXT_DATA__" type="application/json">` island, read back by an
 * inline script that changes nothing visible (hydration).
 */
function withDataIsland(html: string, i: number): string {
  const island = `<script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { pageProps: { id: i, slug: `p${i}` } }, page: '/[slug]', buildId: 'bench' })}</script>`
    + '<script>window.__data = JSON.parse(document.getElementById("__NEXT_DATA__").textContent); document.documentElement.dataset.hydrated = "1";</script>';
  return html.replace(/<body([^>]*)>/i, '<body$1><div id="__next">').replace(/<\/body>/i, `</div>${island}</body>`);
}

/** The data-island site crawled with auto only: how many pages it renders, and requests per page. */
async function islandCrawl(ctx: BenchContext, pages: number, browser: CrawlRun, plainAuto: CrawlRun): Promise<{ rows: Row[]; run: CrawlRun }> {
  const B = '8. Engines: crawl';
  const site = await crawlSite(pages, withDataIsland);
  let run: CrawlRun;
  try {
    ctx.log(`  crawl of ${pages} pages with data islands, engine auto`);
    run = await crawlWith(ctx, site, 'auto', { maxDepth: 5, limit: 1000 });
  } finally {
    await site.close();
  }
  const rendered = run.served.browser ?? 0;
  return {
    run,
    rows: [
      row(B, 'SSR site with data islands: pages/s, auto', pps(run), { baseline: pps(browser), note: `baseline = engine browser on the plain site; auto on the plain site: ${pps(plainAuto).toFixed(1)}; ${run.pages} pages (${servedNote(run)}); ${run.failed} failed` }),
      row(B, 'SSR site with data islands: pages rendered, auto', (100 * rendered) / Math.max(1, run.pages), { unit: '%', note: `${rendered}/${run.pages} (goal <= 10%)` }),
      row(B, 'SSR site with data islands: CPU per page, auto', cpuPerPage(run), { unit: 'ms', baseline: cpuPerPage(browser), note: 'baseline = engine browser on the plain site' }),
      requestedTwiceRow(`${B}, data islands`, run),
    ],
  };
}

/** The no-browser HTTP crawler's run, and its site's count of pages requested more than once. */
export interface HttpCrawlerBaseline { run: HttpCrawlerRun; requestedTwice: number }

/** The HTTP crawler over its own copy of the crawl site (run before the system boots). */
export async function httpCrawlerBaseline(pages: number, concurrency: number): Promise<HttpCrawlerBaseline> {
  const site = await crawlSite(pages);
  try {
    const run = await runHttpCrawler({ startUrl: site.url('/'), concurrency, limit: 1000, warmupUrls: [site.url('/articles/p1?warm'), site.url('/articles/p2?warm')] });
    const requestedTwice = run.output.crawled.filter((p) => pageRequests(site, p) > 1).length;
    return { run, requestedTwice };
  } finally {
    await site.close();
  }
}

function httpCrawlerRows(B: string, auto: CrawlRun, http: HttpCrawlerBaseline): Row[] {
  const { output, usage } = http.run;
  const pages = output.crawled.length;
  const httpPps = pages / (output.wallMs / 1000);
  return [
    row(B, 'pages per second, auto vs a no-browser HTTP crawler', pps(auto), { baseline: httpPps,
      note: `baseline = fetch + the same extraction in one process (bench/http-crawler.ts), ${pages} pages, ${output.failed} failed (goal >= 0.8x)` }),
    row(B, 'CPU per page, auto vs the HTTP crawler', cpuPerPage(auto), { unit: 'ms', baseline: usage.cpuMs / Math.max(1, pages) }),
    row(B, 'peak PSS, auto crawl vs the HTTP crawler', mb(auto.usage.peakPssKb), { unit: 'MB', baseline: mb(usage.peakPssKb) }),
    row(B, 'pages requested more than once, HTTP crawler', http.requestedTwice, { note: `of ${pages} pages, by the site's own count` }),
  ];
}

/**
 * The HTTP crawler first (the system idle), then `auto` on the freshly booted tree, then
 * `browser`: each baseline meets the machine's load of the same minutes as the crawl it is
 * compared with, and the `auto` crawl's peak PSS is its own, not what a browser crawl just
 * before it left warm (a launched Chromium, grown heaps: 630 MB before the crawl had begun).
 */
export async function engineCrawl(ctx: BenchContext, baseline?: BaselineRun): Promise<ScenarioResult> {
  const B = '8. Engines: crawl';
  const pages = ctx.sizes.crawlPages;
  const body = { maxDepth: 5, limit: 1000 };
  ctx.log(`  no-browser HTTP crawl of ${pages} pages, ${ctx.sizes.httpCrawlerConcurrency} at once (the system idle)`);
  const http = await httpCrawlerBaseline(pages, ctx.sizes.httpCrawlerConcurrency);
  const runs = new Map<EngineName, CrawlRun>();
  for (const engine of ['auto', 'browser'] as const) {
    const site = await crawlSite(pages);
    try {
      ctx.log(`  crawl of ${pages} pages with engine ${engine}`);
      runs.set(engine, await crawlWith(ctx, site, engine, body));
    } finally {
      await site.close();
    }
  }
  const browser = runs.get('browser')!;
  const auto = runs.get('auto')!;
  const { identical, compared } = sameMarkdown(browser, auto);
  const rows = [...compareRows(B, browser, auto), identicalRow(B, browser, auto)];
  if (baseline) {
    rows.push(row(B, 'peak PSS of the tree during the auto crawl vs naive baseline', mb(auto.usage.peakPssKb), { unit: 'MB', baseline: mb(baseline.usage.peakPssKb), note: 'baseline = the naive Playwright script of scenario 2' }));
  }
  rows.push(...httpCrawlerRows(B, auto, http));
  const islands = await islandCrawl(ctx, pages, browser, auto);
  rows.push(...islands.rows);
  const httpCrawler = { pages: http.run.output.crawled.length, failed: http.run.output.failed, wallMs: http.run.output.wallMs, cpuMs: http.run.usage.cpuMs, peakPssMb: mb(http.run.usage.peakPssKb), requestedTwice: http.requestedTwice };
  return { rows, details: { browser: summary(browser), auto: summary(auto), islands: summary(islands.run), identical, compared, httpCrawler } };
}

/** Delays of the mixed site's timer-built pages. */
const MIXED_TIMERS_MS = [50, 300, 1000, 2000];

/** Whether the mixed site's page i builds its article in the browser (every third). */
const clientRendered = (i: number): boolean => i % 3 === 2;

/**
 * Every third page builds its article in the browser; every page carries its own token.
 * `clientRenderedOnly`: the same client-rendered pages without the others (their CPU per page alone).
 */
async function mixedSite(pages: number, clientRenderedOnly = false): Promise<TestSite> {
  const site = await startSite();
  const paths = Array.from({ length: pages }, (_, i) => `/m/${i}`).filter((_, i) => !clientRenderedOnly || clientRendered(i));
  site.route('/', `<!doctype html><html><head><title>Mixed</title></head><body><main><h1>Mixed site</h1><ul>${paths.map((p) => `<li><a href="${p}">${p}</a></li>`).join('')}</ul></main></body></html>`);
  Array.from({ length: pages }, (_, i) => `/m/${i}`).forEach((p, i) => {
    if (clientRenderedOnly && !clientRendered(i)) return;
    const article = articleHtml({ seed: 90_000 + i, targetBytes: 30_000, navLinks: [{ href: '/', text: 'Home' }], bodyLinks: [], footerLinks: [], relatedLinks: [] })
      .replace(/<p>/, `<p>Token of mixed page ${i}. `);
    if (!clientRendered(i)) {
      site.route(p, article);
      return;
    }
    const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(article)?.[1] ?? '';
    const head = /<head>([\s\S]*)<\/head>/i.exec(article)?.[1] ?? '';
    const content = body.replace(/<script[\s\S]*?<\/script>/gi, '');
    // Built three ways: inline at once, from data fetched at load, after a timer of 50 ms to 2 s.
    const build = (i: number): string => {
      const k = Math.floor(i / 3);
      if (k % 3 === 0) return `document.getElementById('root').innerHTML = ${JSON.stringify(content).replace(/</g, '\\u003c')};`;
      if (k % 3 === 1) {
        site.route(`/m-data/${i}.json`, { contentType: 'application/json', body: JSON.stringify({ html: content }) });
        return `fetch('/m-data/${i}.json').then((r) => r.json()).then((d) => { document.getElementById('root').innerHTML = d.html; });`;
      }
      const delay = MIXED_TIMERS_MS[Math.floor(k / 3) % MIXED_TIMERS_MS.length];
      return `setTimeout(() => { document.getElementById('root').innerHTML = ${JSON.stringify(content).replace(/</g, '\\u003c')}; }, ${delay});`;
    };
    site.route(p, `<!doctype html><html lang="en"><head>${head}</head><body><div id="root"></div>
<script>${build(i)}</script></body></html>`);
  });
  return site;
}

export async function engineMixed(ctx: BenchContext): Promise<ScenarioResult> {
  const B = '9. Engines: mixed site (1/3 JS-built)';
  const pages = ctx.sizes.mixedPages;
  const crawlBoth = async (clientRenderedOnly: boolean): Promise<[CrawlRun, CrawlRun]> => {
    const runs: CrawlRun[] = [];
    for (const engine of ['browser', 'auto'] as const) {
      const site = await mixedSite(pages, clientRenderedOnly);
      try {
        ctx.log(`  mixed site of ${pages} pages${clientRenderedOnly ? ', its client-rendered pages only,' : ''} with engine ${engine}`);
        runs.push(await crawlWith(ctx, site, engine, { maxDepth: 2, limit: pages + 1 }));
      } finally {
        await site.close();
      }
    }
    return runs as [CrawlRun, CrawlRun];
  };
  const [browser, auto] = await crawlBoth(false);
  // The tree's CPU cannot be told apart page by page: the client-rendered pages are crawled
  // again as a site of their own (a new host to auto), both engines, in this same run.
  const [jsBrowser, jsAuto] = await crawlBoth(true);
  const missingContent = (r: CrawlRun): number => Array.from({ length: pages }, (_, i) => i)
    .filter((i) => r === jsAuto || r === jsBrowser ? clientRendered(i) : true)
    .filter((i) => !(r.markdown.get(`/m/${i}`) ?? '').includes(`Token of mixed page ${i}.`)).length;
  const missingAuto = missingContent(auto);
  const missingBrowser = missingContent(browser);
  return {
    rows: [
      ...compareRows(B, browser, auto).slice(0, 2),
      identicalRow(B, browser, auto),
      row(B, 'pages with missing content, auto', missingAuto, { note: `of ${pages} (${Math.floor((pages + 1) / 3)} JS-built: inline, fetched, timers of ${MIXED_TIMERS_MS.join('/')} ms); browser run: ${missingBrowser}` }),
      requestedTwiceRow(B, auto, browser),
      row(B, 'client-rendered pages alone: CPU per page, auto', cpuPerPage(jsAuto), { unit: 'ms', baseline: cpuPerPage(jsBrowser),
        note: `baseline = engine browser; the ${jsAuto.pages} pages (index included) crawled as a site of their own (${servedNote(jsAuto)}); goal <= 1.1x; auto: ${cpuShares(jsAuto.usage.cpuByName)}; browser: ${cpuShares(jsBrowser.usage.cpuByName)}` }),
      row(B, 'client-rendered pages alone: pages per second, auto', pps(jsAuto), { baseline: pps(jsBrowser), note: `missing content: auto ${missingContent(jsAuto)}, browser ${missingContent(jsBrowser)}` }),
    ],
    details: { browser: summary(browser), auto: summary(auto), missingAuto, missingBrowser, clientRenderedOnly: { browser: summary(jsBrowser), auto: summary(jsAuto) } },
  };
}

export function engineThroughput(ctx: BenchContext, baseline: BaselineRun, baselineConcurrency: number): Promise<ScenarioResult> {
  return throughput(ctx, baseline, baselineConcurrency, { label: '10. Engines: scrapes with engine auto', body: { formats: ['markdown'], engine: 'auto' } });
}

function summary(r: CrawlRun) {
  return { status: r.status, pages: r.pages, failed: r.failed, requestedTwice: r.requestedTwice, jobMs: r.jobMs, pagesPerSec: pps(r), cpuMsPerPage: cpuPerPage(r), peakPssMb: mb(r.usage.peakPssKb), served: r.served, cpuByName: r.usage.cpuByName,
    pssMbAtPeak: Object.fromEntries(Object.entries(r.usage.atPeak.byName).map(([k, v]) => [k, Math.round(mb(v.pssKb))])) };
}
