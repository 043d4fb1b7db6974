// 12. Extraction through the service: the 400 dev-set pages served by the bench's site and
// scraped through the API (onlyMainContent, markdown), as users get them. Twice: with the
// browser engine, where each page's own scripts run (the default for a scrape), and with the
// HTTP engine, where no script runs. Scored with the dev set's metric; the in-process scenario
// (11) gives the same-run Readability -> turndown baseline and the published numbers.
import { devSetDir, loadDevPages, loadMarkdownToText, scoreSnippets, sharedDir, type DevPage } from '../lib/extraction-dev.js';
import { mapConcurrent, submitScrape } from '../lib/system.js';
import { loadWcxbPages, RS_TRAFILATURA_DEV, scoreWcxb, wcxbDir } from '../lib/wcxb-dev.js';
import { missing, row, type Row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';

const BENCH = '12. Extraction through the service';
const CONCURRENCY = 6;

interface EngineRun { markdown: Map<string, string>; failed: { id: string; message: string }[]; seconds: number }

async function scrapeAll(ctx: BenchContext, pages: readonly DevPage[], engine: 'browser' | 'http', prefix = '/dev'): Promise<EngineRun> {
  const { sys } = ctx.bs;
  const markdown = new Map<string, string>();
  const failed: EngineRun['failed'] = [];
  const started = performance.now();
  await mapConcurrent(pages, CONCURRENCY, async (page) => {
    const created = await submitScrape(sys, { url: ctx.site.url(`${prefix}/${page.id}?engine=${engine}`), formats: ['markdown'], onlyMainContent: true, engine });
    let job = created.body;
    // Long-polls: one request per job in the usual case.
    while (job.status !== 'COMPLETED' && job.status !== 'FAILED') {
      job = (await sys.api('GET', `/api/v1/scrape/${created.id}?waitMs=60000`)).body;
    }
    if (job.status === 'COMPLETED') markdown.set(page.id, job.markdown ?? '');
    else failed.push({ id: page.id, message: job.error?.message ?? 'failed' });
  });
  return { markdown, failed, seconds: (performance.now() - started) / 1000 };
}

export async function extractionService(ctx: BenchContext): Promise<ScenarioResult> {
  const shared = sharedDir();
  const dir = devSetDir(shared);
  if (!shared || !dir) return { rows: [missing(BENCH, 'dev set not found beside the repository')], details: {} };
  const pages = loadDevPages(dir);
  for (const page of pages) ctx.site.route(`/dev/${page.id}`, { body: page.html, contentType: 'text/html; charset=utf-8' });
  const markdownToText = await loadMarkdownToText(shared);
  const rows: Row[] = [];
  const details: Record<string, unknown> = { pages: pages.length };
  const pct = (x: number): number => Math.round(x * 1000) / 10;
  for (const engine of ['browser', 'http'] as const) {
    ctx.log(`extraction through the service: ${pages.length} pages, engine ${engine}`);
    const run = await scrapeAll(ctx, pages, engine);
    const score = scoreSnippets(pages, run.markdown, markdownToText);
    const label = engine === 'browser' ? 'page scripts running (engine browser)' : 'no page scripts (engine http)';
    rows.push(
      row(BENCH, `F1, ${label}`, pct(score.f1), { unit: '%', note: `P ${pct(score.precision)} R ${pct(score.recall)}` }),
      row(BENCH, `pages FAILED, ${label}`, run.failed.length, { note: `of ${pages.length}, ${(pages.length / run.seconds).toFixed(1)} pages/s` }),
    );
    details[engine] = { precision: score.precision, recall: score.recall, f1: score.f1, failed: run.failed, seconds: run.seconds };
  }
  return { rows, details };
}

const WCXB_BENCH = '12b. Extraction through the service (WCXB dev, 7 page types)';

/**
 * The WCXB dev split scraped through the API with the browser engine (each page's own
 * scripts running), scored with both WCXB metrics overall and per type. The same-run plain
 * Readability -> turndown and rs-trafilatura's published figures are in 11b beside the
 * in-process figures. BENCH_WCXB_EVERY=N keeps one page in N.
 */
export async function wcxbThroughService(ctx: BenchContext): Promise<ScenarioResult> {
  const shared = sharedDir();
  const dir = wcxbDir(shared);
  if (!shared || !dir) return { rows: [missing(WCXB_BENCH, 'WCXB dev set not found beside the repository')], details: {} };
  const every = Math.max(1, Number(process.env.BENCH_WCXB_EVERY ?? 1));
  const pages = loadWcxbPages(dir, (id) => Number.parseInt(id, 10) % every === 0);
  // Served from a handler: a WCXB page's html is decompressed on each read, not held.
  for (const page of pages) ctx.site.route(`/wcxb/${page.id}`, (_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.html));
  ctx.log(`extraction through the service: WCXB dev, ${pages.length} pages, engine browser`);
  const run = await scrapeAll(ctx, pages, 'browser', '/wcxb');
  const score = await scoreWcxb(shared, pages, run.markdown);
  // A page FAILED as empty whose annotation is empty too is a true shell, not lost content.
  const annotated = new Map(pages.map((p) => [p.id, p.reference.trim().length]));
  const failed = run.failed.map((f) => ({ ...f, annotationChars: annotated.get(f.id) ?? 0 }));
  const failedWithoutAnnotation = failed.filter((f) => f.annotationChars === 0).length;
  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  const pub = (type: string): number => r3(score.published.byType.find((t) => t.type === type)?.f1 ?? 0);
  const rows: Row[] = [
    row(WCXB_BENCH, 'published-table F1, all', r3(score.published.overall.f1), { note: `evaluate.py F1 ${r3(score.overall.f1)} P ${r3(score.overall.precision)} R ${r3(score.overall.recall)}; goal 0.90` }),
    ...score.byType.map((t) => row(WCXB_BENCH, `published-table F1, ${t.type} (${t.pages})`, pub(t.type), { note: `evaluate.py F1 ${r3(t.f1)}; rs-trafilatura (published dev) ${RS_TRAFILATURA_DEV[t.type] ?? '-'}` })),
    row(WCXB_BENCH, 'with-snippets kept', r3(score.overall.withRate), { note: 'goal >= 0.85' }),
    row(WCXB_BENCH, 'without-snippets let through', r3(score.overall.withoutRate), { note: 'goal <= 0.05' }),
    row(WCXB_BENCH, 'empty results where the annotation has content', score.emptyWithContent.length),
    row(WCXB_BENCH, 'pages FAILED', run.failed.length, { note: `of ${pages.length} (${failedWithoutAnnotation} of them annotated with no main content), ${(pages.length / run.seconds).toFixed(1)} pages/s` }),
  ];
  return { rows, details: { pages: pages.length, overall: score.overall, published: score.published, emptyWithContent: score.emptyWithContent, failed } };
}
