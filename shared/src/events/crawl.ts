// Crawl events and webhook delivery events. Subjects (shared/src/subjects.ts):
//
//   trawl.crawl.<crawlId>.job.<event>        crawl_requested (gateway), crawl_started,
//                                            crawl_cancel_requested (gateway), crawl_finished
//   trawl.crawl.<crawlId>.<pageKey>.<event>  page_requested (frontier) -> page_started,
//                                            page_fetched -> page_completed | page_failed (the
//                                            one page pipeline), crawl_links_discovered (frontier)
//   trawl.crawl.<crawlId>.webhook.<event>    webhook_requested (frontier), webhook_attempted,
//                                            webhook_delivered | webhook_abandoned (dispatcher)
//
// pageKey = urlKeyHash(normalizeUrl(url).key): a page found twice names the same subjects,
// and the frontier appends page_requested and crawl_links_discovered with `once`, so the
// log itself refuses a second scrape of a page or a second processing of its links.
import { Type, type Static } from '@sinclair/typebox';
import { ResolvedScrapeOptions } from '../scrape-options.js';
import { Timestamp } from './common.js';

const Count = Type.Integer({ minimum: 0 });

export const CrawlRequested = Type.Object({
  startUrl: Type.String(),
  maxDepth: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  includePaths: Type.Array(Type.String()),
  excludePaths: Type.Array(Type.String()),
  allowExternalLinks: Type.Boolean(),
  ignoreRobots: Type.Boolean(),
  scrapeOptions: ResolvedScrapeOptions,
  webhookUrl: Type.Optional(Type.String()),
  apiKeyId: Type.String(),
  requestedAt: Timestamp,
});

export const CrawlStarted = Type.Object({
  startedAt: Timestamp,
});

export const CRAWL_SKIP_REASONS = ['duplicate', 'depth', 'external', 'pattern', 'robots', 'limit', 'invalid', 'blocked-host'] as const;
export type CrawlSkipReason = (typeof CRAWL_SKIP_REASONS)[number];

/** The frontier's verdict on one completed page's links: which join the crawl. */
export const CrawlLinksDiscovered = Type.Object({
  /** Depth of the accepted links (the page's depth + 1). */
  depth: Type.Integer({ minimum: 1 }),
  /** Accepted URLs in discovery order (fragment removed), at most the crawl's limit. */
  urls: Type.Array(Type.String()),
  /** Links left out, by reason (observability only). */
  skipped: Type.Record(Type.String(), Count),
  discoveredAt: Timestamp,
});

/**
 * The crawl stopped asking a host that refused it (bot challenges or block pages,
 * HOST_BLOCK_AFTER in a row; services/crawler-frontier/src/crawl/host-blocks.ts). Part: a
 * hash of the host (hostPart), so it is recorded once per host.
 */
export const CrawlHostBlocked = Type.Object({
  host: Type.String(),
  /** Refusals in a row when the crawl stopped asking. */
  refusals: Count,
  blockedAt: Timestamp,
});

export const CrawlCancelRequested = Type.Object({
  requestedAt: Timestamp,
});

export const CRAWL_FINAL_STATUSES = ['COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type CrawlFinalStatus = (typeof CRAWL_FINAL_STATUSES)[number];

export const CrawlFinished = Type.Object({
  status: Type.Union(CRAWL_FINAL_STATUSES.map((s) => Type.Literal(s))),
  totalUrls: Count,
  completedUrls: Count,
  failedUrls: Count,
  /** Why a crawl FAILED (the start page's error). */
  reason: Type.Optional(Type.String()),
  finishedAt: Timestamp,
});

export const WEBHOOK_EVENT_TYPES = [
  'crawl.completed', 'crawl.failed', 'crawl.cancelled', 'crawl.host_blocked',
  // Batch scrape (shared/src/events/batch.ts): the same delivery pipeline.
  'batch.completed', 'batch.failed', 'batch.cancelled',
  // Monitors (shared/src/events/monitor.ts): a run's changes.
  'monitor.changed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WebhookRequested = Type.Object({
  url: Type.String(),
  type: Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t))),
  /** The exact JSON body sent on every attempt (signed as is). */
  body: Type.String(),
  /** The `webhook-id` header: the same on every attempt, so receivers can deduplicate. */
  webhookId: Type.String(),
  apiKeyId: Type.String(),
  requestedAt: Timestamp,
});

export const WebhookAttempted = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  /** HTTP status of the answer, when there was one. */
  status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
  durationMs: Count,
  /** Delay before the next attempt; absent when this attempt was the last one. */
  nextAttemptInMs: Type.Optional(Count),
  attemptedAt: Timestamp,
});

export const WebhookDelivered = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  status: Type.Integer(),
  deliveredAt: Timestamp,
});

export const WebhookAbandoned = Type.Object({
  attempts: Count,
  reason: Type.String(),
  abandonedAt: Timestamp,
});

export const webhookEvents = {
  webhook_requested: WebhookRequested,
  webhook_attempted: WebhookAttempted,
  webhook_delivered: WebhookDelivered,
  webhook_abandoned: WebhookAbandoned,
} as const;

export const crawlEvents = {
  crawl_requested: CrawlRequested,
  crawl_started: CrawlStarted,
  crawl_links_discovered: CrawlLinksDiscovered,
  crawl_cancel_requested: CrawlCancelRequested,
  crawl_host_blocked: CrawlHostBlocked,
  crawl_finished: CrawlFinished,
  ...webhookEvents,
} as const;

export type CrawlRequested = Static<typeof CrawlRequested>;
export type CrawlStarted = Static<typeof CrawlStarted>;
export type CrawlLinksDiscovered = Static<typeof CrawlLinksDiscovered>;
export type CrawlCancelRequested = Static<typeof CrawlCancelRequested>;
export type CrawlFinished = Static<typeof CrawlFinished>;
export type CrawlHostBlocked = Static<typeof CrawlHostBlocked>;
export type WebhookRequested = Static<typeof WebhookRequested>;
export type WebhookAttempted = Static<typeof WebhookAttempted>;
export type WebhookDelivered = Static<typeof WebhookDelivered>;
export type WebhookAbandoned = Static<typeof WebhookAbandoned>;

/** The subject part of job-level and webhook events. */
export const JOB_PART = 'job';
export const WEBHOOK_PART = 'webhook';
