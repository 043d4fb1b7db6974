// The WCXB pages whose type the page-type classifier changes, and what each change does to
// the page's F1 (evaluate.py's per-page metric): the hand rules' type and markdown against
// the model's, per page and summed by (true type, rules -> model). Only the changed pages
// are extracted, so a model is judged in a minute, not a full fold's bench.
//
//   npx tsx bench/probe/page-type-changes.ts --model FILE [--every 2 --fold K]
import fs from 'node:fs';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../packages/extract/src/index.js';
import type { PageTypeModel } from '../../packages/extract/src/page-type-model.js';
import { sharedDir } from '../lib/extraction-dev.js';
import { loadWcxbPages, scoreWcxb, wcxbDir } from '../lib/wcxb-dev.js';
import { flag, wcxbFold } from '../lib/cli-flags.js';

const shared = sharedDir()!;
const model = JSON.parse(fs.readFileSync(flag('model')!, 'utf8')) as PageTypeModel;
const { inFold } = wcxbFold();
const typeOnly = normalizeScrapeOptions({ formats: [] as never[] });
const markdown = normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true });
const pages = loadWcxbPages(wcxbDir(shared)!, inFold);
const changed = pages
  .map((p) => ({
    page: p,
    rules: extractPage({ html: p.html, url: p.url, options: typeOnly }, { pageTypeModel: null }).metadata.pageType,
    model: extractPage({ html: p.html, url: p.url, options: typeOnly }, { pageTypeModel: model }).metadata.pageType,
  }))
  .filter((c) => c.rules !== c.model);
const run = async (m: PageTypeModel | null): Promise<Map<string, number>> => {
  const md = new Map(changed.map((c) => [c.page.id, extractPage({ html: c.page.html, url: c.page.url, options: markdown }, { pageTypeModel: m }).markdown ?? '']));
  const score = await scoreWcxb(shared, changed.map((c) => c.page), md);
  return new Map(score.pages.map((p) => [p.id, p.f1]));
};
const before = await run(null);
const after = await run(model);
const groups = new Map<string, { n: number; delta: number }>();
for (const c of changed) {
  const b = before.get(c.page.id) ?? 0;
  const a = after.get(c.page.id) ?? 0;
  console.log(`${c.page.id} ${c.page.pageType.padEnd(13)} ${c.rules} -> ${c.model}  F1 ${b.toFixed(3)} -> ${a.toFixed(3)}  ${c.page.url}`);
  const key = `${c.page.pageType}: ${c.rules} -> ${c.model}`;
  const g = groups.get(key) ?? { n: 0, delta: 0 };
  groups.set(key, { n: g.n + 1, delta: g.delta + a - b });
}
console.log(`\n${changed.length} of ${pages.length} pages change type; F1 summed change by (truth: rules -> model):`);
for (const [key, g] of [...groups].sort((x, y) => x[1].delta - y[1].delta)) console.log(`  ${key.padEnd(40)} ${String(g.n).padStart(3)}  ${g.delta >= 0 ? '+' : ''}${g.delta.toFixed(3)}`);
const total = [...groups.values()].reduce((s, g) => s + g.delta, 0);
console.log(`total ${total >= 0 ? '+' : ''}${total.toFixed(3)} over ${pages.length} pages (${(total / pages.length).toFixed(4)} on the fold's mean F1)`);
