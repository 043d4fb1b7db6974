// Crawl pages: one document per page of a crawl, holding its result (the `data` entries of
// GET /crawl/:id). Created by the frontier's page_requested; the first result wins, like
// the crawl decider counts it. Content comes from the result payload in the Object Store.
import type { PageCompleted, PageResultPayload, StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import { pageResult, resultStoredAt } from '../../../../../shared/src/domain/reused-result.js';
import type { CrawlPageDoc } from '../../../../../shared/src/infra/store/index.js';
import { pageContent, type PageContentFields } from '../job-fold.js';
import type { HydrateDeps, ReadModel } from '../types.js';

export type CrawlPageHydrated = PageContentFields;

export function evolve(doc: CrawlPageDoc | null, event: StoredEvent, hydrated: CrawlPageHydrated = {}): CrawlPageDoc | null {
  if (event.event === 'page_requested') {
    if (doc) return doc;
    return {
      crawlId: event.id,
      pageKey: event.part,
      url: event.data.url,
      depth: event.data.depth,
      status: 'PENDING',
      requestedSeq: event.seq,
      lastSeq: event.seq,
    };
  }
  if (!doc) return null;
  const next: CrawlPageDoc = { ...doc, lastSeq: event.seq };
  if (doc.status !== 'PENDING') return next;
  switch (event.event) {
    case 'page_completed':
      return {
        ...next,
        status: 'COMPLETED',
        resultSeq: event.seq,
        metadata: event.data.metadata,
        links: event.data.links,
        ...hydrated,
      };
    case 'page_failed':
      return { ...next, status: 'FAILED', resultSeq: event.seq, error: event.data.error };
    default:
      return next;
  }
}

async function hydrate(event: StoredEvent, deps: HydrateDeps): Promise<CrawlPageHydrated> {
  if (event.event !== 'page_completed') return {};
  // A 304's page may name an older page's result (reused-result.ts): its formats and change report are the event's.
  const payload = (await sourceContent(event.data, deps)) ?? pageResult(await deps.getJson<PageResultPayload>(event.data.result), event.data);
  return pageContent(payload, new Date(Date.parse(resultStoredAt(event.data)) + deps.payloadTtlMs).toISOString());
}

/** Content formats a crawl page holds as fields of its document. */
const DOC_FORMATS = { markdown: 'markdown', html: 'html', rawHtml: 'rawHtml', extract: 'json' } as const;

/**
 * A reused result whose page is a crawl page of this read model (a recrawl's 304s): its
 * content from that document, with no Object Store read. Undefined when that page is not
 * here or lacks a format asked (applied without its payload, or not yet in a rebuild).
 */
async function sourceContent(completed: PageCompleted, deps: HydrateDeps): Promise<PageResultPayload | undefined> {
  const source = completed.reusedResult?.source;
  if (source?.kind !== 'crawl' || !deps.crawlPage) return undefined;
  const doc = await deps.crawlPage(source.jobId, source.part);
  if (doc?.status !== 'COMPLETED') return undefined;
  const content = pageResult({
    ...(doc.markdown !== undefined ? { markdown: doc.markdown } : {}),
    ...(doc.html !== undefined ? { html: doc.html } : {}),
    ...(doc.rawHtml !== undefined ? { rawHtml: doc.rawHtml } : {}),
    ...('json' in doc ? { json: doc.json } : {}),
  }, completed);
  const held = (format: string): boolean => !(format in DOC_FORMATS) || content[DOC_FORMATS[format as keyof typeof DOC_FORMATS]] !== undefined;
  return completed.reusedResult!.formats.every(held) ? content : undefined;
}

export const crawlPagesReadModel: ReadModel<CrawlPageDoc, CrawlPageHydrated> = {
  name: 'crawl-pages',
  handles: ['page_requested', 'page_completed', 'page_failed'],
  accepts: (event) => event.kind === 'crawl',
  load: (store, event) => store.getCrawlPage(event.id, event.part),
  save: (store, doc) => store.saveCrawlPage(doc),
  hydrate,
  evolve,
};
