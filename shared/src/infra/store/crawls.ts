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
  lastSeq: number;
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
  getCrawlPage(crawlId: string, pageKey: string): Promise<CrawlPageDoc | null>;
  saveCrawlPage(doc: CrawlPageDoc): Promise<void>;
  /** COMPLETED pages (every page with `anyStatus`) in requested order. */
  listCrawlPages(crawlId: string, query: CrawlPageQuery): Promise<CrawlPageDoc[]>;
  /** Pages with a COMPLETED / FAILED first result (before `beforeResultSeq` when given). */
  countCrawlPages(crawlId: string, beforeResultSeq?: number): Promise<{ completed: number; failed: number }>;
}
