// npm run train:page-type: trains the page-type classifier (packages/extract/src/page-type-model.json)
// on the WCXB dev split, whose labels are the page types, and reports two held-out folds.
//
// The folds are the benches' (bench/lib/cli-flags.ts wcxbFold with --every 2): a page is in
// fold id % 2. A model trained on one fold is scored on the other, both ways: page-type
// accuracy and confusion, for the hand rules alone, the model's own choice, and the decision
// (page-type.ts decidePageType: firm declarations stay, the model overrides a hint or decides
// an undeclared page when sure enough). The two probability floors of the decision are
// chosen on those out-of-fold predictions (each page judged by a model that never saw it).
// trafilatura-eval's pages (all articles) are split in two halves the same way (by their
// id's last hex digit) and trained on with their fold as articles: each half's share typed
// article, by the model that did not see it, must not drop below the rules' (the floors are
// chosen under that constraint). The shipped model is trained on all pages. Seeded: the
// same seed gives the same model.
//
//   node dist/bench/train-page-type.js [--seed N] [--rounds N] [--no-write] [--cache FILE] [--train-fold K]
// --train-fold K writes a model trained on fold K only (to judge end-to-end figures on the other fold).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeScrapeOptions } from '../shared/src/domain/scrape-options.js';
import { extractPage } from '../packages/extract/src/index.js';
import { PAGE_FEATURE_NAMES, PAGE_TYPES, type PageType, type RuleTypes } from '../packages/extract/src/page-type.js';
import { guessPageType, type PageTypeModel } from '../packages/extract/src/page-type-model.js';
import { frontPageType } from '../packages/extract/src/front-page.js';
import { devSetDir, loadDevPages, sharedDir } from './lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from './lib/wcxb-dev.js';
import { flag, hasFlag } from './lib/cli-flags.js';
import { trainGbdt } from './train/gbdt.js';

const SEED = Number(flag('seed') ?? 22);
const ROUNDS = Number(flag('rounds') ?? 60);
const MODEL_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'extract', 'src', 'page-type-model.json');

interface Row {
  id: string;
  url: string;
  x: number[];
  /** WCXB's label; 'article' for trafilatura-eval's pages. */
  y: PageType;
  set: 'wcxb' | 'traf';
  rules: RuleTypes;
}

const shared = sharedDir();
const wcxb = wcxbDir(shared);
const traf = devSetDir(shared);
if (!shared || !wcxb || !traf) {
  console.error('the dev sets (../shared/fixtures/extraction-dev) are not beside the repository');
  process.exit(2);
}
const cacheFile = flag('cache');
const cacheKey = PAGE_FEATURE_NAMES.join();
const cached = cacheFile && fs.existsSync(cacheFile) ? (JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { key: string; rows: Row[] }) : undefined;
const rows: Row[] = cached?.key === cacheKey ? cached.rows : featureRows();
if (cacheFile && cached?.key !== cacheKey) fs.writeFileSync(cacheFile, JSON.stringify({ key: cacheKey, rows }));
const wcxbRows = rows.filter((r) => r.set === 'wcxb');
const trafRows = rows.filter((r) => r.set === 'traf');
// trafilatura-eval's ids are hex digests: their last digit splits them in two halves.
const fold = (r: Row): number => (r.set === 'wcxb' ? Number.parseInt(r.id, 10) : Number.parseInt(r.id.slice(-1), 16)) % 2;
console.log(`${wcxbRows.length} WCXB pages (fold 0: ${wcxbRows.filter((r) => fold(r) === 0).length}), ${trafRows.length} trafilatura-eval pages, ${PAGE_FEATURE_NAMES.length} features`);

// Out-of-fold guesses: each WCXB page by the model trained on the other fold.
const foldModels = [0, 1].map((k) => train(rows.filter((r) => fold(r) === k)));
const oof = new Map(wcxbRows.map((r) => [r, guessPageType({ ...foldModels[1 - fold(r)]!, ...floorsOf({ override: 1, undeclared: 1 }) }, r.x)]));
const floors = chooseFloors();
console.log(`decision floors (chosen out of fold): override a hint at p >= ${floors.override}, decide an undeclared page at p >= ${floors.undeclared}`);
for (const k of [0, 1]) {
  const test = wcxbRows.filter((r) => fold(r) === k);
  const model = { ...foldModels[1 - k]!, ...floorsOf(floors) };
  console.log(`\nfold ${k} (model trained on fold ${1 - k}, ${test.length} pages):`);
  report('rules alone', test, (r) => finalType(r, r.rules.rules));
  report('model alone', test, (r) => finalType(r, r.rules.firm ?? guessPageType(model, r.x).type));
  report('decision', test, (r) => finalType(r, decide(model, r)));
  const trafTest = trafRows.filter((r) => fold(r) === k);
  const articles = (pick: (r: Row) => PageType): string => (trafTest.filter((r) => pick(r) === 'article').length / (trafTest.length || 1)).toFixed(3);
  console.log(`  trafilatura-eval half ${k} (${trafTest.length} pages) typed article: rules ${articles((r) => finalType(r, r.rules.rules))}, decision ${articles((r) => finalType(r, decide(model, r)))}`);
  if (hasFlag('confusion')) report('trafilatura-eval decision', trafTest, (r) => finalType(r, decide(model, r)));
}

