// Markdown quality on Readability's own test pages (../shared/fixtures/readability-pages).
// For each page: transformPage(source.html, onlyMainContent) and compare the text of our
// markdown (Markdown syntax stripped, images dropped: their alt text is not visible text) with the visible text of expected.html (Readability's
// output) as bags of tokens: precision, recall and F1. Titles are compared with
// expected-metadata.json. Chinese and Japanese text is tokenized per character.
//
//   npx tsx bench/markdown-quality.ts             all pages: table and means
//   npx tsx bench/markdown-quality.ts aclu --show one page, with its markdown
//
// The scoring functions are exported for test/unit/transformer/fixtures.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseHTML } from 'linkedom';
import { normalizeScrapeOptions } from '../shared/src/scrape-options.js';
import { transformPage } from '../services/transformer/src/index.js';
import type { TransformOutput } from '../services/transformer/src/index.js';

/** The page URL Readability's test suite uses for these pages. */
export const FIXTURE_URL = 'http://fakehost/test/page.html';

export interface PageScore {
  page: string;
  sizeKb: number;
  ms: number;
  precision: number;
  recall: number;
  f1: number;
  titleExact: boolean;
  titleContained: boolean;
}

/** ../shared/fixtures/readability-pages next to the repository (FIXTURES_DIR overrides), or undefined. */
export function fixturesDir(): string | undefined {
  if (process.env.FIXTURES_DIR) return process.env.FIXTURES_DIR;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, '..', 'shared', 'fixtures', 'readability-pages');
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}

export function listPages(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'source.html')))
    .sort();
}

const CJK = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])/gu;

export function tokens(text: string): string[] {
  return text.replace(CJK, ' $1 ').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The reading text of our Markdown: link and image syntax, emphasis, fences, table pipes and escapes removed. */
export function markdownText(markdown: string): string {
  return markdown
    .replace(/!\[(?:[^\]\\]|\\.)*\]\((?:[^()\\]|\\.)*\)/g, ' ')
    .replace(/\]\((?:[^()\\]|\\.)*\)/g, ']')
    .replace(/^```.*$/gm, ' ')
    .replace(/^\s*(#{1,6}|>|[-*+]|\d+\.)\s+/gm, ' ')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1')
    .replace(/[*_`|[\]~]/g, ' ')
    .replace(/^\s*:?-{3,}:?\s*$/gm, ' ');
}

/** Visible text of an HTML fragment (Readability's expected output). */
export function htmlText(html: string): string {
  const { document } = parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`);
  return document.body.textContent ?? '';
}

export function tokenF1(expected: string[], actual: string[]): { precision: number; recall: number; f1: number } {
  const counts = new Map<string, number>();
  for (const token of expected) counts.set(token, (counts.get(token) ?? 0) + 1);
  let common = 0;
  for (const token of actual) {
    const left = counts.get(token);
    if (left) {
      common++;
      counts.set(token, left - 1);
    }
  }
  if (expected.length === 0 && actual.length === 0) return { precision: 1, recall: 1, f1: 1 };
  const precision = actual.length ? common / actual.length : 0;
  const recall = expected.length ? common / expected.length : 0;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

const normTitle = (title: string): string => title.replace(/\s+/g, ' ').trim().toLowerCase();

export function scorePage(dir: string, page: string): PageScore & { output: TransformOutput } {
  const source = fs.readFileSync(path.join(dir, page, 'source.html'), 'utf8');
  const expectedHtml = fs.readFileSync(path.join(dir, page, 'expected.html'), 'utf8');
  const expectedMeta = JSON.parse(fs.readFileSync(path.join(dir, page, 'expected-metadata.json'), 'utf8')) as { title?: string };
  const started = performance.now();
  const output = transformPage({
    html: source,
    url: FIXTURE_URL,
    options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }),
  });
  const ms = performance.now() - started;
  const score = tokenF1(tokens(htmlText(expectedHtml)), tokens(markdownText(output.markdown ?? '')));
  const expectedTitle = normTitle(expectedMeta.title ?? '');
  const ourTitle = normTitle(output.metadata.title);
  return {
    page,
    sizeKb: Math.round(source.length / 1024),
    ms,
    ...score,
    titleExact: ourTitle === expectedTitle,
    titleContained: ourTitle === expectedTitle || (expectedTitle.length > 0 && ourTitle.includes(expectedTitle)),
    output,
  };
}

function main(): void {
  const dir = fixturesDir();
  if (!dir) {
    console.error('fixtures not found: expected ../shared/fixtures/readability-pages beside the repository (or FIXTURES_DIR)');
    process.exit(1);
  }
  const args = process.argv.slice(2);
  const show = args.includes('--show');
  const selected = args.filter((a) => !a.startsWith('--'));
  const pages = selected.length ? selected : listPages(dir);
  const scores: PageScore[] = [];
  const pct = (x: number) => (x * 100).toFixed(1).padStart(6);
  console.log(`${'page'.padEnd(24)} ${'KB'.padStart(5)} ${'ms'.padStart(7)} ${'P%'.padStart(6)} ${'R%'.padStart(6)} ${'F1%'.padStart(6)}  title`);
  for (const page of pages) {
    const { output, ...score } = scorePage(dir, page);
    scores.push(score);
    const title = score.titleExact ? 'exact' : score.titleContained ? 'contains' : `DIFF ours=${JSON.stringify(output.metadata.title)}`;
    console.log(
      `${page.padEnd(24)} ${String(score.sizeKb).padStart(5)} ${score.ms.toFixed(1).padStart(7)} ${pct(score.precision)} ${pct(score.recall)} ${pct(score.f1)}  ${title}`,
    );
    if (show) console.log(`\n${output.markdown}\n`);
  }
  const mean = (pick: (s: PageScore) => number) => scores.reduce((sum, s) => sum + pick(s), 0) / scores.length;
  console.log('-'.repeat(70));
  console.log(
    `mean of ${scores.length} pages: precision ${pct(mean((s) => s.precision))}%  recall ${pct(mean((s) => s.recall))}%  F1 ${pct(mean((s) => s.f1))}%`,
  );
  console.log(
    `title: exact ${pct(mean((s) => Number(s.titleExact)))}%  exact-or-contains ${pct(mean((s) => Number(s.titleContained)))}%   total transform time ${mean((s) => s.ms).toFixed(1)} ms/page`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
