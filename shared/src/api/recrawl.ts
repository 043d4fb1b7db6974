// Schemas of the recrawl endpoints (docs/api.md "Recrawl"): the request, the created job and
// the report. They validate the input and document the API (OpenAPI).
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../domain/scrape-options.js';
import { JobStatusSchema } from './common.js';

export const RecrawlBody = Type.Object({
  revalidate: Type.Optional(Type.Boolean({
    default: false,
    description: 'Load every page, even those whose sitemap lastmod is not newer than their last observation (which a recrawl otherwise skips)',
  })),
}, { additionalProperties: false });
export type RecrawlBody = Static<typeof RecrawlBody>;

export const RecrawlCreated = Type.Object({
  id: Type.String({ description: 'The new crawl (an ordinary crawl: GET /api/v1/crawl/:id)' }),
  status: Type.Literal('PENDING'),
  recrawlOf: Type.String(),
});

export type RecrawlCreated = Static<typeof RecrawlCreated>;

export const RECRAWL_PAGE_STATUSES = ['new', 'same', 'changed', 'removed'] as const;

export const RecrawlReport = Type.Object({
  id: Type.String(),
  recrawlOf: Type.String(),
  status: JobStatusSchema,
  /** Until the recrawl is finished, pages are those finished so far and none is `removed` for being unlinked. */
  complete: Type.Boolean({ description: 'true once the recrawl has finished: only then are unlinked pages reported removed' }),
  pages: Type.Array(Type.Object({
    url: Type.String(),
    status: StringEnum(RECRAWL_PAGE_STATUSES),
    notModified: Type.Optional(Type.Boolean({ description: 'The server answered 304: completed from the stored page' })),
    reason: Type.Optional(StringEnum(['not-linked', 'gone'] as const, { description: 'Why removed: no longer linked (nor in the sitemap), or answering 404/410' })),
  })),
  unchangedUrls: Type.Array(Type.String(), { description: 'Pages skipped because their sitemap lastmod is not newer than their last observation' }),
  unlinkedUrls: Type.Array(Type.String(), { description: 'Pages of the crawl repeated that are no longer linked but still in the sitemap: not loaded, not removed' }),
  failedUrls: Type.Array(Type.String(), { description: 'Pages of the recrawl that failed (other than 404/410)' }),
  counts: Type.Object({
    new: Type.Integer(), same: Type.Integer(), changed: Type.Integer(), removed: Type.Integer(), unchanged: Type.Integer(), failed: Type.Integer(),
  }),
});
export type RecrawlReport = Static<typeof RecrawlReport>;
