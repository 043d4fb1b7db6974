// Crawl pages: one document per page of a crawl, holding its result (the `data` entries of
// GET /crawl/:id). Created by the frontier's page_requested; the first result wins, like
// the crawl decider counts it. Content comes from the result payload in the Object Store,
// or, for a recrawl's unchanged page, stays in the crawl page it repeats (`repeats`).
import type { PageCompleted, PageResultPayload, StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import { pageResult, resultStoredAt } from '../../../../../shared/src/domain/reused-result.js';
import type { CrawlPageDoc, CrawlPageOrigin, RepeatableField } from '../../../../../shared/src/infra/store/index.js';
import { pageContent, type PageContentFields } from '../job-fold.js';
import type { HydrateDeps, ReadModel } from '../types.js';

export type CrawlPageHydrated = PageContentFields & { repeats?: CrawlPageOrigin };

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
  const repeated = await repeatedContent(event.data, deps);
  if (repeated) return repeated;
  // A 304's page may name an older page's result (reused-result.ts): its formats and change report are the event's.
  const payload = pageResult(await deps.getJson<PageResultPayload>(event.data.result), event.data);
  return pageContent(payload, new Date(Date.parse(resultStoredAt(event.data)) + deps.payloadTtlMs).toISOString());
}

/** The document fields of the content formats. */
const DOC_FIELDS: Partial<Record<string, RepeatableField>> = { markdown: 'markdown', html: 'html', rawHtml: 'rawHtml', extract: 'json' };

/**
 * A reused result whose page is a crawl page of this read model holding every format asked
 * (a recrawl's 304s): the page names where that content is (the page that holds it, also
 * when the named page itself repeats another) and keeps its own change report; no content
 * is read, copied or written. Undefined when that page is not here or lacks a format asked
 * (applied without its payload, or not yet in a rebuild): the payload is read instead.
 */
async function repeatedContent(completed: PageCompleted, deps: HydrateDeps): Promise<CrawlPageHydrated | undefined> {
  const reused = completed.reusedResult;
  const source = reused?.source;
  if (!reused || source?.kind !== 'crawl' || !deps.crawlPageOrigin) return undefined;
  const origin = await deps.crawlPageOrigin(source.jobId, source.part);
  const fields = reused.formats.flatMap((f) => (DOC_FIELDS[f] ? [DOC_FIELDS[f]] : []));
  if (!origin || !fields.every((f) => origin.fields.includes(f))) return undefined;
  return { repeats: { crawlId: origin.crawlId, pageKey: origin.pageKey, fields }, ...(reused.changeTracking ? { changeTracking: reused.changeTracking } : {}) };
}

export const crawlPagesReadModel: ReadModel<CrawlPageDoc, CrawlPageHydrated> = {
  name: 'crawl-pages',
  handles: ['page_requested', 'page_completed', 'page_failed'],
  accepts: (event) => event.kind === 'crawl',
  // As saved: a later event of a page that repeats another keeps the pointer, not a copy.
  load: (store, event) => store.getCrawlPage(event.id, event.part, { asStored: true }),
  save: (store, doc) => store.saveCrawlPage(doc),
  hydrate,
  evolve,
};
