// Response schemas of the crawl endpoints (spec "Crawl"): they document the API (OpenAPI)
// and drive serialization.
import { Type, type Static } from '@sinclair/typebox';
import { DocumentView, ExtractedJson, WaitMs } from '../scrape/schemas.js';
import { StringEnum } from '../../../../shared/src/scrape-options.js';
import { ChangeTrackingReport } from '../../../../shared/src/change-tracking.js';

export const CrawlStatus = StringEnum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const);

export const CrawlCreated = Type.Object({ id: Type.String(), status: Type.Literal('PENDING') });
export const CrawlCancelled = Type.Object({ id: Type.String(), status: Type.Literal('CANCELLED') });

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
  status: CrawlStatus,
  startUrl: Type.String(),
  totalUrls: Type.Integer(),
  completedUrls: Type.Integer(),
  failedUrls: Type.Integer(),
  createdAt: Type.String(),
};

export const CrawlJobView = Type.Object({
  ...Counters,
  startedAt: Type.Optional(Type.String()),
  completedAt: Type.Optional(Type.String()),
  data: Type.Optional(Type.Array(CrawlPageEntry)),
  next: Type.Optional(Type.String({ description: 'URL of the next part of `data`, when it did not fit in one response' })),
  error: Type.Optional(Type.Object({ message: Type.String() })),
  slowed: Type.Optional(Type.Object({ host: Type.String(), reason: Type.String(), until: Type.String() }, {
    description: 'While the crawl runs: its start host is slowed for every fetcher after a 429 or 503 (Retry-After honoured), why, and until when at least',
  })),
  blockedHosts: Type.Optional(Type.Array(Type.Object({ host: Type.String(), refusals: Type.Integer(), blockedAt: Type.String() }), {
    description: 'Hosts the crawl stopped asking after they answered bot challenges or block pages in a row (docs/api.md "Page outcome")',
  })),
});
export type CrawlJobView = Static<typeof CrawlJobView>;

export const CrawlListItem = Type.Object(Counters);
export type CrawlListItem = Static<typeof CrawlListItem>;

export const CrawlGetQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$', description: 'From a previous response\'s `next`' })),
    waitMs: Type.Optional(WaitMs),
  },
  { additionalProperties: false },
);
