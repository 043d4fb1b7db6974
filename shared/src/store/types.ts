// The read-model store: one small, domain-level interface with two implementations,
// MongoDB (production) and node:sqlite (embedded default). The projector is its only
// writer; the gateway reads. Everything in it can be rebuilt from the event log.
import type { PageError, PageMetadata, PayloadRef, Timings } from '../events/common.js';
import type { ChangeTrackingReport } from '../change-tracking.js';
import type { Plan } from '../plans.js';
import type { ResolvedScrapeOptions } from '../scrape-options.js';

export type ScrapeStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';

export interface ScreenshotInfo {
  /** Object Store name of the image. */
  name: string;
  width: number;
  height: number;
  format: string;
  fileSize: number;
  expiresAt: string;
}

/** The content a completed page produced, as asked for by its formats. */
export interface PageContent {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  screenshot?: ScreenshotInfo;
  actionScreenshots?: ScreenshotInfo[];
  /** The extract format's result. */
  json?: unknown;
  changeTracking?: ChangeTrackingReport;
  /** A document page: its stored bytes, served by the gateway (docs/api.md "Documents"). */
  document?: DocumentInfo;
}

export interface DocumentInfo {
  /** Object Store name. */
  name: string;
  contentType: string;
  fileSize: number;
  expiresAt: string;
}

export interface ScrapeJobDoc {
  id: string;
  apiKeyId: string;
  url: string;
  status: ScrapeStatus;
  fromCache: boolean;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  options: ResolvedScrapeOptions;
  cacheKey?: string;
  /** For a cache hit or a shared load: the job whose result it serves. */
  sourceJobId?: string;
  /** The result document in the Object Store (what a later cache hit serves). */
  resultRef?: PayloadRef;
  content?: PageContent;
  metadata?: PageMetadata;
  timings?: Timings;
  error?: PageError;
  attempts: number;
  /** Stream sequence of the last event applied (the projector's idempotency check). */
  lastSeq: number;
}

/**
 * The scrape result cache, one small document per cache key: the newest completed result
 * and the scrape currently loading it (for sharing one load among identical requests).
 */
export interface ScrapeCacheDoc {
  id: string;
  completed?: { jobId: string; completedAt: string };
  running?: { jobId: string; createdAt: string };
  lastSeq: number;
}

export type ScrapeJobSummary = Pick<ScrapeJobDoc, 'id' | 'url' | 'status' | 'fromCache' | 'createdAt' | 'completedAt'>;

export interface ApiKeyDoc {
  id: string;
  keyHash: string;
  /** The current plan (the last key_plan_changed, else the one it was created with). */
  plan: Plan;
  label: string;
  createdAt: string;
  /** Set once the key is revoked: it is still found by hash, and the gateway refuses it. */
  revokedAt?: string;
  /** The console account that owns it (absent: an operator's key). */
  accountId?: string;
  /** When an operator's key joined that account (key_adopted); absent: made by it. */
  adoptedAt?: string;
  lastSeq: number;
}

/**
 * What one key is using: its jobs running now (for the plan's concurrency limit) and the
 * pages it had fetched this calendar month (for the monthly quota).
 */
