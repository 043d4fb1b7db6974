// The read-model store: one small, domain-level interface with two implementations,
// MongoDB (production) and node:sqlite (embedded default). The projector is its only
// writer; the gateway reads. Everything in it can be rebuilt from the event log.
import type { PageError, PageMetadata, Timings } from '../events/common.js';
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
  /** For a cache hit: the job whose result it serves. */
  sourceJobId?: string;
  content?: PageContent;
  metadata?: PageMetadata;
  timings?: Timings;
  error?: PageError;
  attempts: number;
  /** Stream sequence of the last event applied (the projector's idempotency check). */
  lastSeq: number;
}

export type ScrapeJobSummary = Pick<ScrapeJobDoc, 'id' | 'url' | 'status' | 'fromCache' | 'createdAt' | 'completedAt'>;

export interface ApiKeyDoc {
  id: string;
  keyHash: string;
  plan: Plan;
  label: string;
  createdAt: string;
  lastSeq: number;
}

export interface Page {
  limit: number;
  offset: number;
}

export interface ReadModelStore {
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

  getApiKey(id: string): Promise<ApiKeyDoc | null>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyDoc | null>;
  saveApiKey(doc: ApiKeyDoc): Promise<void>;

  /** Drops every read model and checkpoint: the next projector run rebuilds from the log. */
  reset(): Promise<void>;
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
