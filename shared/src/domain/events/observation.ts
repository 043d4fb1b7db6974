// Observations (change tracking, docs/architecture.md "Observations"): every completed page
// with markdown is one observation of its normalized URL by its API key, appended by the
// transformer before the page's page_completed on
//
//   trawl.observation.<apiKeyId>.<pageKey>.url_observed
//
// so the key's last observation of a URL is one direct get (last by subject). Each one
// embeds the observation it followed (`previous`): a transform redelivered after it
// appended its own can still answer against the real predecessor.
import { Type, type Static } from '@sinclair/typebox';
import { CHANGE_STATUSES } from '../change-tracking.js';
import { PayloadRef, Timestamp } from './common.js';

const State = Type.Union([Type.Literal('present'), Type.Literal('gone')]);
const JobKind = Type.Union([Type.Literal('scrape'), Type.Literal('crawl'), Type.Literal('batch')]);

/** What one observation saw, as the next one reads it. */
export const ObservationSummary = Type.Object({
  /** Stream sequence of that url_observed. */
  seq: Type.Integer({ minimum: 1 }),
  observedAt: Timestamp,
  jobKind: JobKind,
  jobId: Type.String(),
  statusCode: Type.Integer(),
  state: State,
  /** SHA-256 (hex) of the markdown; present pages only. */
  markdownHash: Type.Optional(Type.String()),
  /** The markdown in the baselines bucket (may have expired: BASELINE_TTL_MS). */
  baseline: Type.Optional(PayloadRef),
  /** contentOptionsHash of the page's options (shared/src/domain/change-tracking.ts). */
  optionsHash: Type.Optional(Type.String()),
});
export type ObservationSummary = Static<typeof ObservationSummary>;

export const UrlObserved = Type.Object({
  /** The key whose observation this is (also the subject's id: tenant isolation). */
  apiKeyId: Type.String(),
  /** The normalized URL as requested (the subject's part is its page key). */
  url: Type.String(),
  /** changeTrackingOptions.tag: a history of its own (part `<pageKey>-<tag hash>`). */
  tag: Type.Optional(Type.String()),
  /** The page that made it: its job and page key. */
  source: Type.Object({ kind: JobKind, jobId: Type.String(), part: Type.String() }),
  observedAt: Timestamp,
  statusCode: Type.Integer(),
  state: State,
  markdownHash: Type.Optional(Type.String()),
  markdownBytes: Type.Optional(Type.Integer({ minimum: 0 })),
  baseline: Type.Optional(PayloadRef),
  /** When the baseline object was last written (an unchanged page reuses it for up to a day). */
  baselineWrittenAt: Type.Optional(Timestamp),
  optionsHash: Type.Optional(Type.String()),
  changeStatus: Type.Union(CHANGE_STATUSES.map((s) => Type.Literal(s))),
  /** The observation before this one (none for the first). */
  previous: Type.Optional(ObservationSummary),
  /**
   * Conditional fetches (shared/src/domain/conditional-fetch.ts): the response's ETag and
   * Last-Modified, the hash of the options that made the result, the content formats the
   * result holds; a later fetch with the same options sends the validators, and a 304 is
   * completed from this page's result.
   */
  validators: Type.Optional(Type.Object({ etag: Type.Optional(Type.String()), lastModified: Type.Optional(Type.String()) })),
  resultOptionsHash: Type.Optional(Type.String()),
  formats: Type.Optional(Type.Array(Type.String())),
  /** The page answered 304 Not Modified: this observation repeats the one named by its fetch. */
  notModified: Type.Optional(Type.Literal(true)),
  /** When the page's result was stored, if before this observation: a 304's page reuses an older page's result (page_completed.reusedResult). */
  resultStoredAt: Type.Optional(Timestamp),
});
export type UrlObserved = Static<typeof UrlObserved>;

export const observationEvents = {
  url_observed: UrlObserved,
} as const;
