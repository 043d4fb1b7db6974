// Tuning loop for main-content extraction: runs the service's transform (and plain
// Readability -> turndown, the same-run baseline) over the 400 dev pages in-process, writes
// <id>.md per extractor and prints precision / recall / F1 with the dev set's metric.
//
//   npx tsx bench/extraction-dev.ts [--only service|readability] [--out DIR] [--per-page] [--page ID]
import fs from 'node:fs';
import path from 'node:path';
import { devSetDir, loadDevPages, loadMarkdownToText, readabilityExtractor, runExtractor, scoreSnippets, serviceExtractor, sharedDir, type Extractor } from './lib/extraction-dev.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const shared = sharedDir();
const dir = devSetDir(shared);
if (!shared || !dir) {
  console.error('the extraction dev set (../shared/fixtures/extraction-dev/trafilatura-eval) is not beside the repository');
  process.exit(2);
}
const outRoot = flag('out') ?? '/tmp/trawl-extraction-dev';
const one = flag('page');
const pages = loadDevPages(dir, one ? (id) => id === one : undefined);
const markdownToText = await loadMarkdownToText(shared);
const extractors: Record<string, Extractor> = { service: serviceExtractor, readability: readabilityExtractor };
const only = flag('only');
for (const [name, extractor] of Object.entries(extractors)) {
  if (only && only !== name) continue;
  const run = runExtractor(pages, extractor);
  const out = path.join(outRoot, name);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const [id, md] of run.markdown) fs.writeFileSync(path.join(out, `${id}.md`), md);
  const s = scoreSnippets(pages, run.markdown, markdownToText);
  if (args.includes('--per-page')) {
    for (const r of s.rows.filter((r) => r.fn || r.fp)) console.log(`${name} ${r.id}  missed ${r.fn}  boilerplate ${r.fp}  ${r.url}`);
  }
  for (const e of run.errors) console.log(`${name} ${e.id} THREW: ${e.message}`);
  console.log(
    `${name.padEnd(12)} P ${s.precision.toFixed(3)}  R ${s.recall.toFixed(3)}  F1 ${s.f1.toFixed(3)}  (tp ${s.tp} fp ${s.fp} fn ${s.fn}; ${s.empty} empty, ${run.errors.length} threw)  CPU ${run.cpuMsPerPage.toFixed(1)} ms/page  -> ${out}`,
  );
}
