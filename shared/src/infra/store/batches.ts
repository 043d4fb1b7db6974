// Batch scrapes (docs/architecture.md "Batch read models").
// Two read models: one document per batch holding its status, counters and every page's
// state in request order (at most 100 pages, no content), and one document per completed
// page holding its content. The batch document decides what counts: a page's first result,
// recorded before a cancel; pages without a result when the batch is cancelled are CANCELLED.
import type { PageError, PageMetadata } from '../../domain/events/common.js';
import type { ResolvedScrapeOptions } from '../../domain/scrape-options.js';
import { pickDefined, type CollectionDef } from './collection.js';
import type { PageContent } from './scrapes.js';

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


export function toBatchSummary(doc: BatchJobDoc): BatchJobSummary {
  return pickDefined(doc, ['id', 'status', 'totalUrls', 'completedUrls', 'failedUrls', 'createdAt', 'completedAt']);
}

export const BATCH_JOBS: CollectionDef<BatchJobDoc, BatchJobSummary> = {
  name: 'batch_jobs',
  list: { owner: 'apiKeyId', createdAt: 'createdAt', omit: ['pages', 'options'], toListed: toBatchSummary, mongoIndex: 'by_owner' },
};

/** Batch pages: keyed by (batch, page key). */
export interface BatchPageStore {
  getBatchPage(batchId: string, pageKey: string): Promise<BatchPageDoc | null>;
  saveBatchPage(doc: BatchPageDoc): Promise<void>;
  /** The batch's page documents among `pageKeys` (any order; missing ones left out). */
  getBatchPages(batchId: string, pageKeys: readonly string[]): Promise<BatchPageDoc[]>;
}
