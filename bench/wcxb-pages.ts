// Per-page view of a WCXB dev run (the <id>.md that bench/extraction-wcxb.ts --out writes):
// the worst pages first, with the published-table F1, P and R, and optionally the "with"
// snippets missed and the "without" snippets let through; or, given a second run, the pages
// whose F1 changed between the two. The tuning loop's way to find where a page type loses.
//
//   npx tsx bench/wcxb-pages.ts DIR [--type T] [--fold K] [--n N] [--leaks] [--misses] [--cmp BEFORE_DIR]
// --fold K keeps the ids = K mod 2 (the folds of extraction-wcxb.ts --every 2).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadMarkdownToText, sharedDir } from './lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from './lib/wcxb-dev.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const shared = sharedDir();
const dir = wcxbDir(shared);
const runDir = args[0];
if (!shared || !dir || !runDir || runDir.startsWith('--')) {
  console.error('usage: npx tsx bench/wcxb-pages.ts DIR [--type T] [--fold K] [--n N] [--leaks] [--misses] [--cmp BEFORE_DIR] (needs ../shared beside the repository)');
  process.exit(2);
}
const type = flag('type');
const fold = flag('fold');
const before = flag('cmp');
const limit = Number(flag('n') ?? 40);
const markdownToText = await loadMarkdownToText(shared);
const metric = (await import(pathToFileURL(path.join(shared, 'extraction-score', 'lib', 'wcxb-metric.mjs')).href)) as {
  harnessF1: (predicted: string, reference: string) => [number, number, number];
};
const pages = loadWcxbPages(dir, (id, pageType) => (!type || pageType === type) && (fold === undefined || Number.parseInt(id, 10) % 2 === Number(fold)));

/** The run's text for a page, or undefined when the run has no output for it. */
function textOf(run: string, id: string): string | undefined {
  const file = path.join(run, `${id}.md`);
  return fs.existsSync(file) ? markdownToText(fs.readFileSync(file, 'utf8')) : undefined;
}

const rows = pages.flatMap((page) => {
  const text = textOf(runDir, page.id);
  if (text === undefined) return [];
  const [precision, recall, f1] = metric.harnessF1(text, page.reference);
  const lower = text.toLowerCase();
  const beforeText = before ? textOf(before, page.id) : undefined;
  return [{
    page,
    precision,
    recall,
    f1,
    f1Before: beforeText === undefined ? undefined : metric.harnessF1(beforeText, page.reference)[2],
    leaks: page.without.filter((s) => lower.includes(s.toLowerCase())),
    misses: page.with.filter((s) => !lower.includes(s.toLowerCase())),
  }];
});

if (before) {
  const changed = rows.filter((r) => r.f1Before !== undefined && Math.abs(r.f1 - r.f1Before) > 0.001).sort((a, b) => a.f1 - a.f1Before! - (b.f1 - b.f1Before!));
  for (const r of changed) console.log(`${r.page.id} ${r.page.pageType.padEnd(13)} ${r.f1Before!.toFixed(3)} -> ${r.f1.toFixed(3)}  ${r.page.url}`);
  const compared = rows.filter((r) => r.f1Before !== undefined);
  const mean = (f: (r: (typeof rows)[number]) => number): string => (compared.reduce((n, r) => n + f(r), 0) / (compared.length || 1)).toFixed(4);
  console.log(`${changed.length} pages changed; mean published F1 ${mean((r) => r.f1Before!)} -> ${mean((r) => r.f1)} over ${compared.length} pages`);
} else {
  for (const r of [...rows].sort((a, b) => a.f1 - b.f1).slice(0, limit)) {
    console.log(`${r.page.id} ${r.page.pageType.padEnd(13)} F1 ${r.f1.toFixed(3)} P ${r.precision.toFixed(3)} R ${r.recall.toFixed(3)} leaks ${r.leaks.length}/${r.page.without.length}  ${r.page.url}`);
    if (args.includes('--leaks')) for (const s of r.leaks) console.log(`    let through: ${s.replace(/\s+/g, ' ')}`);
    if (args.includes('--misses')) for (const s of r.misses) console.log(`    missed: ${s.replace(/\s+/g, ' ')}`);
  }
}
