// The WCXB dev split (../shared/fixtures/extraction-dev/wcxb-dev: 1,358 labeled pages of
// seven page types) and its metric (../shared/extraction-score/lib/wcxb-metric.mjs, a port of
// the benchmark's evaluate.py), loaded in-process like the trafilatura-eval set
// (extraction-dev.ts): the bench, the tuning script (bench/extraction-wcxb.ts) and the
// regression floor score exactly what transformPage returns.
//
// Pages are stored gzipped and are UTF-8 (the set's README: a few declare another charset
// but hold UTF-8, and are served as text/html; charset=utf-8). Like the other set they go
// through parse5 and back, as the service gets Chromium's serialization of the DOM.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { parse, serialize } from 'parse5';
import { loadMarkdownToText, type DevPage } from './extraction-dev.js';

export interface WcxbPage extends DevPage {
  pageType: string;
  /** The annotated main content as plain text ('' on the pages with no main content). */
  reference: string;
}

export interface WcxbSummary {
  pages: number;
  f1: number;
  precision: number;
  recall: number;
  withRate: number;
  withoutRate: number;
  empty: number;
}

export interface WcxbScore {
  /** evaluate.py's metric (\w+ multisets). */
  overall: WcxbSummary;
  byType: Array<WcxbSummary & { type: string }>;
  /** The published tables' metric (sets of whitespace tokens): compare with the published figures on this one. */
  published: { overall: WcxbSummary; byType: Array<WcxbSummary & { type: string }> };
  pages: Array<{ id: string; pageType: string; f1: number; precision: number; recall: number; predTokens: number; refTokens: number }>;
  /** Pages with annotated content whose extraction was empty. */
  emptyWithContent: string[];
}

export function wcxbDir(shared: string | undefined): string | undefined {
  const dir = shared && path.join(shared, 'fixtures', 'extraction-dev', 'wcxb-dev');
  return dir && fs.existsSync(path.join(dir, 'ground-truth.json')) ? dir : undefined;
}

interface Truth {
  url?: string;
  page_type: string;
  main_content: string;
  with: string[];
  without: string[];
}

export function loadWcxbPages(dir: string, filter: (id: string, pageType: string) => boolean = () => true): WcxbPage[] {
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<string, Truth>;
  const pages: WcxbPage[] = [];
  for (const [id, item] of Object.entries(truth)) {
    if (!filter(id, item.page_type)) continue;
    const file = path.join(dir, 'html', `${id}.html.gz`);
    if (!fs.existsSync(file)) continue;
    pages.push({
      id,
      url: /^https?:\/\/[^/\s]/i.test(item.url?.trim() ?? '') ? item.url!.trim() : `http://wcxb-dev.localhost/${id}.html`,
      // Read on use: 1,358 parsed pages held at once exhaust the heap.
      get html() {
        return serialize(parse(new TextDecoder('utf-8').decode(gunzipSync(fs.readFileSync(file)))));
      },
      with: item.with,
      without: item.without,
      pageType: item.page_type,
      reference: item.main_content ?? '',
    });
  }
  return pages;
}

type Evaluate = (pages: unknown[], options?: { tokens?: string }) => { overall: WcxbSummary; byType: Array<WcxbSummary & { type: string }>; pages: WcxbScore['pages'] };

/** Scores markdown by id with score-wcxb.mjs's metric (both of its lines). */
export async function scoreWcxb(shared: string, pages: readonly WcxbPage[], markdownById: ReadonlyMap<string, string>): Promise<WcxbScore> {
  const markdownToText = await loadMarkdownToText(shared);
  const metric = (await import(pathToFileURL(path.join(shared, 'extraction-score', 'lib', 'wcxb-metric.mjs')).href)) as { evaluateWcxb: Evaluate };
  const inputs = pages.map((p) => {
    const md = markdownById.get(p.id);
    return { id: p.id, pageType: p.pageType, reference: p.reference, with: p.with, without: p.without, predicted: md === undefined ? '' : markdownToText(md), status: md === undefined ? 'missing' : 'ok' };
  });
  const res = metric.evaluateWcxb(inputs);
  const published = metric.evaluateWcxb(inputs, { tokens: 'harness' });
  const refById = new Map(pages.map((p) => [p.id, p.reference]));
  const emptyWithContent = res.pages.filter((r) => r.predTokens === 0 && /\w/.test(refById.get(r.id) ?? '')).map((r) => r.id);
  return { overall: res.overall, byType: res.byType, published: { overall: published.overall, byType: published.byType }, pages: res.pages, emptyWithContent };
}

/** rs-trafilatura's published dev figures per page type (the set's README): the goal per type. */
export const RS_TRAFILATURA_DEV: Record<string, number> = {
  article: 0.932,
  documentation: 0.932,
  service: 0.844,
  forum: 0.808,
  collection: 0.716,
  listing: 0.707,
  product: 0.641,
};

const f3 = (x: number): string => x.toFixed(3);

/** The score as a small table: per type, both metrics, the snippet rates and the empties. */
export function formatWcxbScore(name: string, s: WcxbScore): string {
  const lines = [`${name}: published-table F1 ${f3(s.published.overall.f1)} (evaluate.py F1 ${f3(s.overall.f1)} P ${f3(s.overall.precision)} R ${f3(s.overall.recall)})  with ${f3(s.overall.withRate)}  without ${f3(s.overall.withoutRate)}  empty ${s.overall.empty} (with content ${s.emptyWithContent.length})`];
  for (const t of s.byType) {
    const pub = s.published.byType.find((p) => p.type === t.type);
    lines.push(`  ${t.type.padEnd(14)} ${String(t.pages).padStart(4)}  pub F1 ${f3(pub?.f1 ?? 0)}  F1 ${f3(t.f1)}  P ${f3(t.precision)}  R ${f3(t.recall)}  with ${f3(t.withRate)}  w/o ${f3(t.withoutRate)}  empty ${t.empty}  (rs-traf ${RS_TRAFILATURA_DEV[t.type]?.toFixed(3) ?? '-'})`);
  }
  return lines.join('\n');
}
