// Scrape jobs and the scrape result cache (docs/architecture.md "Read models").
import type { PageError, PageMetadata, PayloadRef, Timings } from '../../domain/events/common.js';
import type { ChangeTrackingReport } from '../../domain/change-tracking.js';
import type { ResolvedScrapeOptions } from '../../domain/scrape-options.js';
import { pickDefined, type CollectionDef } from './collection.js';

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

export function toScrapeSummary(doc: ScrapeJobDoc): ScrapeJobSummary {
  return pickDefined(doc, ['id', 'url', 'status', 'fromCache', 'createdAt', 'completedAt']);
}

export const SCRAPE_JOBS: CollectionDef<ScrapeJobDoc, ScrapeJobSummary> = {
  name: 'scrape_jobs',
  list: { owner: 'apiKeyId', createdAt: 'createdAt', omit: ['content', 'options'], toListed: toScrapeSummary, mongoIndex: 'by_owner' },
};

export const SCRAPE_CACHE: CollectionDef<ScrapeCacheDoc> = { name: 'scrape_cache' };
