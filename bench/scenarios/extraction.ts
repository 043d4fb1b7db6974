// 11. Extraction quality: the service's transform (onlyMainContent, markdown) and plain
// Readability.js -> turndown, both run in this process on the 400-page dev set
// (../shared/fixtures/extraction-dev/trafilatura-eval) and scored with its metric, beside the
// published numbers for the whole 990-page corpus (the dev set's README). Also the transform
// CPU per page of both, the baseline being the same-run Readability -> turndown: once warm
// (as a transform thread is), and on the first pass.
import { devSetDir, loadDevPages, loadMarkdownToText, readabilityExtractor, runExtractor, scoreSnippets, serviceExtractor, sharedDir, warmCpuMsPerPage } from '../lib/extraction-dev.js';
import { missing, row, type Row } from '../lib/table.js';
import { outcomeDevPages, runOutcomeDev } from '../lib/page-outcome.js';
import { loadWcxbPages, RS_TRAFILATURA_DEV, scoreWcxb, wcxbDir, type WcxbScore } from '../lib/wcxb-dev.js';
import type { ScenarioResult } from './context.js';

const BENCH = '11. Extraction (dev set)';

/** Published on trafilatura's 990-page evaluation corpus (docs/evaluation.rst, via the dev set's README). */
const PUBLISHED = [
  { name: 'trafilatura 2.2.0 (published, 990 pages)', precision: 0.906, recall: 0.943, f1: 0.924 },
  { name: 'readability-lxml 0.8.4.1 (published, 990 pages)', precision: 0.898, recall: 0.764, f1: 0.826 },
];

export async function extraction(log: (message: string) => void): Promise<ScenarioResult> {
  const shared = sharedDir();
  const dir = devSetDir(shared);
  if (!shared || !dir) return { rows: [missing(BENCH, 'dev set not found beside the repository')], details: {} };
  const pages = loadDevPages(dir);
  const markdownToText = await loadMarkdownToText(shared);
  log(`extraction: ${pages.length} pages, Readability -> turndown baseline`);
  const base = runExtractor(pages, readabilityExtractor);
  const baseScore = scoreSnippets(pages, base.markdown, markdownToText);
  log('extraction: the service transform');
  const ours = runExtractor(pages, serviceExtractor);
  const score = scoreSnippets(pages, ours.markdown, markdownToText);
  log('extraction: CPU per page of both, warm, in alternating order');
  const warm = warmCpuMsPerPage(pages, { service: serviceExtractor, readability: readabilityExtractor });
  // Scores as percentages: the table keeps one decimal for values of 10 and more.
  const pct = (x: number): number => round(x * 100, 1);
  // Page outcome (docs/api.md "Page outcome"): both dev sets are real content pages, so a
  // page not classified `ok` is a false positive (goal: under 0.5%; docs/benchmarks.md).
  log('extraction: page outcome on both dev sets');
  const outcomes = runOutcomeDev(outcomeDevPages());
  const rows: Row[] = [
    row(BENCH, 'Trawl transform F1', pct(score.f1), { unit: '%', baseline: pct(baseScore.f1), note: 'baseline: plain Readability.js -> turndown, same run' }),
    row(BENCH, 'Trawl transform precision', pct(score.precision), { unit: '%', baseline: pct(baseScore.precision) }),
    row(BENCH, 'Trawl transform recall', pct(score.recall), { unit: '%', baseline: pct(baseScore.recall) }),
    row(BENCH, 'Trawl transform CPU per page (warm)', round(warm.service!, 1), { unit: 'ms', baseline: round(warm.readability!, 1), note: 'baseline: Readability -> turndown; both warm, timed in alternating order' }),
    row(BENCH, 'Trawl transform CPU per page (first pass)', round(ours.cpuMsPerPage, 1), { unit: 'ms', baseline: round(base.cpuMsPerPage, 1), note: 'baseline: Readability -> turndown, run first (it pays the shared code\'s JIT warm-up)' }),
    row(BENCH, 'pages failed (transform threw)', ours.errors.length, { baseline: base.errors.length }),
    row(BENCH, 'dev-set pages not classified ok', round(outcomes.rate * 100, 2), {
      unit: '%', note: `${outcomes.flagged.length} of ${outcomes.pages} (trafilatura-eval + wcxb-dev); goal < 0.5%`,
    }),
    row(BENCH, 'dev-set pages with annotated content not classified ok', round(outcomes.annotatedRate * 100, 2), {
      unit: '%', note: `${outcomes.flagged.filter((f) => f.annotated).length} of ${outcomes.annotatedPages}; the rest of the flagged pages are annotated with no main content`,
    }),
    ...PUBLISHED.map((p) => row(BENCH, `${p.name} F1`, pct(p.f1), { unit: '%', note: `P ${pct(p.precision)} R ${pct(p.recall)}` })),
  ];
  const wcxb = await wcxbRows(shared, log);
  rows.push(...wcxb.rows);
  return {
    rows,
    details: {
      wcxb: wcxb.details,
      pages: pages.length,
      service: { ...summary(score), cpuMsPerPage: ours.cpuMsPerPage, warmCpuMsPerPage: warm.service, errors: ours.errors },
      readability: { ...summary(baseScore), cpuMsPerPage: base.cpuMsPerPage, warmCpuMsPerPage: warm.readability, errors: base.errors },
      published: PUBLISHED,
      pageOutcome: { pages: outcomes.pages, bySet: outcomes.bySet, flagged: outcomes.flagged },
    },
  };
}

