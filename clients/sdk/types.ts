// The SDK's types, derived from the gateway's TypeBox schemas (type-only imports: nothing of
// the server is loaded at run time, so the compiled SDK needs only fetch). A field renamed
// in a schema breaks this build; a route or field that the live server answers differently
// breaks test/clients/openapi-drift.test.ts.
import type { Static } from '@sinclair/typebox';
import type { ScrapeRequestSchema, ScrapeOptionsSchema } from '../../shared/src/scrape-options.js';
import type { CrawlRequestSchema } from '../../shared/src/crawl-options.js';
import type { BatchScrapeRequestSchema } from '../../shared/src/batch-options.js';
import type { MapRequestSchema, MapResultSchema } from '../../services/gateway/src/map/service.js';
import type {
  ScrapeJobView as ScrapeJobViewSchema, ScrapeCreated as ScrapeCreatedSchema, ScrapeListItem as ScrapeListItemSchema,
} from '../../services/gateway/src/scrape/schemas.js';
import type {
  CrawlJobView as CrawlJobViewSchema, CrawlListItem as CrawlListItemSchema, CrawlPageEntry as CrawlPageEntrySchema,
  CrawlCreated as CrawlCreatedSchema, CrawlCancelled as CrawlCancelledSchema,
} from '../../services/gateway/src/crawl/schemas.js';
import type {
  BatchJobView as BatchJobViewSchema, BatchListItem as BatchListItemSchema, BatchPageEntry as BatchPageEntrySchema,
  BatchCreated as BatchCreatedSchema,
} from '../../services/gateway/src/batch/schemas.js';
import type { WebhookSecretView as WebhookSecretViewSchema } from '../../services/gateway/src/webhooks/schemas.js';
import type { ChangeHistory as ChangeHistorySchema, Observation as ObservationSchema } from '../../services/gateway/src/routes/changes.js';
import type { KeyStandingView as KeyStandingSchema } from '../../services/gateway/src/routes/key.js';
import type { RecrawlBody as RecrawlBodySchema, RecrawlCreated as RecrawlCreatedSchema, RecrawlReport as RecrawlReportSchema } from '../../services/gateway/src/recrawl/schemas.js';
import type {
  MonitorCreateBody as MonitorCreateSchema, MonitorView as MonitorViewSchema, MonitorSummary as MonitorSummarySchema,
} from '../../services/gateway/src/monitors/schemas.js';

export type ScrapeRequest = Static<typeof ScrapeRequestSchema>;
export type ScrapeOptions = Static<typeof ScrapeOptionsSchema>;
export type CrawlRequest = Static<typeof CrawlRequestSchema>;
export type BatchScrapeRequest = Static<typeof BatchScrapeRequestSchema>;
export type MapRequest = Static<typeof MapRequestSchema>;
export type MapResult = Static<typeof MapResultSchema>;

export type ScrapeJob = Static<typeof ScrapeJobViewSchema>;
export type ScrapeCreated = Static<typeof ScrapeCreatedSchema>;
export type ScrapeListItem = Static<typeof ScrapeListItemSchema>;
export type CrawlJob = Static<typeof CrawlJobViewSchema>;
export type CrawlListItem = Static<typeof CrawlListItemSchema>;
export type CrawlPage = Static<typeof CrawlPageEntrySchema>;
export type CrawlCreated = Static<typeof CrawlCreatedSchema>;
export type JobCancelled = Static<typeof CrawlCancelledSchema>;
export type BatchJob = Static<typeof BatchJobViewSchema>;
export type BatchListItem = Static<typeof BatchListItemSchema>;
export type BatchPage = Static<typeof BatchPageEntrySchema>;
export type BatchCreated = Static<typeof BatchCreatedSchema>;
export type WebhookSecret = Static<typeof WebhookSecretViewSchema>;
/** A URL's change history for the key (GET /api/v1/changes). */
export type ChangeHistory = Static<typeof ChangeHistorySchema>;
export type UrlObservation = Static<typeof ObservationSchema>;
/** The caller's key: plan, limits and what is left of them (GET /api/v1/key). */
export type KeyStanding = Static<typeof KeyStandingSchema>;
/** POST /api/v1/crawl/:id/recrawl and its report (docs/api.md "Recrawl"). */
export type RecrawlRequest = Static<typeof RecrawlBodySchema>;
export type RecrawlCreated = Static<typeof RecrawlCreatedSchema>;
export type RecrawlReport = Static<typeof RecrawlReportSchema>;
/** Monitors (docs/api.md "Monitors"). */
export type MonitorRequest = Static<typeof MonitorCreateSchema>;
export type Monitor = Static<typeof MonitorViewSchema>;
export type MonitorListItem = Static<typeof MonitorSummarySchema>;

export type JobKind = 'scrape' | 'crawl' | 'batch';
export type EventKind = JobKind | 'map';

/** One event of a job's history (GET /api/v1/<kind>/:id/events; its schema is not exported by the gateway). */
export interface JobEvent {
  seq: number;
  event: string;
  part: string;
  occurredAt: string;
  data: unknown;
}
export interface JobEventsPage {
  id: string;
  kind: string;
  events: JobEvent[];
  next?: string;
}

/** The body of a webhook delivery (docs/api.md "Webhooks"). */
export interface WebhookPayload {
  event: `${'crawl' | 'batch'}.${'completed' | 'failed' | 'cancelled'}`;
  data: { id: string; status: string; startUrl?: string; totalUrls: number; completedUrls: number; failedUrls: number };
  timestamp: string;
}

/** A list item of jobs.list() when it merges every kind: the kind is added. */
export type AnyJobListItem =
  | (ScrapeListItem & { kind: 'scrape' })
  | (CrawlListItem & { kind: 'crawl' })
  | (BatchListItem & { kind: 'batch' });
