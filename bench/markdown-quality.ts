// Markdown quality on Readability's own test pages (../shared/fixtures/readability-pages):
// our markdown's text against Readability's reader view, as bags of tokens (precision,
// recall, F1; Chinese and Japanese per character). The scoring is exported for
// test/unit/transformer/fixtures.test.ts.
//   npx tsx bench/markdown-quality.ts [page] [--show|--diff]   table, one page, token diff
//   npx tsx bench/markdown-quality.ts --perf [page]            transform time of one page
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseHTML } from 'linkedom';
import { normalizeScrapeOptions, type ScrapeOptionsInput } from '../shared/src/domain/scrape-options.js';
import { transformPage } from '../services/transformer/src/index.js';
import type { TransformOutput } from '../services/transformer/src/index.js';

/** The page URL Readability's test suite uses for these pages. */
export const FIXTURE_URL = 'http://fakehost/test/page.html';

export interface PageScore {
  page: string;
  language: string;
  sizeKb: number;
  ms: number;
  precision: number;
  recall: number;
  f1: number;
  titleExact: boolean;
  titleContained: boolean;
  /** Per element kind: agreement of counts in expected.html and our markdown, min/max (1 when both 0). */
  structure: Record<StructureKind, number>;
}

export const STRUCTURE_KINDS = ['headings', 'links', 'images', 'listItems', 'tableRows', 'codeBlocks'] as const;
export type StructureKind = (typeof STRUCTURE_KINDS)[number];

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

/** Element counts of Readability's expected HTML (only elements with something to show). */
export function htmlStructure(html: string): Record<StructureKind, number> {
  const { document } = parseHTML(`<!DOCTYPE html><html><body>${html}</body></html>`);
  const all = (selector: string) => [...document.body.querySelectorAll(selector)];
  const hasText = (el: Element) => (el.textContent ?? '').trim().length > 0;
  const tables = all('table').filter((t) => !t.querySelector('table, ul, ol, h1, h2, h3, h4, h5, h6, pre') && t.querySelectorAll('tr').length > 0);
  return {
    headings: all('h1, h2, h3, h4, h5, h6').filter(hasText).length,
    links: all('a[href]').filter((a) => (hasText(a) || a.querySelector('img[src^="http"]')) && /^(https?|mailto):/i.test(a.getAttribute('href') ?? '')).length,
    // Lazy images without src count too: the transform resolves them, Readability may not.
    images: all('img').filter((img) => /^https?:/i.test(img.getAttribute('src') || img.getAttribute('data-src') || '')).length,
    listItems: all('li').filter(hasText).length,
    tableRows: tables.reduce((n, t) => n + [...t.querySelectorAll('tr')].filter((tr) => tr.closest('table') === t && tr.children.length > 1).length, 0),
    codeBlocks: all('pre').filter(hasText).length,
  };
}

