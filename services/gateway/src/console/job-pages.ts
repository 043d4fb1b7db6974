// A crawl's or batch's pages as one shape, for the console: the list on the job's page,
// one page opened (rendered markdown, raw), and the whole job downloaded as JSON or as a
// ZIP of markdown files. Reads the read models only (crawl pages; a batch's page states
// and page documents), in the job's order.
import JSZip from 'jszip';
import type { PageError, PageMetadata } from '../../../../shared/src/domain/events/index.js';
import type { ReadModelStore } from '../../../../shared/src/infra/store/index.js';
import type { LoadedJob } from './jobs.js';

export interface ResultPage {
  pageKey: string;
  url: string;
  status: string;
  depth?: number;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  json?: unknown;
  metadata?: PageMetadata;
  error?: PageError;
}

/** The most pages one download holds (a crawl's limit is 1,000; a batch's 100). */
export const DOWNLOAD_MAX_PAGES = 1000;
/** The most content (markdown, HTML, raw HTML characters) one read holds: the gateway's memory, not the job's size, sets it. */
export const DOWNLOAD_MAX_CHARS = 64 * 1024 * 1024;

const sizeOf = (p: ResultPage): number => (p.markdown?.length ?? 0) + (p.html?.length ?? 0) + (p.rawHtml?.length ?? 0);

export interface JobPages {
  pages: ResultPage[];
  /** True when the content bound stopped the read before the job's last page. */
  truncated: boolean;
}
const CHUNK = 50;

type JobWithPages = Extract<LoadedJob, { kind: 'crawl' | 'batch' }>;

/** The job's pages in order: every page requested so far, finished or not, at most `max` and `maxChars` of content. */
export async function jobPages(store: ReadModelStore, job: JobWithPages, max = DOWNLOAD_MAX_PAGES, maxChars = DOWNLOAD_MAX_CHARS): Promise<JobPages> {
  const all = await readPages(store, job, max, maxChars);
  let chars = 0;
  const pages: ResultPage[] = [];
  for (const p of all) {
    chars += sizeOf(p);
    if (chars > maxChars) return { pages, truncated: true };
    pages.push(p);
  }
  return { pages, truncated: false };
}

async function readPages(store: ReadModelStore, job: JobWithPages, max: number, maxChars: number): Promise<ResultPage[]> {
  const out: ResultPage[] = [];
  let chars = 0;
  if (job.kind === 'crawl') {
    let after = 0;
    while (out.length < max) {
      const chunk = await store.listCrawlPages(job.doc.id, {
        afterRequestedSeq: after, limit: Math.min(CHUNK, max - out.length), anyStatus: true,
        ...(job.doc.frozenAtSeq !== undefined ? { beforeResultSeq: job.doc.frozenAtSeq } : {}),
      });
      for (const p of chunk) {
        const page: ResultPage = {
          pageKey: p.pageKey, url: p.url, status: p.status, depth: p.depth,
          ...pick(p), ...(p.metadata ? { metadata: p.metadata } : {}), ...(p.error ? { error: p.error } : {}),
        };
        out.push(page);
        chars += sizeOf(page);
      }
      // Past the bound: one page more than fits tells the caller it was cut.
      if (chunk.length < CHUNK || chars > maxChars) break;
      after = chunk.at(-1)!.requestedSeq;
    }
    return out;
  }
  const states = job.doc.pages.slice(0, max);
  for (let i = 0; i < states.length; i += CHUNK) {
    const slice = states.slice(i, i + CHUNK);
    const docs = new Map((await store.getBatchPages(job.doc.id, slice.map((s) => s.pageKey))).map((d) => [d.pageKey, d]));
    for (const s of slice) {
      const d = docs.get(s.pageKey);
      const page: ResultPage = { pageKey: s.pageKey, url: s.url, status: s.status, ...(d ? { ...pick(d.content), metadata: d.metadata } : {}), ...(s.error ? { error: s.error } : {}) };
      out.push(page);
      chars += sizeOf(page);
    }
    if (chars > maxChars) break;
  }
  return out;
}

function pick(c: { markdown?: string; html?: string; rawHtml?: string; links?: string[]; json?: unknown }): Partial<ResultPage> {
  return {
    ...(c.markdown !== undefined ? { markdown: c.markdown } : {}), ...(c.html !== undefined ? { html: c.html } : {}),
    ...(c.rawHtml !== undefined ? { rawHtml: c.rawHtml } : {}), ...(c.links ? { links: c.links } : {}), ...(c.json !== undefined ? { json: c.json } : {}),
  };
}

/** One page of the job, or null when it has none with this key. */
export async function jobPage(store: ReadModelStore, job: JobWithPages, pageKey: string): Promise<ResultPage | null> {
  if (job.kind === 'crawl') {
    const p = await store.getCrawlPage(job.doc.id, pageKey);
    if (!p) return null;
    return { pageKey: p.pageKey, url: p.url, status: p.status, depth: p.depth, ...pick(p), ...(p.metadata ? { metadata: p.metadata } : {}), ...(p.error ? { error: p.error } : {}) };
  }
  const s = job.doc.pages.find((x) => x.pageKey === pageKey);
  if (!s) return null;
  const d = await store.getBatchPage(job.doc.id, pageKey);
  return { pageKey, url: s.url, status: s.status, ...(d ? { ...pick(d.content), metadata: d.metadata } : {}), ...(s.error ? { error: s.error } : {}) };
}

/** A file name for a page: its position, then its host and path as a slug (unique by the position). */
export function fileNameOf(index: number, url: string): string {
  let slug = url;
  try {
    const u = new URL(url);
    slug = `${u.host}${u.pathname === '/' ? '' : u.pathname}${u.search}`;
  } catch { /* not a URL: the text as is */ }
  slug = slug.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 100) || 'page';
  return `${String(index + 1).padStart(4, '0')}-${slug}.md`;
}

/** The job's pages as a ZIP: one markdown file a page with its URL on top, and pages.json (URL, status, title, file). */
export async function zipOf(pages: ResultPage[], truncated = false): Promise<Buffer> {
  const zip = new JSZip();
  const index = pages.map((p, i) => {
    const file = p.markdown !== undefined ? fileNameOf(i, p.url) : undefined;
    if (file) zip.file(file, `<!-- ${p.url} -->\n\n${p.markdown}`);
    return { url: p.url, status: p.status, ...(p.metadata?.title ? { title: p.metadata.title } : {}), ...(file ? { file } : {}), ...(p.error ? { error: p.error } : {}) };
  });
  zip.file('pages.json', JSON.stringify(truncated ? { truncated: true, note: 'too much content for one download: the first pages only; the API pages through all', pages: index } : index, null, 2));
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' });
}
