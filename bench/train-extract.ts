// npm run train:extract: trains the block classifier (packages/extract/src/block-model.json)
// on both dev sets and reports a held-out fold.
//
// Labels come from aligning each block's text with the annotation: on WCXB a block is
// content when most of its word trigrams (its words, for blocks under three) occur in the
// page's main_content; on trafilatura-eval, which has snippets only, a block holding a
// "with" snippet is content and one holding a "without" snippet is not (others are left
// out). Each page weighs the same; within a WCXB page a block weighs its words (the metric
// counts words). Pages go to the held-out fold by a seeded hash of their id (one in
// HOLDOUT_EVERY), so the same seed gives the same split and the same model. The model
// shipped is the one trained without the held-out fold, so the figures printed for that
// fold are honest for it.
//
//   node dist/bench/train-extract.js [--seed N] [--rounds N] [--no-write] [--no-pages] [--every N] [--cache FILE]
// (--cache keeps the blocks' features and labels between runs while the model's settings change;
// --no-pages skips the held-out fold's page-level scoring, which extracts its pages twice)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { normalizeScrapeOptions } from '../shared/src/domain/scrape-options.js';
import { extractPage, type BlockModel } from '../packages/extract/src/index.js';
import { FEATURE_NAMES, type Block } from '../packages/extract/src/blocks.js';
import { blockScore } from '../packages/extract/src/block-model.js';
import { devSetDir, loadDevPages, loadMarkdownToText, scoreSnippets, sharedDir, type DevPage } from './lib/extraction-dev.js';
import { loadWcxbPages, scoreWcxb, wcxbDir, type WcxbPage } from './lib/wcxb-dev.js';
import { trainGbdt } from './train/gbdt.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const SEED = Number(flag('seed') ?? 22);
const HOLDOUT_EVERY = 5;
const every = Number(flag('every') ?? 1);
const MODEL_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'packages', 'extract', 'src', 'block-model.json');

const shared = sharedDir();
const trafDir = devSetDir(shared);
const wcxb = wcxbDir(shared);
if (!shared || !trafDir || !wcxb) {
  console.error('the dev sets (../shared/fixtures/extraction-dev) are not beside the repository');
  process.exit(2);
}
const sample = (id: string): boolean => hash(id, 0) % every === 0;
const trafPages = loadDevPages(trafDir, (id) => sample(id));
const wcxbPages = loadWcxbPages(wcxb, (id) => sample(id));
const heldOut = (id: string): boolean => hash(id, SEED) % HOLDOUT_EVERY === 0;

interface Row {
  x: number[];
  y: number;
  w: number;
  heldOut: boolean;
  set: 'wcxb' | 'traf';
}
const options = normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true });
const cacheFile = flag('cache');
const cacheKey = `${FEATURE_NAMES.join()}|${every}|sets`;
const cached = cacheFile && fs.existsSync(cacheFile) ? (JSON.parse(fs.readFileSync(cacheFile, 'utf8')) as { key: string; rows: Row[] }) : undefined;
const rows: Row[] = cached?.key === cacheKey ? cached.rows : [];
const started = Date.now();
for (const page of rows.length ? [] : wcxbPages) {
  const blocks = blocksOf(page);
  const ref = grams(page.reference);
  const total = blocks.reduce((n, b) => n + b.words, 0) || 1;
  for (const b of blocks) rows.push({ x: b.features, y: covered(b.text, ref) >= 0.5 ? 1 : 0, w: b.words / total, heldOut: heldOut(page.id), set: 'wcxb' });
}
for (const page of cached?.key === cacheKey ? [] : trafPages) {
  const labeled: Array<{ b: Block; y: number }> = [];
  const withs = page.with.map(norm);
  const withouts = page.without.map(norm);
  for (const b of blocksOf(page)) {
    const text = norm(b.text);
    if (withs.some((s) => text.includes(s))) labeled.push({ b, y: 1 });
    else if (withouts.some((s) => text.includes(s))) labeled.push({ b, y: 0 });
  }
  for (const { b, y } of labeled) rows.push({ x: b.features, y, w: 1 / labeled.length, heldOut: heldOut(page.id), set: 'traf' });
}
if (cacheFile && cached?.key !== cacheKey) fs.writeFileSync(cacheFile, JSON.stringify({ key: cacheKey, rows }));
console.log(`${rows.length} blocks from ${wcxbPages.length} WCXB and ${trafPages.length} trafilatura-eval pages (${((Date.now() - started) / 1000).toFixed(0)} s)`);