const trainFold = flag('train-fold');
const shipped: PageTypeModel = { ...train(trainFold === undefined ? rows : rows.filter((r) => fold(r) === Number(trainFold))), ...floorsOf(floors) };
const all = (pick: (r: Row) => PageType): string => (trafRows.filter((r) => pick(r) === 'article').length / (trafRows.length || 1)).toFixed(3);
console.log(`\nshipped model (${trainFold === undefined ? 'all pages' : `fold ${trainFold} only`}): trafilatura-eval typed article ${all((r) => finalType(r, decide(shipped, r)))} (rules ${all((r) => finalType(r, r.rules.rules))})`);
if (!hasFlag('no-write')) {
  fs.writeFileSync(MODEL_FILE, `${JSON.stringify(shipped)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), MODEL_FILE)}`);
}

function featureRows(): Row[] {
  const out: Row[] = [];
  const options = normalizeScrapeOptions({ formats: [] as never[] });
  const add = (id: string, url: string, html: string, y: PageType, set: Row['set']): void => {
    let row: Row | undefined;
    extractPage({ html, url, options }, { pageTypeModel: null, onPageFeatures: (x, rules) => (row = { id, url, x, y, set, rules }) });
    if (row) out.push(row);
  };
  for (const p of loadWcxbPages(wcxb!)) add(p.id, p.url, p.html, p.pageType as PageType, 'wcxb');
  for (const p of loadDevPages(traf!)) add(p.id, p.url, p.html, 'article', 'traf');
  return out;
}

/** One-against-the-rest trees per page type; every page weighs the same. */
function train(set: readonly Row[]): Omit<PageTypeModel, 'overrideProbability' | 'undeclaredProbability'> {
  const x = set.map((r) => r.x);
  const w = set.map(() => 1);
  const classes = PAGE_TYPES.map((type, i) => {
    const { base, trees } = trainGbdt(x, set.map((r) => (r.y === type ? 1 : 0)), w, { rounds: ROUNDS, learningRate: 0.15, lambda: 1, subsample: 0.8, bins: 32, minChildWeight: 1, seed: SEED + i });
    return { type, base: round(base), trees: roundTree(trees) };
  });
  return { features: [...PAGE_FEATURE_NAMES], classes };
}

function floorsOf(f: { override: number; undeclared: number }): Pick<PageTypeModel, 'overrideProbability' | 'undeclaredProbability'> {
  return { overrideProbability: f.override, undeclaredProbability: f.undeclared };
}

/** page-type.ts decidePageType's choice on a row (its rule answers and features). */
function decide(model: PageTypeModel, r: Row, guess = guessPageType(model, r.x)): PageType {
  if (r.rules.firm) return r.rules.firm;
  if (r.rules.rules !== 'article') return r.rules.rules;
  const needed = r.rules.hinted ? model.overrideProbability : model.undeclaredProbability;
  return guess.probability >= needed ? guess.type : r.rules.rules;
}

/** extract-page.ts's last step: a front page called an article is a site's own page. */
function finalType(r: Row, type: PageType): PageType {
  return frontPageType(type, r.url);
}

/**
 * The floors (0.3 to 1.01 by 0.05) that type the most WCXB pages right out of fold, among
 * those that type as many trafilatura-eval pages (all articles, seen by neither fold model)
 * article as the rules do, by both fold models.
 */
function chooseFloors(): { override: number; undeclared: number } {
  let best = { override: 1.01, undeclared: 1.01, right: -1 };
  const trafGuesses = [0, 1].map((k) => trafRows.filter((r) => fold(r) === k).map((r) => [r, guessPageType({ ...foldModels[1 - k]!, ...floorsOf({ override: 1, undeclared: 1 }) }, r.x)] as const));
  const rulesArticles = trafGuesses.map((half) => half.filter(([r]) => finalType(r, r.rules.rules) === 'article').length);
  for (let o = 0.3; o <= 1.011; o += 0.05) {
    for (let u = 0.3; u <= 1.011; u += 0.05) {
      const floors = { overrideProbability: o, undeclaredProbability: u } as PageTypeModel;
      if (trafGuesses.some((half, k) => half.filter(([r, g]) => finalType(r, decide(floors, r, g)) === 'article').length < rulesArticles[k]!)) continue;
      let right = 0;
      for (const [r, guess] of oof) if (finalType(r, decide(floors, r, guess)) === r.y) right++;
      if (right > best.right) best = { override: round(o), undeclared: round(u), right };
    }
  }
  return best;
}

function report(name: string, set: readonly Row[], pick: (r: Row) => PageType): void {
  const table = new Map<PageType, Map<PageType, number>>();
  let right = 0;
  for (const r of set) {
    const got = pick(r);
    const row = table.get(r.y) ?? new Map<PageType, number>();
    row.set(got, (row.get(got) ?? 0) + 1);
    table.set(r.y, row);
    if (got === r.y) right++;
  }
  console.log(`  ${name}: accuracy ${(right / set.length).toFixed(3)}`);
  if (!hasFlag('confusion')) return;
  for (const [truth, row] of table) console.log(`    ${truth.padEnd(14)} ${[...row].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
}

function round(v: number): number {
  return Math.round(v * 1e5) / 1e5;
}

function roundTree(trees: PageTypeModel['classes'][number]['trees']): PageTypeModel['classes'][number]['trees'] {
  type Node = PageTypeModel['classes'][number]['trees'][number] | number;
  const r = (n: Node): Node => (typeof n === 'number' ? round(n) : [n[0], round(n[1]), r(n[2]), r(n[3])]);
  return trees.map((t) => r(t) as PageTypeModel['classes'][number]['trees'][number]);
}
