// GET /changes (docs/api.md "Change tracking"): a URL's observations for the caller's key.
import { Type, type Static } from '@sinclair/typebox';
import { CHANGE_STATUSES } from '../domain/change-tracking.js';
import { StringEnum } from '../domain/string-enum.js';

export const ChangesQuery = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 8192, description: 'The page, as scraped (compared in its normalized form)' }),
    tag: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'A changeTrackingOptions.tag history; without it, the URL\'s own' })),
    after: Type.Integer({ minimum: 0, default: 0, description: 'stream sequence to continue after (the `next` link carries it)' }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  },
  { additionalProperties: false },
);
export type ChangesQuery = Static<typeof ChangesQuery>;

export const Observation = Type.Object({
  seq: Type.Integer(),
  observedAt: Type.String(),
  changeStatus: StringEnum(CHANGE_STATUSES),
  statusCode: Type.Integer(),
  jobId: Type.String(),
  jobKind: StringEnum(['scrape', 'crawl', 'batch'] as const),
  markdownBytes: Type.Optional(Type.Integer()),
  optionsChanged: Type.Optional(Type.Boolean()),
});
export type Observation = Static<typeof Observation>;

export const ChangeHistory = Type.Object({
  url: Type.String(),
  tag: Type.Optional(Type.String()),
  observations: Type.Array(Observation),
  next: Type.Optional(Type.String()),
});
export type ChangeHistory = Static<typeof ChangeHistory>;
