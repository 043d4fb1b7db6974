// How often metadata.pageType matches WCXB's page_type on the dev split (a confusion table).
//   npx tsx bench/page-type-dev.ts [--every N] [--fold K]
import { normalizeScrapeOptions } from '../shared/src/domain/scrape-options.js';
import { extractPage } from '../packages/extract/src/index.js';
import { sharedDir } from './lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from './lib/wcxb-dev.js';
import { wcxbFold } from './lib/cli-flags.js';

const { inFold } = wcxbFold();
const pages = loadWcxbPages(wcxbDir(sharedDir())!, inFold);
const table = new Map<string, Map<string, number>>();
let right = 0;
for (const page of pages) {
  const got = extractPage({ html: page.html, url: page.url, options: normalizeScrapeOptions({ formats: [] as never[] }) }).metadata.pageType ?? '-';
  const row = table.get(page.pageType) ?? new Map<string, number>();
  row.set(got, (row.get(got) ?? 0) + 1);
  table.set(page.pageType, row);
  if (got === page.pageType) right++;
}
for (const [truth, row] of table) console.log(truth.padEnd(14), [...row].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', '));
console.log(`accuracy ${(right / pages.length).toFixed(3)} over ${pages.length} pages`);