export interface KeyUsageDoc {
  id: string;
  /** `YYYY-MM` (UTC) that `pages` counts. */
  month: string;
  pages: number;
  /** The key's jobs that are PENDING or PROCESSING: id -> when it was created. */
  activeJobs: Record<string, string>;
  /**
   * Pages that running crawls and batches may still load: job id -> pages left of what it
   * was granted. They are spoken for: the quota admits new work only beyond them.
   * (Absent in documents written before it existed; read as empty.)
   */
  committedPages?: Record<string, number>;
  lastSeq: number;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface ReadModelStore extends CrawlStore, BatchStore, ConsoleStore {
  readonly kind: 'sqlite' | 'mongodb';
  /** Creates tables / collections and indexes. Idempotent. */
  init(): Promise<void>;
  close(): Promise<void>;
  ping(): Promise<boolean>;

  /** Last stream sequence a projection has applied (0 when none). */
  getCheckpoint(projection: string): Promise<number>;
  setCheckpoint(projection: string, seq: number): Promise<void>;

  getScrapeJob(id: string): Promise<ScrapeJobDoc | null>;
  saveScrapeJob(doc: ScrapeJobDoc): Promise<void>;
  /** The key's own jobs, newest first (createdAt descending, then id). */
  listScrapeJobs(apiKeyId: string, page: Page): Promise<ScrapeJobSummary[]>;
  /** The result cache's entry for a cache key (small: ids and refs, no content). */
  getScrapeCacheEntry(cacheKey: string): Promise<ScrapeCacheDoc | null>;
  saveScrapeCacheEntry(doc: ScrapeCacheDoc): Promise<void>;

  getApiKey(id: string): Promise<ApiKeyDoc | null>;
  /** The key with this hash, revoked or not (the caller checks `revokedAt`). */
  findApiKeyByHash(keyHash: string): Promise<ApiKeyDoc | null>;
  saveApiKey(doc: ApiKeyDoc): Promise<void>;

  getKeyUsage(keyId: string): Promise<KeyUsageDoc | null>;
  saveKeyUsage(doc: KeyUsageDoc): Promise<void>;

  /** Drops every read model and checkpoint: the next projector run rebuilds from the log. */
  reset(): Promise<void>;
}

/** Pages of the quota spoken for by the key's running crawls and batches. */
export function committedPages(doc: KeyUsageDoc): number {
  return Object.values(doc.committedPages ?? {}).reduce((sum, n) => sum + n, 0);
}

export function toScrapeSummary(doc: ScrapeJobDoc): ScrapeJobSummary {
  return {
    id: doc.id,
    url: doc.url,
    status: doc.status,
    fromCache: doc.fromCache,
    createdAt: doc.createdAt,
    ...(doc.completedAt ? { completedAt: doc.completedAt } : {}),
  };
}

// ---- crawls (docs/architecture.md "Crawl read models") ------------------------------
// Two read models: one document per crawl (status and counters) and one per crawl page
// (its result). A page counts for its crawl when its first result is COMPLETED and, for a
// cancelled crawl, was recorded before the cancel (resultSeq < frozenAtSeq): the same rule
// as the crawl decider, so the counters always match `data`.

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

export interface CrawlStore {
  getCrawlJob(id: string): Promise<CrawlJobDoc | null>;
  saveCrawlJob(doc: CrawlJobDoc): Promise<void>;
  /** The key's own crawls, newest first (createdAt descending, then id). */
  listCrawlJobs(apiKeyId: string, page: Page): Promise<CrawlJobDoc[]>;
  getCrawlPage(crawlId: string, pageKey: string): Promise<CrawlPageDoc | null>;
  saveCrawlPage(doc: CrawlPageDoc): Promise<void>;
  /** COMPLETED pages (every page with `anyStatus`) in requested order. */
  listCrawlPages(crawlId: string, query: CrawlPageQuery): Promise<CrawlPageDoc[]>;
  /** Pages with a COMPLETED / FAILED first result (before `beforeResultSeq` when given). */
  countCrawlPages(crawlId: string, beforeResultSeq?: number): Promise<{ completed: number; failed: number }>;
}

// ---- batches (batch scrape; docs/architecture.md "Batch read models") ---------------
// Two read models: one document per batch holding its status, counters and every page's
// state in request order (at most 100 pages, no content), and one document per completed
// page holding its content. The batch document decides what counts: a page's first result,
// recorded before a cancel; pages without a result when the batch is cancelled are CANCELLED.

export type BatchJobStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';
export type BatchPageStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

export interface BatchPageState {
  url: string;
  pageKey: string;
  status: BatchPageStatus;
  error?: PageError;
}

export interface BatchJobDoc {
  id: string;
  apiKeyId: string;
  status: BatchJobStatus;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  /** The page options of every page (the presentation needs formats and screenshot response). */
  options: ResolvedScrapeOptions;
  webhookUrl?: string;
  /** The unique pages in request order. */
  pages: BatchPageState[];
  totalUrls: number;
  completedUrls: number;
  failedUrls: number;
  /** Why a batch FAILED. */
  error?: { message: string };
  lastSeq: number;
}

export type BatchJobSummary = Pick<BatchJobDoc, 'id' | 'status' | 'totalUrls' | 'completedUrls' | 'failedUrls' | 'createdAt' | 'completedAt'>;

export interface BatchPageDoc {
  batchId: string;
  pageKey: string;
  content: PageContent;
  metadata: PageMetadata;
  /** Stream sequence of the page_completed it holds. */
  resultSeq: number;
  lastSeq: number;
}

export interface BatchStore {
  getBatchJob(id: string): Promise<BatchJobDoc | null>;
  saveBatchJob(doc: BatchJobDoc): Promise<void>;
  /** The key's own batches, newest first (createdAt descending, then id). */
  listBatchJobs(apiKeyId: string, page: Page): Promise<BatchJobSummary[]>;
  getBatchPage(batchId: string, pageKey: string): Promise<BatchPageDoc | null>;
  saveBatchPage(doc: BatchPageDoc): Promise<void>;
  /** The batch's page documents among `pageKeys` (any order; missing ones left out). */
  getBatchPages(batchId: string, pageKeys: readonly string[]): Promise<BatchPageDoc[]>;
}

export function toBatchSummary(doc: BatchJobDoc): BatchJobSummary {
  return {
    id: doc.id,
    status: doc.status,
    totalUrls: doc.totalUrls,
    completedUrls: doc.completedUrls,
    failedUrls: doc.failedUrls,
    createdAt: doc.createdAt,
    ...(doc.completedAt ? { completedAt: doc.completedAt } : {}),
  };
}

// ---- the web console (docs/console.md) ------------------------------------------------
// Accounts, invites and sessions as the console reads them, and each key's pages per day.

export interface AccountDoc {
  id: string;
  email: string;
  /** The scrypt hash from account_registered (the console verifies sign-ins against it). */
  passwordHash: string;
  role: 'admin' | 'member';
  plan: Plan;
  status: 'ACTIVE' | 'DISABLED';
  createdAt: string;
  inviteId?: string;
  lastSeq: number;
}

export interface InviteDoc {
  id: string;
  tokenHash: string;
  role: 'admin' | 'member';
  createdAt: string;
  expiresAt: string;
  createdBy: string;
  redeemedAt?: string;
  redeemedBy?: string;
  /** Taken back unused by an admin (invite_revoked). */
  revokedAt?: string;
  lastSeq: number;
}

export interface SessionDoc {
  /** The SHA-256 of the cookie's token. */
  id: string;
  accountId: string;
  startedAt: string;
  expiresAt: string;
  endedAt?: string;
  lastSeq: number;
}

/** Pages a key had fetched per UTC day (`YYYY-MM-DD` -> pages), the last 62 days. */
export interface KeyDailyPagesDoc {
  id: string;
  days: Record<string, number>;
  lastSeq: number;
}

/**
 * A map request as the console lists it (maps-jobs read model): what was asked, and what
 * the map worker answered. The links are kept when map_completed carried them inline
 * (up to MAP_INLINE_LINKS_MAX_BYTES); a larger answer keeps only its count.
 */
export interface MapJobDoc {
  id: string;
  apiKeyId: string;
  url: string;
  search?: string;
  status: 'PROCESSING' | 'COMPLETED' | 'FAILED';
  createdAt: string;
  completedAt?: string;
  count?: number;
  partial?: boolean;
  links?: string[];
  error?: { code: string; message: string };
  lastSeq: number;
}

export interface ConsoleStore {
  getAccount(id: string): Promise<AccountDoc | null>;
  saveAccount(doc: AccountDoc): Promise<void>;
  /** Every account, newest first. */
  listAccounts(page: Page): Promise<AccountDoc[]>;
  getInvite(id: string): Promise<InviteDoc | null>;
  saveInvite(doc: InviteDoc): Promise<void>;
  /** Invites, newest first. */
  listInvites(page: Page): Promise<InviteDoc[]>;
  getSession(id: string): Promise<SessionDoc | null>;
  saveSession(doc: SessionDoc): Promise<void>;
  /** The account's keys (revoked ones too), newest first. */
  listApiKeysByAccount(accountId: string, page: Page): Promise<ApiKeyDoc[]>;
  getKeyDailyPages(keyId: string): Promise<KeyDailyPagesDoc | null>;
  saveKeyDailyPages(doc: KeyDailyPagesDoc): Promise<void>;
  getMapJob(id: string): Promise<MapJobDoc | null>;
  saveMapJob(doc: MapJobDoc): Promise<void>;
  /** The key's map requests, newest first (links left out). */
  listMapJobs(apiKeyId: string, page: Page): Promise<MapJobDoc[]>;
}
