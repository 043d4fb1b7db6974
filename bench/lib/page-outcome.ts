// Page outcome on the extraction dev sets (trafilatura-eval and WCXB dev): real content
// pages, so every page classified other than `ok` is a false positive (issue 23's goal:
// under 0.5%). Used by bench/page-outcome.ts, `npm run bench` (scenario 11) and
// test/unit/transformer/dev-sets.test.ts (which also scores the
// markdown kept against the quality floors).
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import { parse, serialize } from 'parse5';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { transformPage } from '../../services/transformer/src/index.js';
import { decodeHtml, devSetDir, loadDevPages, sharedDir } from './extraction-dev.js';

export interface OutcomeDevPage {
  set: 'trafilatura-eval' | 'wcxb-dev';
  id: string;
  url: string;
  html: string;
  /** The set's annotation gives the page a main content (WCXB labels 21 dev pages as having none). */
  annotated: boolean;
}

export interface OutcomeDevRun {
  pages: number;
  bySet: Record<string, { pages: number; flagged: number }>;
  flagged: Array<{ set: string; id: string; url: string; outcome: string; evidence: string[]; annotated: boolean }>;
  /** Share of pages not `ok`. */
  rate: number;
  /** Pages whose annotation has a main content, and the share of those not `ok` (false positives for certain). */
  annotatedPages: number;
  annotatedRate: number;
  /** Each page's markdown, keyed `set/id`, when asked for (the quality floors score it). */
  markdown?: Record<string, string>;
}

export interface OutcomeDevOptions {
  /** Keep every page's markdown in the run (a few MB for both sets). */
  keepMarkdown?: boolean;
  /** Only the WCXB pages whose id is 0 mod this (default 1: every page). */
  wcxbEvery?: number;
}

/** Every `of`-th page from the `index`-th: one worker thread's part of a set. */
export interface Shard { index: number; of: number }
/** What a worker thread is given. */
export interface OutcomeDevJob { shard: Shard; options: OutcomeDevOptions }
const ALL: Shard = { index: 0, of: 1 };

/** WCXB dev pages (html/<id>.html.gz), one at a time (the set is 1,358 pages: held at once, too large). */
export function* wcxbPages(shared = sharedDir(), shard = ALL, every = 1): Generator<OutcomeDevPage> {
  const dir = shared && path.join(shared, 'fixtures', 'extraction-dev', 'wcxb-dev');
  if (!dir || !fs.existsSync(path.join(dir, 'ground-truth.json'))) return;
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, { url: string | null; main_content?: string }>;
  let n = 0;
  for (const [id, item] of Object.entries(truth)) {
    const file = path.join(dir, 'html', `${id}.html.gz`);
    if (Number.parseInt(id, 10) % every !== 0 || !fs.existsSync(file) || n++ % shard.of !== shard.index) continue;
    const url = (item.url ?? '').trim();
    yield {
      set: 'wcxb-dev',
      id,
      url: /^https?:\/\/[^/\s]/i.test(url) ? url : `http://dev-set.localhost/${id}.html`,
      annotated: (item.main_content ?? '').trim().length > 0,
      // Parsed and serialized again, as Chromium hands the rendered page over.
      html: serialize(parse(decodeHtml(zlib.gunzipSync(fs.readFileSync(file))))),
    };
  }
}

/** Both dev sets, page by page (or one shard of each). */
export function* outcomeDevPages(shard = ALL, wcxbEvery = 1): Generator<OutcomeDevPage> {
  const dir = devSetDir();
  const traf = dir ? loadDevPages(dir, (_, i) => i % shard.of === shard.index) : [];
  for (const p of traf) yield { set: 'trafilatura-eval', id: p.id, url: p.url, html: p.html, annotated: p.with.length > 0 };
  yield* wcxbPages(sharedDir(), shard, wcxbEvery);
}

/** Each page through the service's transform (status 200, as the dev sets were saved), counting what is not `ok`. */
export function runOutcomeDev(pages: Iterable<OutcomeDevPage>, options: OutcomeDevOptions = {}): OutcomeDevRun {
  const scrape = normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true });
  const markdown: Record<string, string> | undefined = options.keepMarkdown ? {} : undefined;
  const bySet: OutcomeDevRun['bySet'] = {};
  const flagged: OutcomeDevRun['flagged'] = [];
  let count = 0;
  let annotated = 0;
  for (const page of pages) {
    count++;
    if (page.annotated) annotated++;
    const set = (bySet[page.set] ??= { pages: 0, flagged: 0 });
    set.pages++;
    const out = transformPage({ html: page.html, url: page.url, options: scrape, statusCode: 200 });
    const { metadata } = out;
    if (markdown) markdown[`${page.set}/${page.id}`] = out.markdown ?? '';
    if (metadata.pageOutcome !== 'ok') {
      set.flagged++;
      flagged.push({ set: page.set, id: page.id, url: page.url, outcome: metadata.pageOutcome ?? '?', evidence: metadata.pageOutcomeEvidence ?? [], annotated: page.annotated });
    }
  }
  const annotatedFlagged = flagged.filter((f) => f.annotated).length;
  return {
    pages: count, bySet, flagged, rate: flagged.length / Math.max(1, count),
    annotatedPages: annotated, annotatedRate: annotatedFlagged / Math.max(1, annotated),
    ...(markdown ? { markdown } : {}),
  };
}

/**
 * runOutcomeDev over both dev sets in `threads` worker threads, each a shard: the same
 * figures as one thread (flagged pages in set and id order), in about 1/threads of the time.
 */
export async function runOutcomeDevInThreads(threads: number, options: OutcomeDevOptions = {}): Promise<OutcomeDevRun> {
  // Compiled, the worker is a .js beside this file; under tsx, the .ts source.
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
  const runs = await Promise.all(Array.from({ length: threads }, (_, index) => new Promise<OutcomeDevRun>((resolve, reject) => {
    const worker = new Worker(new URL(`./page-outcome-worker.${ext}`, import.meta.url), { workerData: { shard: { index, of: threads }, options } satisfies OutcomeDevJob });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`page outcome worker ${index} exited with ${code}`)));
  })));
  const bySet: OutcomeDevRun['bySet'] = {};
  for (const run of runs) for (const [set, t] of Object.entries(run.bySet)) {
    const into = (bySet[set] ??= { pages: 0, flagged: 0 });
    into.pages += t.pages;
    into.flagged += t.flagged;
  }
  const flagged = runs.flatMap((r) => r.flagged).sort((a, b) => a.set.localeCompare(b.set) || a.id.localeCompare(b.id));
  const pages = runs.reduce((n, r) => n + r.pages, 0);
  const annotatedPages = runs.reduce((n, r) => n + r.annotatedPages, 0);
  return {
    pages, bySet, flagged, rate: flagged.length / Math.max(1, pages),
    annotatedPages, annotatedRate: flagged.filter((f) => f.annotated).length / Math.max(1, annotatedPages),
    ...(options.keepMarkdown ? { markdown: Object.assign({}, ...runs.map((r) => r.markdown)) as Record<string, string> } : {}),
  };
}
