// metadata.pageType against the true types: a confusion table per WCXB dev fold (fold K holds
// the ids with id % 2 === K, as `extraction-wcxb.ts --every 2 --fold K` splits them) and the
// share of trafilatura-eval's pages (all articles) typed something else. --dump FILE writes
// each page's id, truth, type and declared signals (og:type, generator, URL) as JSON lines.
//
//   npx tsx bench/probe/page-type-probe.ts [--dump FILE]
import fs from 'node:fs';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../packages/extract/src/index.js';
import { devSetDir, loadDevPages, sharedDir } from '../lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from '../lib/wcxb-dev.js';

const args = process.argv.slice(2);
const dumpFile = args.includes('--dump') ? args[args.indexOf('--dump') + 1] : undefined;
const shared = sharedDir()!;
const options = normalizeScrapeOptions({ formats: [] as never[] });
const dump: string[] = [];
const typeOf = (html: string, url: string): { type: string; og: string } => {
  const { metadata } = extractPage({ html, url, options });
  return { type: metadata.pageType ?? '-', og: metadata.type ?? '' };
};

const TYPES = ['article', 'documentation', 'service', 'forum', 'listing', 'product', 'collection'];
const folds = [new Map<string, Map<string, number>>(), new Map<string, Map<string, number>>()];
for (const page of loadWcxbPages(wcxbDir(shared)!)) {
  const { type, og } = typeOf(page.html, page.url);
  const table = folds[Number.parseInt(page.id, 10) % 2]!;
  const row = table.get(page.pageType) ?? new Map<string, number>();
  row.set(type, (row.get(type) ?? 0) + 1);
  table.set(page.pageType, row);
  dump.push(JSON.stringify({ id: page.id, truth: page.pageType, type, og, url: page.url }));
}
const short = (t: string): string => t.slice(0, 6);
folds.forEach((table, fold) => {
  console.log(`\nWCXB dev fold ${fold} (rows: true type, columns: detected)`);
  console.log(''.padEnd(14) + TYPES.map((t) => short(t).padStart(7)).join('') + '  recall');
  let right = 0;
  let all = 0;
  for (const truth of TYPES) {
    const row = table.get(truth) ?? new Map<string, number>();
    const n = [...row.values()].reduce((a, b) => a + b, 0);
    right += row.get(truth) ?? 0;
    all += n;
    console.log(truth.padEnd(14) + TYPES.map((t) => String(row.get(t) ?? 0).padStart(7)).join('') + `  ${((row.get(truth) ?? 0) / n).toFixed(3)}`);
  }
  console.log(`accuracy ${(right / all).toFixed(3)} over ${all} pages`);
});

const traf = new Map<string, number>();
const devPages = loadDevPages(devSetDir(shared)!);
for (const page of devPages) {
  const { type, og } = typeOf(page.html, page.url);
  traf.set(type, (traf.get(type) ?? 0) + 1);
  dump.push(JSON.stringify({ id: `t${page.id}`, truth: 'article', type, og, url: page.url }));
}
const notArticle = devPages.length - (traf.get('article') ?? 0);
console.log(`\ntrafilatura-eval: ${[...traf].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}; not article ${notArticle}/${devPages.length} (${(notArticle / devPages.length).toFixed(3)})`);
if (dumpFile) fs.writeFileSync(dumpFile, dump.join('\n') + '\n');
