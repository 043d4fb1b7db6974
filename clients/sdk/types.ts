// The SDK's types: the API contract's (shared/src/api), under the names SDK users know.
// Type-only imports: nothing of the contract is loaded at run time, so the compiled SDK
// needs only fetch. A field renamed in the contract breaks this build; a route or field
// the live server answers differently breaks test/clients/openapi-drift.test.ts.
import type {
  BatchCreated as BatchCreatedView, BatchJobView, BatchListItem as BatchListItemView, BatchPageEntry, BatchScrapeRequest as BatchScrapeRequestBody,
  ChangeHistory as ChangeHistoryView, CrawlCreated as CrawlCreatedView, CrawlJobView, CrawlListItem as CrawlListItemView, CrawlPageEntry,
  CrawlRequest as CrawlRequestBody, EventView, EventsView, JobCancelled as JobCancelledView, KeyStandingView, MapRequest as MapRequestBody,
  MapResult as MapResultView, Observation, ScrapeCreated as ScrapeCreatedView, ScrapeJobView, ScrapeListItem as ScrapeListItemView,
  ScrapeOptions as ScrapeOptionsBody, ScrapeRequest as ScrapeRequestBody, WebhookPayload as WebhookPayloadBody, WebhookSecretView,
  RecrawlBody, RecrawlCreated as RecrawlCreatedView, RecrawlReport as RecrawlReportView, MonitorCreateBody, MonitorView, MonitorSummary,
} from '../../shared/src/api/index.js';

export type ScrapeRequest = ScrapeRequestBody;
export type ScrapeOptions = ScrapeOptionsBody;
export type CrawlRequest = CrawlRequestBody;
export type BatchScrapeRequest = BatchScrapeRequestBody;
export type MapRequest = MapRequestBody;
export type MapResult = MapResultView;

export type ScrapeJob = ScrapeJobView;
export type ScrapeCreated = ScrapeCreatedView;
export type ScrapeListItem = ScrapeListItemView;
export type CrawlJob = CrawlJobView;
export type CrawlListItem = CrawlListItemView;
export type CrawlPage = CrawlPageEntry;
export type CrawlCreated = CrawlCreatedView;
export type JobCancelled = JobCancelledView;
export type BatchJob = BatchJobView;
export type BatchListItem = BatchListItemView;
export type BatchPage = BatchPageEntry;
export type BatchCreated = BatchCreatedView;
export type WebhookSecret = WebhookSecretView;
/** A URL's change history for the key (GET /api/v1/changes). */
export type ChangeHistory = ChangeHistoryView;
export type UrlObservation = Observation;
/** The caller's key: plan, limits and what is left of them (GET /api/v1/key). */
export type KeyStanding = KeyStandingView;
/** POST /api/v1/crawl/:id/recrawl and its report (docs/api.md "Recrawl"). */
export type RecrawlRequest = RecrawlBody;
export type RecrawlCreated = RecrawlCreatedView;
export type RecrawlReport = RecrawlReportView;
/** Monitors (docs/api.md "Monitors"). */
export type MonitorRequest = MonitorCreateBody;
export type Monitor = MonitorView;
export type MonitorListItem = MonitorSummary;

export type JobKind = 'scrape' | 'crawl' | 'batch';
export type EventKind = JobKind | 'map';

/** One event of a job's history (GET /api/v1/<kind>/:id/events). */
export type JobEvent = EventView;
export type JobEventsPage = EventsView;

/** The body of a webhook delivery (docs/api.md "Webhooks"). */
export type WebhookPayload = WebhookPayloadBody;

/** A list item of jobs.list() when it merges every kind: the kind is added. */
export type AnyJobListItem =
  | (ScrapeListItem & { kind: 'scrape' })
  | (CrawlListItem & { kind: 'crawl' })
  | (BatchListItem & { kind: 'batch' });
