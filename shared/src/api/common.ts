// Parameters and answers every route shares: path ids, paging, long-poll waits, job
// statuses and the RFC 7807 problem body.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../domain/string-enum.js';
import { JOB_STATUSES, MAX_WAIT_MS } from './lifecycle.js';

export const JobStatusSchema = StringEnum(JOB_STATUSES);
export type JobStatusSchema = Static<typeof JobStatusSchema>;
/** A scrape job's statuses (it cannot be cancelled). */
export const ScrapeStatusSchema = StringEnum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] as const);
export type ScrapeStatusSchema = Static<typeof ScrapeStatusSchema>;

/** `waitMs` of a GET (query) or of POST /scrape (body): long-poll up to this long (docs/api.md "Waiting"). */
export const WaitMs = Type.Integer({
  minimum: 0, maximum: MAX_WAIT_MS, default: 0,
  description: 'Hold the answer until the job is finished (COMPLETED, FAILED or CANCELLED), at most this many milliseconds; 0 answers at once',
});
export type WaitMs = Static<typeof WaitMs>;

/** The query of a job's GET: how long to wait for it to finish. */
export const WaitQuery = Type.Object({ waitMs: Type.Optional(WaitMs) }, { additionalProperties: false });
export type WaitQuery = Static<typeof WaitQuery>;

export const Pagination = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    offset: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }),
  },
  { additionalProperties: false },
);
export type Pagination = Static<typeof Pagination>;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export type IdParams = Static<typeof IdParams>;

/** An RFC 7807 problem: every error answer of the API. */
export const ProblemSchema = Type.Object({
  type: Type.String(), title: Type.String(), status: Type.Integer(), detail: Type.String(), code: Type.String(), requestId: Type.String(),
});
export type Problem = Static<typeof ProblemSchema>;

// The paths of a job's stored payloads (payload-urls.ts builds them).
const JobId = IdParams.properties.id;
/** /scrape/:id/screenshots/:index: a screenshot action's image. */
export const ScrapeActionParams = Type.Object({ id: JobId, index: Type.Integer({ minimum: 0, maximum: 1000 }) });
export type ScrapeActionParams = Static<typeof ScrapeActionParams>;
/** /batch/scrape/:id/pages/:index/…: a page by its index in `data`. */
export const BatchPageParams = Type.Object({ id: JobId, index: Type.Integer({ minimum: 0, maximum: 99 }) });
export type BatchPageParams = Static<typeof BatchPageParams>;
export const BatchPageActionParams = Type.Object({ ...BatchPageParams.properties, action: Type.Integer({ minimum: 0, maximum: 1000 }) });
export type BatchPageActionParams = Static<typeof BatchPageActionParams>;
/** /crawl/:id/pages/:pageKey/document: a page by its key (its part in the log). */
export const CrawlPageParams = Type.Object({ id: JobId, pageKey: Type.String({ minLength: 1, maxLength: 200 }) });
export type CrawlPageParams = Static<typeof CrawlPageParams>;

/** GET of a multi-page job: the cursor from a previous answer's `next` (up to `cursorDigits` digits) and a long-poll. */
export const jobGetQuery = (cursorDigits: number) => Type.Object(
  {
    cursor: Type.Optional(Type.String({ pattern: `^[0-9]{1,${cursorDigits}}$`, description: 'From a previous response\'s `next`' })),
    waitMs: Type.Optional(WaitMs),
  },
  { additionalProperties: false },
);
