// The batch scrape answers: they document the API (OpenAPI), drive the gateway's
// serialization and type the SDK. Counters and states are named as for crawls; page
// entries as scrape results. The request is shared/src/domain/batch-options.ts.
import { Type, type Static } from '@sinclair/typebox';
import { jobGetQuery, JobStatusSchema } from './common.js';
import { PageContentFields, PageError } from './scrape.js';

export const BatchCreated = Type.Object({
  id: Type.String(),
  status: Type.Literal('PENDING'),
  invalidUrls: Type.Optional(Type.Array(Type.String(), { description: 'With ignoreInvalidUrls: the URLs left out, as given' })),
});
export type BatchCreated = Static<typeof BatchCreated>;

export const BatchPageEntry = Type.Object({
  url: Type.String(),
  status: JobStatusSchema,
  ...PageContentFields,
  error: Type.Optional(PageError),
});
export type BatchPageEntry = Static<typeof BatchPageEntry>;

const Counters = {
  id: Type.String(),
  status: JobStatusSchema,
  totalUrls: Type.Integer({ description: 'Unique pages of the batch (a URL given twice is one page)' }),
  completedUrls: Type.Integer(),
  failedUrls: Type.Integer(),
  createdAt: Type.String(),
};

export const BatchJobView = Type.Object({
  ...Counters,
  startedAt: Type.Optional(Type.String()),
  completedAt: Type.Optional(Type.String()),
  data: Type.Array(BatchPageEntry, { description: 'Every page in request order, with its status; content once COMPLETED' }),
  next: Type.Optional(Type.String({ description: 'URL of the next part of `data`, when it did not fit in one response' })),
  error: Type.Optional(Type.Object({ message: Type.String() })),
});
export type BatchJobView = Static<typeof BatchJobView>;

export const BatchListItem = Type.Object({ ...Counters, completedAt: Type.Optional(Type.String()) });
export type BatchListItem = Static<typeof BatchListItem>;

export const BatchGetQuery = jobGetQuery(4);
export type BatchGetQuery = Static<typeof BatchGetQuery>;
