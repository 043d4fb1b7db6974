// The crawl answers (spec "Crawl"): they document the API (OpenAPI), drive the gateway's
// serialization and type the SDK. The request is shared/src/domain/crawl-options.ts.
import { Type, type Static } from '@sinclair/typebox';
import { ChangeTrackingReport } from '../domain/change-tracking.js';
import { jobGetQuery, JobStatusSchema } from './common.js';
import { DocumentView, ExtractedJson } from './scrape.js';

export const CrawlCreated = Type.Object({ id: Type.String(), status: Type.Literal('PENDING') });
export type CrawlCreated = Static<typeof CrawlCreated>;
/** The answer of a crawl's or a batch's DELETE. */
export const JobCancelled = Type.Object({ id: Type.String(), status: Type.Literal('CANCELLED') });
export type JobCancelled = Static<typeof JobCancelled>;

export const CrawlPageEntry = Type.Object({
  url: Type.String(),
  depth: Type.Integer(),
  markdown: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  rawHtml: Type.Optional(Type.String()),
  json: Type.Optional(ExtractedJson),
  changeTracking: Type.Optional(ChangeTrackingReport),
  document: Type.Optional(DocumentView),
  metadata: Type.Object({ title: Type.String(), description: Type.String() }, { additionalProperties: true }),
  links: Type.Array(Type.String()),
});
export type CrawlPageEntry = Static<typeof CrawlPageEntry>;

const Counters = {
  id: Type.String(),
  status: JobStatusSchema,
  startUrl: Type.String(),
  totalUrls: Type.Integer(),
  completedUrls: Type.Integer(),
  failedUrls: Type.Integer(),
  createdAt: Type.String(),
};

export const BlockedHost = Type.Object({ host: Type.String(), refusals: Type.Integer(), blockedAt: Type.String() });
export type BlockedHost = Static<typeof BlockedHost>;

export const CrawlJobView = Type.Object({
  ...Counters,
  startedAt: Type.Optional(Type.String()),
  completedAt: Type.Optional(Type.String()),
  data: Type.Optional(Type.Array(CrawlPageEntry)),
  next: Type.Optional(Type.String({ description: 'URL of the next part of `data`, when it did not fit in one response' })),
  error: Type.Optional(Type.Object({ message: Type.String() })),
  slowed: Type.Optional(Type.Object({ host: Type.String(), reason: Type.String(), until: Type.String() }, {
    description: 'While the crawl runs: its start host is slowed for every fetcher after a 429 or 503 (Retry-After honoured) or by its robots.txt Crawl-delay, why, and until when at least',
  })),
  blockedHosts: Type.Optional(Type.Array(BlockedHost, {
    description: 'Hosts the crawl stopped asking after they answered bot challenges or block pages in a row (docs/api.md "Page outcome")',
  })),
});
export type CrawlJobView = Static<typeof CrawlJobView>;

export const CrawlListItem = Type.Object(Counters);
export type CrawlListItem = Static<typeof CrawlListItem>;

export const CrawlGetQuery = jobGetQuery(15);
export type CrawlGetQuery = Static<typeof CrawlGetQuery>;
