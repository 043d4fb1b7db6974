// The extraction dev set (../shared/fixtures/extraction-dev/trafilatura-eval: 400 labeled
// pages) and its metric (../shared/extraction-score), loaded in-process so that the bench,
// the tuning script (bench/extraction-dev.ts) and the regression floor test score exactly
// what extractPage returns, without a service in between. Pages are decoded and re-serialized
// as a browser would hand them to the transformer (see `decodeHtml`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { parse, serialize } from 'parse5';
import TurndownService from 'turndown';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../packages/extract/src/index.js';

const require = createRequire(import.meta.url);
const sniffEncoding = require('html-encoding-sniffer') as (bytes: Uint8Array, options?: { defaultEncoding?: string; maxPrescanBytes?: number }) => string;

/** How far into the page a <meta charset> is looked for (browsers re-parse when they meet one late in the head). */
const CHARSET_SCAN_BYTES = 64 * 1024;

export interface DevPage {
  id: string;
  url: string;
  html: string;
  with: string[];
  without: string[];
}

export type DevTruth = Omit<DevPage, 'html'>;

export interface SnippetScore {
  precision: number;
  recall: number;
  f1: number;
  tp: number;
  fp: number;
  fn: number;
  pages: number;
  /** Pages whose extraction was empty. */
  empty: number;
  rows: Array<{ id: string; url: string; tp: number; fp: number; fn: number }>;
}

/** ../shared beside the repository (SHARED_DIR overrides), or undefined when it is not there. */
export function sharedDir(): string | undefined {
  if (process.env.SHARED_DIR) return process.env.SHARED_DIR;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const candidate = path.join(dir, '..', 'shared');
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return undefined;
}

export function devSetDir(shared = sharedDir()): string | undefined {
  const dir = shared && path.join(shared, 'fixtures', 'extraction-dev', 'trafilatura-eval');
  return dir && fs.existsSync(path.join(dir, 'ground-truth.json')) ? dir : undefined;
}

/**
 * A page's bytes as the text a browser would parse. Pages are stored without the
 * Content-Type they were served with, so they are decoded as a browser does without one
 * (html-encoding-sniffer: BOM, then a <meta charset> anywhere in the head; then, as the HTML
 * standard's autodetection allows and Chromium does, UTF-8 when the bytes are valid UTF-8,
 * else windows-1252) by Node's TextDecoder (full ICU). The caller then parses with parse5
 * and serializes again: the service's transformer always gets Chromium's well-formed
 * serialization, never a broken page's raw bytes.
 */
export function decodeHtml(bytes: Uint8Array): string {
  // Two defaults tell "declared" from "nothing found" (the sniffer returns the default then).
  const declared = sniffEncoding(bytes, { defaultEncoding: 'UTF-16LE', maxPrescanBytes: CHARSET_SCAN_BYTES });
  const again = sniffEncoding(bytes, { defaultEncoding: 'UTF-16BE', maxPrescanBytes: CHARSET_SCAN_BYTES });
  if (declared === again) return new TextDecoder(declared).decode(bytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/** The dev set's pages with their snippets, without their HTML (what scoring needs), in the set's order. */
export function loadDevTruth(dir: string): DevTruth[] {
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { url: string; with: string[]; without: string[] }>;
  return Object.entries(truth)
    .filter(([id]) => fs.existsSync(path.join(dir, 'html', `${id}.html`)))
    .map(([id, item]) => ({ id, url: pageUrl(id, item.url), with: item.with, without: item.without }));
}

/**
 * The dev set's pages, parsed and serialized again as Chromium hands a page over; `keep`
 * (the page's id and index in the set) picks a part before any page is parsed.
 */
export function loadDevPages(dir: string, keep: (id: string, index: number) => boolean = () => true): DevPage[] {
  return loadDevTruth(dir).filter((p, i) => keep(p.id, i)).map((p) => ({
    ...p,
    html: serialize(parse(decodeHtml(fs.readFileSync(path.join(dir, 'html', `${p.id}.html`))))),
  }));
}

/**
 * The page's URL, or a local one for the few entries whose recorded URL is not http(s)
 * ("hard::site-name.html"): the service would see the URL it fetched, always http(s).
 */
function pageUrl(id: string, recorded: string): string {
  const trimmed = recorded.trim();
  return /^https?:\/\/[^/\s]/i.test(trimmed) ? trimmed : `http://dev-set.localhost/${id}.html`;
}

type MarkdownToText = (markdown: string) => string;

/**
 * The scorer's own markdown-to-text (../shared/extraction-score/lib), so our numbers are the
 * scorer's. Its four dependencies live in that folder: installed with `npm ci` there when
 * missing (its README's one setup step).
 */
export async function loadMarkdownToText(shared: string): Promise<MarkdownToText> {
  const scoreDir = path.join(shared, 'extraction-score');
  if (!fs.existsSync(path.join(scoreDir, 'node_modules', 'mdast-util-from-markdown'))) {
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: scoreDir, encoding: 'utf8' });
    if (npm.status !== 0) throw new Error(`npm ci in ${scoreDir} failed: ${npm.stderr}`);
  }
  const mod = (await import(pathToFileURL(path.join(scoreDir, 'lib', 'markdown-to-text.mjs')).href)) as { markdownToText: MarkdownToText };
  return mod.markdownToText;
}

