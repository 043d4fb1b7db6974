// 11. Extraction quality: the service's transform (onlyMainContent, markdown) and plain
// Readability.js -> turndown, both run in this process on the 400-page dev set
// (../shared/fixtures/extraction-dev/trafilatura-eval) and scored with its metric, beside the
// published numbers for the whole 990-page corpus (the dev set's README). Also the transform
// CPU per page of both, the baseline being the same-run Readability -> turndown.
import { devSetDir, loadDevPages, loadMarkdownToText, readabilityExtractor, runExtractor, scoreSnippets, serviceExtractor, sharedDir } from '../lib/extraction-dev.js';
import { missing, row, type Row } from '../lib/table.js';
import { outcomeDevPages, runOutcomeDev } from '../lib/page-outcome.js';
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
    row(BENCH, 'Trawl transform CPU per page', round(ours.cpuMsPerPage, 1), { unit: 'ms', baseline: round(base.cpuMsPerPage, 1), note: 'baseline: Readability -> turndown' }),
    row(BENCH, 'pages failed (transform threw)', ours.errors.length, { baseline: base.errors.length }),
    row(BENCH, 'dev-set pages not classified ok', round(outcomes.rate * 100, 2), {
      unit: '%', note: `${outcomes.flagged.length} of ${outcomes.pages} (trafilatura-eval + wcxb-dev); goal < 0.5%`,
    }),
    ...PUBLISHED.map((p) => row(BENCH, `${p.name} F1`, pct(p.f1), { unit: '%', note: `P ${pct(p.precision)} R ${pct(p.recall)}` })),
  ];
  return {
    rows,
    details: {
      pages: pages.length,
      service: { ...summary(score), cpuMsPerPage: ours.cpuMsPerPage, errors: ours.errors },
      readability: { ...summary(baseScore), cpuMsPerPage: base.cpuMsPerPage, errors: base.errors },
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
