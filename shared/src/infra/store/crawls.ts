// Crawls (docs/architecture.md "Crawl read models").
// Two read models: one document per crawl (status and counters) and one per crawl page
// (its result). A page counts for its crawl when its first result is COMPLETED and, for a
// cancelled crawl, was recorded before the cancel (resultSeq < frozenAtSeq): the same rule
// as the crawl decider, so the counters always match `data`.
import type { PageError, PageMetadata } from '../../domain/events/common.js';
import type { ChangeTrackingReport } from '../../domain/change-tracking.js';
import type { CollectionDef } from './collection.js';
import type { DocumentInfo } from './scrapes.js';

export type CrawlJobStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface CrawlJobDoc {
  id: string;
  apiKeyId: string;
  startUrl: string;
  status: CrawlJobStatus;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  maxDepth: number;
  limit: number;
  webhookUrl?: string;
  /** Pages accepted so far (final once `countersFinal`). */
  totalUrls: number;
  /** Set from crawl_finished; while running the counts come from the page documents. */
  completedUrls: number;
  failedUrls: number;
  countersFinal: boolean;
  /** Stream sequence of the cancel: page results at or after it do not count. */
  frozenAtSeq?: number;
  error?: { message: string };
  /** Hosts the crawl stopped asking (crawl_host_blocked; docs/api.md "Page outcome"). */
  blockedHosts?: Array<{ host: string; refusals: number; blockedAt: string }>;
  lastSeq: number;
}

export type CrawlPageStatus = 'PENDING' | 'COMPLETED' | 'FAILED';

export interface CrawlPageDoc {
  crawlId: string;
  pageKey: string;
  url: string;
  depth: number;
  status: CrawlPageStatus;
  /** Sequence of its page_requested: the order of `data` (breadth-first discovery order). */
  requestedSeq: number;
  /** Sequence of its first result. */
  resultSeq?: number;
  markdown?: string;
  html?: string;
  rawHtml?: string;
  /** The extract format's result. */
  json?: unknown;
  changeTracking?: ChangeTrackingReport;
  /** A document page's stored bytes (docs/api.md "Documents"). */
  document?: DocumentInfo;
  metadata?: PageMetadata;
  links?: string[];
  error?: PageError;
  /**
   * A page completed from the stored result of an earlier crawl page (a recrawl's 304):
   * these content fields are that page's, filled in from its document whenever this one is
   * read, instead of a copy written with each recrawl (docs/architecture.md "Conditional
   * fetches"). Readers never see it: the store returns the page with its content.
   */
  repeats?: CrawlPageOrigin;
  lastSeq: number;
}

/** The content fields a crawl page may take from the page it repeats. */
export const REPEATABLE_FIELDS = ['markdown', 'html', 'rawHtml', 'json'] as const;
export type RepeatableField = (typeof REPEATABLE_FIELDS)[number];
export type RepeatedContent = Partial<Pick<CrawlPageDoc, RepeatableField>>;

/** Where a completed crawl page's content is (its own document, or the one it repeats) and which content fields that holds. */
export interface CrawlPageOrigin {
  crawlId: string;
  pageKey: string;
  fields: RepeatableField[];
}

/** The origin of a completed page from what its document says (null: not completed). */
export function originOf(page: { crawlId: string; pageKey: string; status: string; repeats?: CrawlPageOrigin | undefined }, held: (field: RepeatableField) => boolean): CrawlPageOrigin | null {
  if (page.status !== 'COMPLETED') return null;
  return page.repeats ?? { crawlId: page.crawlId, pageKey: page.pageKey, fields: REPEATABLE_FIELDS.filter(held) };
}

/**
 * The pages as readers see them: a page that repeats another has that page's content
 * fields (each origin read once per call through `contentOf`), and no `repeats`.
 */
export async function withRepeatedContent(
  docs: CrawlPageDoc[], contentOf: (crawlId: string, pageKey: string) => Promise<RepeatedContent | null>,
): Promise<CrawlPageDoc[]> {
  const origins = new Map<string, Promise<RepeatedContent | null>>();
  return Promise.all(docs.map(async (doc) => {
    if (!doc.repeats) return doc;
    const { repeats, ...own } = doc;
    const key = `${repeats.crawlId}\u0000${repeats.pageKey}`;
    let read = origins.get(key);
    if (!read) origins.set(key, (read = contentOf(repeats.crawlId, repeats.pageKey)));
    const found = await read;
    const content: RepeatedContent = {};
    for (const field of repeats.fields) if (found?.[field] !== undefined) Object.assign(content, { [field]: found[field] });
    return { ...own, ...content };
  }));
}

export interface CrawlPageQuery {
  /** Pages requested after this sequence (the `next` cursor); 0 for the first page. */
  afterRequestedSeq: number;
  limit: number;
  /** Only results recorded before this sequence (a cancelled crawl's freeze point). */
  beforeResultSeq?: number;
  /**
   * Every page, PENDING and FAILED too (a running crawl's pages are served up to its first
   * unfinished one, so that the cursor never skips a page that finishes later).
   */
  anyStatus?: boolean;
}


export const CRAWL_JOBS: CollectionDef<CrawlJobDoc> = {
  name: 'crawl_jobs',
  list: { owner: 'apiKeyId', createdAt: 'createdAt', mongoIndex: 'by_owner' },
};

/** Crawl pages: keyed by (crawl, page key), queried in requested order. */
export interface CrawlPageStore {
  /** The page as readers see it (a repeated page with its content: withRepeatedContent); `asStored`: as saved (the projector's fold). */
  getCrawlPage(crawlId: string, pageKey: string, read?: { asStored?: boolean }): Promise<CrawlPageDoc | null>;
  /** Where a COMPLETED page's content is, without reading the content (null: no such page, or not completed). */
  crawlPageOrigin(crawlId: string, pageKey: string): Promise<CrawlPageOrigin | null>;
  saveCrawlPage(doc: CrawlPageDoc): Promise<void>;
  /** COMPLETED pages (every page with `anyStatus`) in requested order. */
  listCrawlPages(crawlId: string, query: CrawlPageQuery): Promise<CrawlPageDoc[]>;
  /** Pages with a COMPLETED / FAILED first result (before `beforeResultSeq` when given). */
  countCrawlPages(crawlId: string, beforeResultSeq?: number): Promise<{ completed: number; failed: number }>;
}