const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();

/** score-snippets.mjs's metric: segments as substrings of the extraction's text, counts summed over pages. */
export function scoreSnippets(pages: readonly DevTruth[], markdownById: ReadonlyMap<string, string>, markdownToText: MarkdownToText): SnippetScore {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let empty = 0;
  const rows: SnippetScore['rows'] = [];
  for (const page of pages) {
    const text = norm(markdownToText(markdownById.get(page.id) ?? ''));
    if (!text) empty++;
    const hit = text ? page.with.filter((w) => text.includes(norm(w))).length : 0;
    const leak = text ? page.without.filter((w) => text.includes(norm(w))).length : 0;
    tp += hit;
    fp += leak;
    fn += page.with.length - hit;
    rows.push({ id: page.id, url: page.url, tp: hit, fp: leak, fn: page.with.length - hit });
  }
  return {
    precision: tp + fp ? tp / (tp + fp) : 0,
    recall: tp + fn ? tp / (tp + fn) : 0,
    f1: 2 * tp + fp + fn ? (2 * tp) / (2 * tp + fp + fn) : 0,
    tp,
    fp,
    fn,
    pages: pages.length,
    empty,
    rows,
  };
}

export type Extractor = (page: DevPage) => string;

/** The service's transform, as the scrape API runs it with onlyMainContent (the default). */
export const serviceExtractor: Extractor = (page) =>
  extractPage({ html: page.html, url: page.url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown ?? '';

/** The same-run baseline: plain Readability.js on a linkedom document, then turndown, no cleaning. */
export const readabilityExtractor: Extractor = (page) => {
  const { document } = parseHTML(page.html);
  const article = new Readability(document as unknown as Document).parse();
  if (!article?.content) return '';
  return new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' }).turndown(`<h1>${article.title ?? ''}</h1>${article.content}`);
};

export interface ExtractionRun {
  markdown: Map<string, string>;
  /** CPU (user + system) of the extractor per page, mean in milliseconds. */
  cpuMsPerPage: number;
  /** Pages whose extraction threw, with the message. */
  errors: Array<{ id: string; message: string }>;
}

export function runExtractor(pages: readonly DevPage[], extractor: Extractor): ExtractionRun {
  const markdown = new Map<string, string>();
  const errors: ExtractionRun['errors'] = [];
  let cpuMicros = 0;
  for (const page of pages) {
    // Read before the clock starts: the WCXB pages are read, unzipped and tree-built on use
    // (a getter), which is the loader's CPU, not the extractor's.
    const html = page.html;
    const cpu = process.cpuUsage();
    try {
      markdown.set(page.id, extractor({ id: page.id, url: page.url, html, with: page.with, without: page.without }));
    } catch (err) {
      errors.push({ id: page.id, message: err instanceof Error ? err.message : String(err) });
    }
    const used = process.cpuUsage(cpu);
    cpuMicros += used.user + used.system;
  }
  return { markdown, cpuMsPerPage: cpuMicros / 1000 / Math.max(1, pages.length), errors };
}

/** Timed passes per extractor in warmCpuMsPerPage, in alternating order. */
const WARM_ROUNDS = 2;

/**
 * CPU per page of several extractors once warm, as a transform thread of the service is
 * (it lives for many pages): a first pass of each, untimed, then WARM_ROUNDS timed passes
 * in alternating order, their mean. A single cold pass charges whichever extractor runs
 * first with the JIT warm-up of the code both share (linkedom, htmlparser2, turndown): up
 * to a fifth of a page's CPU either way, depending on the order (docs/benchmarks.md,
 * "Twentieth session: h-extract34").
 */
export function warmCpuMsPerPage(pages: readonly DevPage[], extractors: Readonly<Record<string, Extractor>>): Record<string, number> {
  const names = Object.keys(extractors);
  for (const name of names) runExtractor(pages, extractors[name]!);
  const sums = Object.fromEntries(names.map((n) => [n, 0]));
  for (let round = 0; round < WARM_ROUNDS; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) sums[name]! += runExtractor(pages, extractors[name]!).cpuMsPerPage;
  }
  return Object.fromEntries(names.map((n) => [n, sums[n]! / WARM_ROUNDS]));
}
