// Tuning loop on the WCXB dev split: runs the service's transform (and plain Readability ->
// turndown, the same-run baseline) over the pages in-process, writes <id>.md per extractor
// and prints the benchmark's metric overall and per page type (bench/lib/wcxb-dev.ts).
//
//   npx tsx bench/extraction-wcxb.ts [--only service|readability] [--out DIR] [--type T]
//        [--every N] [--fold K] [--page ID] [--per-page]
// --every N keeps one page in N (by id order, offset by --fold K): a quick subset to iterate
// on; the full set is for measuring a candidate change.
import fs from 'node:fs';
import path from 'node:path';
import { readabilityExtractor, runExtractor, serviceExtractor, sharedDir, type Extractor } from './lib/extraction-dev.js';
import { formatWcxbScore, loadWcxbPages, scoreWcxb, wcxbDir } from './lib/wcxb-dev.js';
import { flag, hasFlag, wcxbFold } from './lib/cli-flags.js';

const shared = sharedDir();
const dir = wcxbDir(shared);
if (!shared || !dir) {
  console.error('the WCXB dev set (../shared/fixtures/extraction-dev/wcxb-dev) is not beside the repository');
  process.exit(2);
}
const { inFold } = wcxbFold();
const type = flag('type');
const one = flag('page');
const pages = loadWcxbPages(dir, (id, pageType) => (!type || pageType === type) && (!one || id === one) && inFold(id));
const outRoot = flag('out') ?? '/tmp/trawl-extraction-wcxb';
const extractors: Record<string, Extractor> = { service: serviceExtractor, readability: readabilityExtractor };
const only = flag('only');
for (const [name, extractor] of Object.entries(extractors)) {
  if (only && only !== name) continue;
  const run = runExtractor(pages, extractor);
  const out = path.join(outRoot, name);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  for (const [id, md] of run.markdown) fs.writeFileSync(path.join(out, `${id}.md`), md);
  const s = await scoreWcxb(shared, pages, run.markdown);
  if (hasFlag('per-page')) {
    for (const r of [...s.pages].sort((a, b) => a.f1 - b.f1).slice(0, 60)) console.log(`${name} ${r.id} ${r.pageType.padEnd(13)} F1 ${r.f1.toFixed(3)} P ${r.precision.toFixed(3)} R ${r.recall.toFixed(3)} pred ${r.predTokens} ref ${r.refTokens}`);
  }
  for (const e of run.errors) console.log(`${name} ${e.id} THREW: ${e.message}`);
  console.log(formatWcxbScore(name, s));
  if (s.emptyWithContent.length) console.log(`  empty with content: ${s.emptyWithContent.join(' ')}`);
  console.log(`  CPU ${run.cpuMsPerPage.toFixed(1)} ms/page over ${pages.length} pages -> ${out}`);
}