/** The same counts in our markdown. */
export function markdownStructure(markdown: string): Record<StructureKind, number> {
  const outsideCode = markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1[ \t]*$/gm, '');
  const count = (re: RegExp, text = outsideCode) => (text.match(re) ?? []).length;
  return {
    headings: count(/^#{1,6} \S/gm),
    links: count(/\]\((?:https?|mailto):/g) - count(/!\[(?:[^\]\\]|\\.)*\]\(https?:/g),
    images: count(/!\[(?:[^\]\\]|\\.)*\]\(https?:/g),
    listItems: count(/^(?:>[ \t]?)*[ \t]*(?:[-*+]|\d+\.) \S/gm),
    // Rows with content (also inside blockquotes), without separator and empty header rows.
    tableRows: count(/^(?:>[ \t]?)*\|.*\|[ \t]*$/gm) - count(/^(?:>[ \t]?)*\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*$/gm) - count(/^(?:>[ \t]?)*\|(?:[ \t]+\|)+[ \t]*$/gm),
    // Fence lines (also inside blockquotes) come in pairs.
    codeBlocks: Math.floor(count(/^(?:>[ \t]?)*(?:`{3,}|~{3,})/gm, markdown) / 2),
  };
}

function agreement(a: number, b: number): number {
  return a === b ? 1 : Math.min(a, b) / Math.max(a, b);
}

/**
 * What Readability's reader view shows: the title (expected-metadata.json), then the
 * article (expected.html). Readability removes the heading that repeats the title from the
 * content and shows the title above it; our markdown keeps it as the first heading.
 */
export function expectedReaderText(dir: string, page: string): string {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, page, 'expected-metadata.json'), 'utf8')) as { title?: string };
  return `${meta.title ?? ''}\n${htmlText(fs.readFileSync(path.join(dir, page, 'expected.html'), 'utf8'))}`;
}

const normTitle = (title: string): string => title.replace(/\s+/g, ' ').trim().toLowerCase();

export function scorePage(dir: string, page: string): PageScore & { output: TransformOutput } {
  const source = fs.readFileSync(path.join(dir, page, 'source.html'), 'utf8');
  const expectedHtml = fs.readFileSync(path.join(dir, page, 'expected.html'), 'utf8');
  const expectedMeta = JSON.parse(fs.readFileSync(path.join(dir, page, 'expected-metadata.json'), 'utf8')) as { title?: string; lang?: string };
  const started = performance.now();
  const output = transformPage({
    html: source,
    url: FIXTURE_URL,
    options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }),
  });
  const ms = performance.now() - started;
  const score = tokenF1(tokens(expectedReaderText(dir, page)), tokens(markdownText(output.markdown ?? '')));
  const expectedTitle = normTitle(expectedMeta.title ?? '');
  const ourTitle = normTitle(output.metadata.title);
  const expectedStructure = htmlStructure(`${expectedMeta.title ? '<h1>title</h1>' : ''}${expectedHtml}`);
  const ourStructure = markdownStructure(output.markdown ?? '');
  const structure = Object.fromEntries(
    STRUCTURE_KINDS.map((kind) => [kind, agreement(expectedStructure[kind], ourStructure[kind])]),
  ) as Record<StructureKind, number>;
  return {
    page,
    language: (expectedMeta.lang ?? '?').slice(0, 2).toLowerCase(),
    structure,
    sizeKb: Math.round(source.length / 1024),
    ms,
    ...score,
    titleExact: ourTitle === expectedTitle,
    // Spacing aside (a <title> may have a space og:title lacks), ours holds Readability's title.
    titleContained: ourTitle === expectedTitle || (expectedTitle.length > 0 && ourTitle.replace(/\s/g, '').includes(expectedTitle.replace(/\s/g, ''))),
    output,
  };
}

/** Tokens only in our markdown (extra) and only in the expected text (missing). */
function printDiff(dir: string, page: string, markdown: string): void {
  const expected = tokens(expectedReaderText(dir, page));
  const ours = tokens(markdownText(markdown));
  const count = (list: string[]) => list.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map<string, number>());
  const [e, o] = [count(expected), count(ours)];
  const surplus = (a: Map<string, number>, b: Map<string, number>) =>
    [...a].map(([t, n]) => [t, n - (b.get(t) ?? 0)] as const).filter(([, n]) => n > 0).sort((x, y) => y[1] - x[1]).slice(0, 40);
  console.log('  extra:  ', surplus(o, e).map(([t, n]) => `${t}x${n}`).join(' '));
  console.log('  missing:', surplus(e, o).map(([t, n]) => `${t}x${n}`).join(' '));
}

export interface PerfResult {
  mode: string;
  wallMs: number;
  cpuMs: number;
}

/**
 * Median wall and CPU time (process.cpuUsage: immune to other processes on a shared
 * machine, but includes GC threads) of transformPage on one page, per mode.
 */
export function measureTransform(html: string, runs = 20, warmups = 5): PerfResult[] {
  const modes: Array<[string, ScrapeOptionsInput]> = [
    ['markdown, onlyMainContent', { formats: ['markdown'], onlyMainContent: true }],
    ['markdown, whole body', { formats: ['markdown'], onlyMainContent: false }],
    ['markdown+html+links, onlyMainContent', { formats: ['markdown', 'html', 'links'], onlyMainContent: true }],
    ['links only (crawl frontier)', { formats: ['links'] }],
  ];
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const cpuNow = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  // Warm the JIT on every mode first, so the first mode measured is not the one paying for it.
  for (const [, input] of modes) {
    const options = normalizeScrapeOptions(input);
    for (let i = 0; i < warmups; i++) transformPage({ html, url: FIXTURE_URL, options });
  }
  return modes.map(([mode, input]) => {
    const options = normalizeScrapeOptions(input);
    const wall: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      const [w, c] = [performance.now(), cpuNow()];
      transformPage({ html, url: FIXTURE_URL, options });
      wall.push(performance.now() - w);
      cpu.push(cpuNow() - c);
    }
    return { mode, wallMs: median(wall), cpuMs: median(cpu) };
  });
}

function main(): void {
  const dir = fixturesDir();
  if (!dir) {
    console.error('fixtures not found: expected ../shared/fixtures/readability-pages beside the repository (or FIXTURES_DIR)');
    process.exit(1);
  }
  const args = process.argv.slice(2);
  if (args.includes('--perf')) {
    const page = args.find((a) => !a.startsWith('--')) ?? 'medium-1';
    const html = fs.readFileSync(path.join(dir, page, 'source.html'), 'utf8');
    console.log(`transformPage on ${page} (${Math.round(html.length / 1024)} KB), median of 20 runs after 5 warm-ups of each mode:`);
    for (const r of measureTransform(html)) console.log(`  ${r.mode.padEnd(40)} wall ${r.wallMs.toFixed(1).padStart(6)} ms   cpu ${r.cpuMs.toFixed(1).padStart(6)} ms`);
    return;
  }
  const show = args.includes('--show');
  const diff = args.includes('--diff');
  const selected = args.filter((a) => !a.startsWith('--'));
  const pages = selected.length ? selected : listPages(dir);
  const scores: PageScore[] = [];
  const pct = (x: number) => (x * 100).toFixed(1).padStart(6);
  const short = { headings: 'hd', links: 'ln', images: 'img', listItems: 'li', tableRows: 'tr', codeBlocks: 'pre' };
  console.log(
    `${'page'.padEnd(24)} ${'lang'.padEnd(4)} ${'KB'.padStart(5)} ${'ms'.padStart(7)} ${'P%'.padStart(6)} ${'R%'.padStart(6)} ${'F1%'.padStart(6)} ` +
      `${STRUCTURE_KINDS.map((k) => short[k].padStart(4)).join('')}  title`,
  );
  for (const page of pages) {
    const { output, ...score } = scorePage(dir, page);
    scores.push(score);
    const title = score.titleExact ? 'exact' : score.titleContained ? 'contains' : `DIFF ours=${JSON.stringify(output.metadata.title)}`;
    console.log(
      `${page.padEnd(24)} ${score.language.padEnd(4)} ${String(score.sizeKb).padStart(5)} ${score.ms.toFixed(1).padStart(7)} ` +
        `${pct(score.precision)} ${pct(score.recall)} ${pct(score.f1)} ` +
        `${STRUCTURE_KINDS.map((k) => (score.structure[k] * 100).toFixed(0).padStart(4)).join('')}  ${title}`,
    );
    if (show) console.log(`\n${output.markdown}\n`);
    if (diff) printDiff(dir, page, output.markdown ?? '');
  }
  const mean = (list: PageScore[], pick: (s: PageScore) => number) => list.reduce((sum, s) => sum + pick(s), 0) / list.length;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  console.log('-'.repeat(100));
  console.log(
    `mean of ${scores.length} pages: precision ${pct(mean(scores, (s) => s.precision))}%  recall ${pct(mean(scores, (s) => s.recall))}%  ` +
      `F1 ${pct(mean(scores, (s) => s.f1))}%   (min F1 ${pct(Math.min(...scores.map((s) => s.f1)))}%)`,
  );
  console.log(
    `structure agreement (count in ours vs expected, mean): ` +
      STRUCTURE_KINDS.map((k) => `${k} ${pct(mean(scores, (s) => s.structure[k])).trim()}%`).join('  '),
  );
  console.log(
    `title: exact ${pct(mean(scores, (s) => Number(s.titleExact)))}%  exact-or-contains ${pct(mean(scores, (s) => Number(s.titleContained)))}%`,
  );
  const languages = [...new Set(scores.map((s) => s.language))].sort();
  console.log(
    'F1 by language: ' +
      languages.map((l) => { const of = scores.filter((s) => s.language === l); return `${l} ${pct(mean(of, (s) => s.f1)).trim()}% (${of.length})`; }).join('  '),
  );
  console.log(`transform time: median ${median(scores.map((s) => s.ms)).toFixed(1)} ms/page, mean ${mean(scores, (s) => s.ms).toFixed(1)} ms/page`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
