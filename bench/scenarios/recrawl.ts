// 15. Recrawl (issue 27): the crawl site of scenario 6, every page served with an ETag and
// answering 304 to a matching If-None-Match, crawled under `auto`, then recrawled
// (POST /crawl/:id/recrawl) with nothing changed. Same-run ratios of the recrawl against
// the first crawl: CPU of the whole process tree, pages per second; and the pages the
// recrawl transformed (every page not completed from a 304 is one transform). Then 5% of
// the pages change (a sentence added to each) and the site is recrawled again: exactly
// those must be reported changed, each with a diff that adds its sentence.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { crawlPath } from '../lib/crawl-site.js';
import { cpuShares, TreeSampler } from '../lib/proc.js';
import { row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';
import { crawlSite } from './crawl.js';

const B = '15. Recrawl';

interface View { id: string; status: string; completedUrls: number; createdAt: string; completedAt?: string }
interface Report { counts: Record<string, number>; pages: { url: string; status: string; notModified?: boolean }[] }
interface Page { url: string; changeTracking?: { changeStatus?: string; diff?: string } }

export async function recrawl(ctx: BenchContext): Promise<ScenarioResult> {
  const { sys, rootPid } = ctx.bs;
  const pages = ctx.sizes.crawlPages;
  const bodies = new Map<number, string>();
  const site = await crawlSite(pages, (html, i) => { bodies.set(i, html); return html; });
  let answered304 = 0;
  const serveAt = new Map<number, (html: string) => void>();
  // Every page again, now with an ETag (the body's hash) and 304s (the cookie banner's /privacy too).
  const privacy = '<!doctype html><html><head><title>Privacy</title></head><body><h1>Privacy</h1><p>We keep nothing.</p><a href="/">Home</a></body></html>';
  for (const [i, first] of [...bodies, [-1, privacy] as const]) {
    let html: string = first;
    let etag = '';
    const set = (next: string): void => { html = next; etag = `"${createHash('sha256').update(html).digest('hex').slice(0, 16)}"`; };
    set(first);
    serveAt.set(i, set);
    const serve = (req: http.IncomingMessage, res: http.ServerResponse): void => {
      if (req.headers['if-none-match'] === etag) { answered304++; res.writeHead(304, { etag }).end(); return; }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag }).end(html);
    };
    if (i === -1) { site.route('/privacy', serve); continue; }
    site.route(crawlPath(i), serve);
    if (i > 0) site.route(`${crawlPath(i)}/`, serve);
  }
  const run = async (start: () => Promise<{ id: string }>): Promise<{ view: View; cpuMs: number; seconds: number; cpuNote: string }> => {
    const sampler = new TreeSampler(rootPid).start();
    const { id } = await start();
    // Long-polls (waitMs) rather than polling: a GET of a running crawl carries its finished pages, a cost of watching, not of crawling.
    let view: View | undefined;
    for (let i = 0; i < 15 && !view; i++) {
      const got = await sys.api<View>('GET', `/api/v1/crawl/${id}?waitMs=60000`);
      if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(got.body.status)) view = got.body;
    }
    const usage = sampler.stop();
    if (!view) throw new Error(`crawl ${id} did not finish in 15 minutes`);
    const seconds = ((view.completedAt ? Date.parse(view.completedAt) : Date.now()) - Date.parse(view.createdAt)) / 1000;
    return { view, cpuMs: usage.cpuMs, seconds, cpuNote: cpuShares(usage.cpuByName) };
  };
  try {
    ctx.log(`  first crawl of ${pages} pages (auto, ETags)`);
    const first = await run(async () => (await sys.api<{ id: string }>('POST', '/api/v1/crawl', { url: site.url('/'), maxDepth: 5, limit: 1000, scrapeOptions: { formats: ['markdown'] } })).body);
    // The monotonic clock (µs) marks the window, for slicing --cpu-prof profiles (their timestamps are on it).
    const mark = (): string => `${process.hrtime.bigint() / 1000n}`;
    ctx.log(`  recrawl, nothing changed (from monotonic ${mark()} µs)`);
    const before304 = answered304;
    const again = await run(async () => (await sys.api<{ id: string }>('POST', `/api/v1/crawl/${first.view.id}/recrawl`, {})).body);
    const report = (await sys.api<Report>('GET', `/api/v1/crawl/${again.view.id}/recrawl`)).body;
    const transformed = report.pages.filter((p) => !p.notModified).length;
    const recrawl304 = answered304 - before304;

    // 5% of the pages change: a sentence of their own in their article.
    const changed = new Map<string, number>();
    const step = Math.max(1, Math.round(pages / Math.max(1, Math.round(pages * 0.05))));
    for (let i = 1; i < pages; i += step) {
      const sentence = `Changed sentence number ${i} for the recrawl benchmark.`;
      serveAt.get(i)!(bodies.get(i)!.replace('</article>', `<p>${sentence} It is long enough to be kept as a paragraph of the article by the extractor.</p></article>`));
      changed.set(crawlPath(i), i);
    }
    ctx.log(`  recrawl with ${changed.size} pages changed (the unchanged recrawl's window ended by monotonic ${mark()} µs)`);
    const third = await run(async () => (await sys.api<{ id: string }>('POST', `/api/v1/crawl/${again.view.id}/recrawl`, {})).body);
    const changedReport = (await sys.api<Report>('GET', `/api/v1/crawl/${third.view.id}/recrawl`)).body;
    const reported = new Set(changedReport.pages.filter((p) => p.status === 'changed').map((p) => new URL(p.url).pathname.replace(/\/$/, '')));
    const exact = reported.size === changed.size && [...changed.keys()].every((p) => reported.has(p));
    let diffsRight = 0;
    for (let cursor: string | undefined = `/api/v1/crawl/${third.view.id}`; cursor;) {
      const part: { data?: Page[]; next?: string } = (await sys.api<{ data?: Page[]; next?: string }>('GET', cursor)).body;
      for (const p of part.data ?? []) {
        const path = new URL(p.url).pathname.replace(/\/$/, '');
        const i = changed.get(path);
        if (i !== undefined && new RegExp(`^\\+.*Changed sentence number ${i} `, 'm').test(p.changeTracking?.diff ?? '')) diffsRight++;
      }
      cursor = part.next ? `${new URL(part.next).pathname}${new URL(part.next).search}` : undefined;
    }
    const rate = (r: { view: View; seconds: number }): number => r.view.completedUrls / Math.max(0.001, r.seconds);
    return {
      rows: [
        row(B, 'recrawl / first crawl: CPU (whole tree)', again.cpuMs / Math.max(1, first.cpuMs), {
          unit: 'x', note: `${Math.round(first.cpuMs)} ms → ${Math.round(again.cpuMs)} ms (goal ≤ 0.10); recrawl: ${again.cpuNote}`,
        }),
        row(B, 'recrawl / first crawl: pages per second', rate(again) / Math.max(0.001, rate(first)), {
          unit: 'x', note: `${rate(first).toFixed(1)} → ${rate(again).toFixed(1)} pages/s (goal ≥ 5)`,
        }),
        row(B, 'pages transformed on the recrawl', transformed, {
          note: `of ${again.view.completedUrls}; ${recrawl304} answered 304; same ${report.counts.same ?? 0}, changed ${report.counts.changed ?? 0} (goal 0 transforms)`,
        }),
        row(B, '5% changed: reported changed / changed', `${reported.size}/${changed.size}`, {
          note: `${exact ? 'exactly the changed pages' : 'NOT exactly the changed pages'}; diffs adding the page's sentence: ${diffsRight}/${changed.size}; same ${changedReport.counts.same ?? 0}`,
        }),
      ],
      details: { first: { ...first.view, cpuMs: first.cpuMs, seconds: first.seconds }, recrawl: { ...again.view, cpuMs: again.cpuMs, seconds: again.seconds }, counts: report.counts, transformed },
    };
  } finally {
    await site.close();
  }
}