const train = rows.filter((r) => !r.heldOut);
const test = rows.filter((r) => r.heldOut);
const t0 = Date.now();
const { base, trees } = trainGbdt(
  train.map((r) => r.x),
  train.map((r) => r.y),
  train.map((r) => r.w),
  { rounds: Number(flag('rounds') ?? 150), learningRate: 0.2, lambda: 0.05, subsample: 0.7, bins: 32, minChildWeight: 0.02, seed: SEED },
);
const trained: BlockModel = { features: FEATURE_NAMES, base: round(base), trees: roundTree(trees), threshold: 0.5, addThreshold: 0.5 };
console.log(`trained ${trees.length} trees on ${train.length} blocks in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
// The two thresholds, chosen on all training rows (a grid: keep 0.2-0.6, add 0.5-0.95):
// each set's weighted block accuracy counts the same, so neither set decides for the
// other. Chosen on the model's page types alone they overfit the few such rows (the
// held-out pages scored lower).
const IN_RESULT = FEATURE_NAMES.indexOf('inResult');
const scored = (set: readonly Row[]): Array<Row & { p: number }> => set.map((r) => ({ ...r, p: blockScore(trained, r.x) }));
const trainScored = scored(train);
const testScored = scored(test);
function accuracy(set: ReadonlyArray<Row & { p: number }>, keep: number, add: number, which: Row['set']): number {
  let right = 0;
  let all = 0;
  for (const r of set) {
    if (r.set !== which) continue;
    const kept = r.p >= (r.x[IN_RESULT] ? keep : add) ? 1 : 0;
    right += kept === r.y ? r.w : 0;
    all += r.w;
  }
  return all ? right / all : 0;
}
let best = { keep: 0.5, add: 0.5, score: -1 };
for (let keep = 0.2; keep <= 0.61; keep += 0.05) {
  for (let add = 0.5; add <= 0.96; add += 0.05) {
    const score = accuracy(trainScored, keep, add, 'wcxb') + accuracy(trainScored, keep, add, 'traf');
    if (score > best.score) best = { keep: round(keep), add: round(add), score };
  }
}
const model: BlockModel = { ...trained, threshold: best.keep, addThreshold: best.add };
console.log(`thresholds: keep a rules block at p >= ${model.threshold}, add one at p >= ${model.addThreshold}`);
for (const [name, set] of [['train', trainScored], ['held-out', testScored]] as const) {
  const line = (['wcxb', 'traf'] as const).map((w) => `${w} ${accuracy(set, model.threshold, model.addThreshold, w).toFixed(3)} (rules alone ${accuracy(set, 0, 2, w).toFixed(3)})`);
  console.log(`${name}: weighted block accuracy ${line.join(', ')}`);
}

// Page-level figures on the held-out fold, the rules alone beside rules + model.
const markdownToText = await loadMarkdownToText(shared);
const heldWcxb = wcxbPages.filter((p) => heldOut(p.id));
const heldTraf = trafPages.filter((p) => heldOut(p.id));
for (const [name, m] of args.includes('--no-pages') ? [] : ([['rules alone', null], ['rules + block model', model]] as const)) {
  const md = (pages: readonly DevPage[]): Map<string, string> => new Map(pages.map((p) => [p.id, extractPage({ html: p.html, url: p.url, options }, { blockModel: m }).markdown ?? '']));
  const w = await scoreWcxb(shared, heldWcxb, md(heldWcxb));
  const t = scoreSnippets(heldTraf, md(heldTraf), markdownToText);
  const types = w.published.byType.map((b) => `${b.type} ${b.f1.toFixed(3)}`).join(', ');
  console.log(`held-out ${name}: WCXB (${heldWcxb.length} pages) pub F1 ${w.published.overall.f1.toFixed(3)} with ${w.overall.withRate.toFixed(3)} without ${w.overall.withoutRate.toFixed(3)} [${types}]; trafilatura-eval (${heldTraf.length} pages) F1 ${t.f1.toFixed(3)} P ${t.precision.toFixed(3)} R ${t.recall.toFixed(3)}`);
}
if (!args.includes('--no-write')) {
  fs.writeFileSync(MODEL_FILE, `${JSON.stringify(model)}\n`);
  console.log(`wrote ${path.relative(process.cwd(), MODEL_FILE)}`);
}

function blocksOf(page: DevPage | WcxbPage): Block[] {
  let blocks: Block[] = [];
  extractPage({ html: page.html, url: page.url, options }, { blockModel: null, onBlocks: (b) => (blocks = b) });
  return blocks;
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The reference's word n-grams (1 to 3), joined by spaces. */
function grams(text: string): Set<string> {
  const w = words(text);
  const set = new Set<string>();
  for (let i = 0; i < w.length; i++) {
    set.add(w[i]!);
    if (i + 1 < w.length) set.add(`${w[i]} ${w[i + 1]}`);
    if (i + 2 < w.length) set.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
  }
  return set;
}

/** Share of a block's trigrams (its whole text, under three words) found in the reference. */
function covered(text: string, ref: ReadonlySet<string>): number {
  const w = words(text);
  if (w.length === 0) return 0;
  if (w.length < 3) return ref.has(w.join(' ')) ? 1 : 0;
  let hit = 0;
  for (let i = 0; i + 2 < w.length; i++) if (ref.has(`${w[i]} ${w[i + 1]} ${w[i + 2]}`)) hit++;
  return hit / (w.length - 2);
}

function norm(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** FNV-1a of the id and the seed. */
function hash(id: string, seed: number): number {
  let h = (2166136261 ^ seed) >>> 0;
  for (const c of id) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  return h;
}

function round(v: number): number {
  return Math.round(v * 1e5) / 1e5;
}

function roundTree(trees: BlockModel['trees']): BlockModel['trees'] {
  const r = (n: BlockModel['trees'][number] | number): BlockModel['trees'][number] | number => (typeof n === 'number' ? round(n) : [n[0], round(n[1]), r(n[2]), r(n[3])]);
  return trees.map((t) => r(t) as BlockModel['trees'][number]);
}