function summary(s: ReturnType<typeof scoreSnippets>): Record<string, number> {
  return { precision: s.precision, recall: s.recall, f1: s.f1, tp: s.tp, fp: s.fp, fn: s.fn, empty: s.empty };
}

function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

const WCXB_BENCH = '11b. Extraction (WCXB dev, 7 page types)';

/**
 * The WCXB dev split (1,358 pages of seven types), in-process like the rows above: the
 * published-table F1 overall and per type beside plain Readability -> turndown (same run)
 * and rs-trafilatura's published dev figure, the snippet rates and the empty results.
 * BENCH_WCXB_EVERY=N keeps one page in N (a quick check of the scenario itself).
 */
async function wcxbRows(shared: string, log: (message: string) => void): Promise<{ rows: Row[]; details: unknown }> {
  const dir = wcxbDir(shared);
  if (!dir) return { rows: [missing(WCXB_BENCH, 'WCXB dev set not found beside the repository')], details: {} };
  const every = Math.max(1, Number(process.env.BENCH_WCXB_EVERY ?? 1));
  const pages = loadWcxbPages(dir, (id) => Number.parseInt(id, 10) % every === 0);
  log(`extraction: WCXB dev, ${pages.length} pages, Readability -> turndown baseline`);
  const base = runExtractor(pages, readabilityExtractor);
  const baseScore = await scoreWcxb(shared, pages, base.markdown);
  log('extraction: WCXB dev, the service transform');
  const ours = runExtractor(pages, serviceExtractor);
  const score = await scoreWcxb(shared, pages, ours.markdown);
  const typeF1 = (s: WcxbScore, type: string): number => round(s.published.byType.find((t) => t.type === type)?.f1 ?? 0);
  const rows: Row[] = [
    row(WCXB_BENCH, 'published-table F1, all', round(score.published.overall.f1), { baseline: round(baseScore.published.overall.f1), note: `evaluate.py F1 ${round(score.overall.f1)} (Readability ${round(baseScore.overall.f1)}); goal 0.90` }),
    ...score.byType.map((t) => row(WCXB_BENCH, `published-table F1, ${t.type} (${t.pages})`, typeF1(score, t.type), { baseline: typeF1(baseScore, t.type), note: `evaluate.py F1 ${round(t.f1)} (Readability ${round(baseScore.byType.find((b) => b.type === t.type)?.f1 ?? 0)}); rs-trafilatura (published dev) ${RS_TRAFILATURA_DEV[t.type] ?? '-'}` })),
    row(WCXB_BENCH, 'with-snippets kept', round(score.overall.withRate), { baseline: round(baseScore.overall.withRate), note: 'goal >= 0.85' }),
    row(WCXB_BENCH, 'without-snippets let through', round(score.overall.withoutRate), { baseline: round(baseScore.overall.withoutRate), note: 'goal <= 0.05' }),
    row(WCXB_BENCH, 'empty results where the annotation has content', score.emptyWithContent.length, { baseline: baseScore.emptyWithContent.length }),
    row(WCXB_BENCH, 'pages failed (transform threw)', ours.errors.length, { baseline: base.errors.length }),
  ];
  return { rows, details: { pages: pages.length, service: { overall: score.overall, published: score.published, emptyWithContent: score.emptyWithContent }, readability: { overall: baseScore.overall, published: baseScore.published } } };
}
