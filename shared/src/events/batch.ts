// Batch scrape events. Subjects (shared/src/subjects.ts):
//
//   trawl.batch.<batchId>.job.<event>        batch_requested (gateway), batch_started,
//                                            batch_cancel_requested (gateway), batch_finished
//   trawl.batch.<batchId>.<pageKey>.<event>  page_requested (frontier) -> page_started,
//                                            page_fetched -> page_completed | page_failed (the
//                                            one page pipeline)
//   trawl.batch.<batchId>.webhook.<event>    webhook_requested (frontier, type batch.*), then
//                                            the dispatcher's attempts (events of crawl.ts)
//
// The gateway records the request with its pages already deduplicated (pageKey =
// urlKeyHash(normalizeUrl(url).key), as for crawl pages); the frontier's batch worker
// requests them a few at a time with `once` and records the end.
import { Type, type Static } from '@sinclair/typebox';
import { ResolvedScrapeOptions } from '../scrape-options.js';
import { Timestamp } from './common.js';

const Count = Type.Integer({ minimum: 0 });

export const BatchRequested = Type.Object({
  /** The unique pages in request order (a URL given twice is one page). */
  pages: Type.Array(Type.Object({ url: Type.String(), pageKey: Type.String() }), { minItems: 1 }),
  /** URLs in the request, duplicates included (observability). */
  requestedUrls: Count,
  /** URLs left out with ignoreInvalidUrls (observability). */
  invalidUrls: Count,
  options: ResolvedScrapeOptions,
  webhookUrl: Type.Optional(Type.String()),
  apiKeyId: Type.String(),
  requestedAt: Timestamp,
});

export const BatchStarted = Type.Object({
  startedAt: Timestamp,
});

export const BatchCancelRequested = Type.Object({
  requestedAt: Timestamp,
});

export const BATCH_FINAL_STATUSES = ['COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type BatchFinalStatus = (typeof BATCH_FINAL_STATUSES)[number];

export const BatchFinished = Type.Object({
  status: Type.Union(BATCH_FINAL_STATUSES.map((s) => Type.Literal(s))),
  totalUrls: Count,
  completedUrls: Count,
  failedUrls: Count,
  /** Why a batch FAILED (every page failed, or the frontier gave up). */
  reason: Type.Optional(Type.String()),
  finishedAt: Timestamp,
});

export const batchEvents = {
  batch_requested: BatchRequested,
  batch_started: BatchStarted,
  batch_cancel_requested: BatchCancelRequested,
  batch_finished: BatchFinished,
} as const;

export type BatchRequested = Static<typeof BatchRequested>;
export type BatchStarted = Static<typeof BatchStarted>;
export type BatchCancelRequested = Static<typeof BatchCancelRequested>;
export type BatchFinished = Static<typeof BatchFinished>;
