// Multi-page job events: crawl and batch scrape are one kind of job with two policies
// (services/crawler-frontier/src/job/), one lifecycle under names that carry the kind (the
// names and payloads on the log never change: old logs replay). Subjects and payloads:
// docs/architecture.md "Multi-page jobs". A page's key derives from its normalized URL and
// the frontier appends with `once`, so the log itself refuses a second scrape of a page.
import { Type, type Static } from '@sinclair/typebox';
import { CrawlAsked } from '../crawl-options.js';
import { ResolvedScrapeOptions } from '../scrape-options.js';
import { Timestamp } from './common.js';
import { FINAL_JOB_STATUSES, type FinalJobStatus } from '../../api/lifecycle.js';

const Count = Type.Integer({ minimum: 0 });

export const MULTI_PAGE_KINDS = ['crawl', 'batch'] as const;
export type MultiPageKind = (typeof MULTI_PAGE_KINDS)[number];

/** The subject part of job-level and webhook events. */
export const JOB_PART = 'job';
export const WEBHOOK_PART = 'webhook';

/** How a crawl goes from its start URL (as resolved; a monitor's crawl runs keep the same). */
export const CrawlPlan = Type.Object({
  maxDepth: Type.Integer({ minimum: 1 }),
  limit: Type.Integer({ minimum: 1 }),
  includePaths: Type.Array(Type.String()),
  excludePaths: Type.Array(Type.String()),
  allowExternalLinks: Type.Boolean(),
  ignoreRobots: Type.Boolean(),
});
export type CrawlPlan = Static<typeof CrawlPlan>;

export const CrawlRequested = Type.Object({
  startUrl: Type.String(),
  ...CrawlPlan.properties,
  scrapeOptions: ResolvedScrapeOptions,
  webhookUrl: Type.Optional(Type.String()),
  apiKeyId: Type.String(),
  requestedAt: Timestamp,
  /**
   * The crawl's fields as posted, before defaults and the quota's grant (`limit` above is
   * what was granted). Absent on events from before it was kept: their request is unknown.
   */
  asked: Type.Optional(CrawlAsked),
});

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

export const JobStarted = Type.Object({
  startedAt: Timestamp,
});

export const JobCancelRequested = Type.Object({
  requestedAt: Timestamp,
});

export type JobFinalStatus = FinalJobStatus;

export const JobFinished = Type.Object({
  status: Type.Union(FINAL_JOB_STATUSES.map((s) => Type.Literal(s))),
  totalUrls: Count,
  completedUrls: Count,
  failedUrls: Count,
  /** Why the job FAILED (a crawl's start page, a batch whose every page failed, the frontier gave up). */
  reason: Type.Optional(Type.String()),
  finishedAt: Timestamp,
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

export const WEBHOOK_EVENT_TYPES = [
  'crawl.completed', 'crawl.failed', 'crawl.cancelled', 'crawl.host_blocked',
  'batch.completed', 'batch.failed', 'batch.cancelled',
  // Monitors (shared/src/domain/events/monitor.ts): a run's changes.
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

/** The lifecycle events of one kind of job, under the kind's names. */
function lifecycle<K extends MultiPageKind, R extends typeof CrawlRequested | typeof BatchRequested>(kind: K, requested: R) {
  return {
    [`${kind}_requested`]: requested,
    [`${kind}_started`]: JobStarted,
    [`${kind}_cancel_requested`]: JobCancelRequested,
    [`${kind}_finished`]: JobFinished,
  } as { [N in `${K}_requested`]: R } & { [N in `${K}_started`]: typeof JobStarted }
    & { [N in `${K}_cancel_requested`]: typeof JobCancelRequested } & { [N in `${K}_finished`]: typeof JobFinished };
}

export const jobEvents = {
  ...lifecycle('crawl', CrawlRequested),
  ...lifecycle('batch', BatchRequested),
  crawl_links_discovered: CrawlLinksDiscovered,
  crawl_host_blocked: CrawlHostBlocked,
  webhook_requested: WebhookRequested,
  webhook_attempted: WebhookAttempted,
  webhook_delivered: WebhookDelivered,
  webhook_abandoned: WebhookAbandoned,
} as const;

export type CrawlRequested = Static<typeof CrawlRequested>;
export type BatchRequested = Static<typeof BatchRequested>;
export type JobStarted = Static<typeof JobStarted>;
export type JobCancelRequested = Static<typeof JobCancelRequested>;
export type JobFinished = Static<typeof JobFinished>;
export type CrawlLinksDiscovered = Static<typeof CrawlLinksDiscovered>;
export type CrawlHostBlocked = Static<typeof CrawlHostBlocked>;
export type WebhookRequested = Static<typeof WebhookRequested>;
export type WebhookAttempted = Static<typeof WebhookAttempted>;
export type WebhookDelivered = Static<typeof WebhookDelivered>;
export type WebhookAbandoned = Static<typeof WebhookAbandoned>;
