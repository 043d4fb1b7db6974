// Page events: the one pipeline every scraped page goes through, whichever job owns it
// (a scrape, a crawl page, a batch entry, a map fallback page). Subject part = page key.
//
//   page_requested  (gateway / crawler-frontier)  -> fetcher
//   page_started    (fetcher, each attempt)
//   page_fetched    (fetcher: raw HTML in the Object Store) -> transformer
//   page_completed  (transformer: result in the Object Store) | page_failed (any stage)
import { Type, type Static } from '@sinclair/typebox';
import { ChangeTrackingReport } from '../change-tracking.js';
import { DocumentKindSchema } from '../document-type.js';
import { ResolvedScrapeOptions } from '../scrape-options.js';
import { DomSnapshot, EngineUsed, FetchTimings, PageError, PageMetadata, PayloadRef, Timestamp, Timings } from './common.js';
import { ConsentRecord } from '../page-outcome/consent.js';

export const PageRequested = Type.Object({
  url: Type.String(),
  options: ResolvedScrapeOptions,
  apiKeyId: Type.String(),
  /** Link depth from the start page (0 for a scrape). */
  depth: Type.Integer({ minimum: 0 }),
  requestedAt: Timestamp,
  /** SHA-256 of the normalized URL and result-changing options (the result cache key). */
  cacheKey: Type.Optional(Type.String()),
});

/**
 * A scrape identical to one still running (same cache key): it shares that page's single
 * browser load instead of starting another (the fetcher's share follower copies the
 * source's page_fetched or page_failed when it arrives).
 */
export const PageShared = Type.Composite([
  Type.Omit(PageRequested, ['cacheKey']),
  Type.Object({ cacheKey: Type.String(), sourceJobId: Type.String(), sourcePart: Type.String() }),
]);

/** A scrape answered from the result cache: completed at once, no browser, no quota. */
export const PageServedFromCache = Type.Object({
  url: Type.String(),
  options: ResolvedScrapeOptions,
  apiKeyId: Type.String(),
  requestedAt: Timestamp,
  cacheKey: Type.String(),
  sourceJobId: Type.String(),
  /** When the served result was made (its payloads expire PAYLOAD_TTL_MS after that). */
  sourceCompletedAt: Timestamp,
  result: PayloadRef,
  metadata: PageMetadata,
});

export const PageStarted = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  startedAt: Timestamp,
  worker: Type.String(),
});

export const PageFetched = Type.Object({
  finalUrl: Type.String(),
  statusCode: Type.Integer(),
  contentType: Type.Optional(Type.String()),
  /** The page's HTML; absent when the response was a document (then `document`). */
  rawHtml: Type.Optional(PayloadRef),
  /**
   * A document response (PDF, DOCX, text, markdown, JSON; docs/api.md "Documents"): its
   * bytes as served and the type detected from Content-Type and magic bytes. Absent on
   * HTML pages and on events from before documents.
   */
  document: Type.Optional(Type.Object({ ref: PayloadRef, type: DocumentKindSchema })),
  screenshots: Type.Optional(Type.Array(Type.Object({
    ref: PayloadRef,
    width: Type.Integer(),
    height: Type.Integer(),
    format: Type.String(),
    /** 'final' for the screenshot format, 'action' for a screenshot action. */
    role: Type.Union([Type.Literal('final'), Type.Literal('action')]),
  }))),
  timings: FetchTimings,
  fetchedAt: Timestamp,
  /** How the page was fetched and why (services/fetcher/src/engine); absent on events from before engines. */
  engine: Type.Optional(Type.Object({
    used: EngineUsed,
    requested: Type.Union([Type.Literal('browser'), Type.Literal('http'), Type.Literal('auto')]),
    reason: Type.String(),
    host: Type.Optional(Type.Object({ key: Type.String(), mode: Type.Union([Type.Literal('learning'), Type.Literal('static'), Type.Literal('browser')]) })),
    verification: Type.Optional(Type.Object({
      markdown: Type.Number({ minimum: 0, maximum: 1 }),
      links: Type.Number({ minimum: 0, maximum: 1 }),
      identical: Type.Boolean(),
      agreed: Type.Boolean(),
      /** The page's CSR marker kinds (none: a page without markers): the set whose fleet prior this verdict changed. */
      kinds: Type.Optional(Type.Array(Type.String(), { maxItems: 64 })),
    })),
  })),
  /**
   * Main-frame navigations away from the loaded page (script redirects, meta refresh) that
   * failed and were cancelled: the page is the document that was loaded (first 10).
   */
  abortedNavigations: Type.Optional(Type.Array(Type.Object({ url: Type.String(), code: Type.String(), reason: Type.String() }), { maxItems: 10 })),
  /**
   * Set when the page's scripts lost its content: 'domcontentloaded' (rawHtml is the DOM at
   * DOMContentLoaded) or 'served' (lost before that: rawHtml is the document as served).
   */
  domSnapshot: Type.Optional(DomSnapshot),
  /**
   * The response headers the page outcome reads (shared/src/domain/page-outcome OUTCOME_HEADERS;
   * Set-Cookie as cookie names only). Absent when none was sent, and on older events.
   */
  outcomeHeaders: Type.Optional(Type.Record(Type.String(), Type.String())),
  /** What the `consent` option did on the page (shared/src/domain/page-outcome/consent.ts); only when it was asked for. */
  consent: Type.Optional(ConsentRecord),
  /** The response's ETag / Last-Modified (HTTP engine, HTML pages): the next conditional fetch sends them. */
  validators: Type.Optional(Type.Object({ etag: Type.Optional(Type.String()), lastModified: Type.Optional(Type.String()) })),
  /**
   * The fetcher's read for its plan found no observation of the page's URL by its key (a
   * first crawl's pages): the transformer's observer starts from that instead of reading the
   * subject again. One appended since only makes the observation's conditional append
   * conflict, and it is then read (observer.ts).
   */
  unobserved: Type.Optional(Type.Literal(true)),
  /**
   * The server answered 304 Not Modified to a conditional fetch (statusCode 304, no
   * rawHtml): the page is the one of the key's observation `observationSeq`, made by
   * `source`; the transformer completes it from there (shared/src/domain/conditional-fetch.ts).
   */
  notModified: Type.Optional(Type.Object({
    observationSeq: Type.Integer({ minimum: 1 }),
    observedAt: Type.Optional(Timestamp),
    /** 'sitemap-lastmod': not fetched at all, a recrawl's skip on the sitemap's lastmod (statusCode 304 then too). */
    by: Type.Optional(Type.Literal('sitemap-lastmod')),
    source: Type.Object({ kind: Type.Union([Type.Literal('scrape'), Type.Literal('crawl'), Type.Literal('batch')]), jobId: Type.String(), part: Type.String() }),
    markdownHash: Type.Optional(Type.String()),
    baseline: Type.Optional(PayloadRef),
    /** The content formats the observed page's result holds, and when that result was stored. */
    formats: Type.Optional(Type.Array(Type.String())),
    resultStoredAt: Type.Optional(Timestamp),
  })),
});

export const PageCompleted = Type.Object({
  result: PayloadRef,
  metadata: PageMetadata,
  /** Absolute links found on the page, for the crawl frontier (capped; see architecture.md). */
  links: Type.Array(Type.String()),
  timings: Timings,
  completedAt: Timestamp,
  /** The request's cache key, so the result cache needs no lookup to file this result. */
  cacheKey: Type.Optional(Type.String()),
  /** Stream sequence of the page's url_observed (change tracking), when it was an observation. */
  observationSeq: Type.Optional(Type.Integer({ minimum: 1 })),
  /**
   * A 304 completed without a copy (shared/src/domain/reused-result.ts): `result` is the
   * stored result of the page the observation named. This page's content is the `formats`
   * asked of it, its change report the one here, and its payloads live from `storedAt`.
   */
  reusedResult: Type.Optional(Type.Object({
    formats: Type.Array(Type.String()),
    storedAt: Timestamp,
    /** The page whose observation the 304 repeats: a read model that holds its content reads it there. */
    source: Type.Optional(Type.Object({ kind: Type.String(), jobId: Type.String(), part: Type.String() })),
    changeTracking: Type.Optional(ChangeTrackingReport),
  })),
});

export const PageFailed = Type.Object({
  error: PageError,
  failedAt: Timestamp,
  attempt: Type.Integer({ minimum: 1 }),
  cacheKey: Type.Optional(Type.String()),
});

/**
 * The job-level event that cancels a multi-page job (trawl.<kind>.<id>.job.<kind>_cancel_requested).
 * The fetcher checks it before loading a page of such a job, so nothing is fetched after a
 * cancel is recorded. Single scrapes cannot be cancelled and skip the check.
 */
export function cancelEventOf(kind: string): string | null {
  return kind === 'crawl' || kind === 'batch' ? `${kind}_cancel_requested` : null;
}

/**
 * A page whose server answered with an error status (404, 500...), or an error page served
 * with 200 (a soft 404, docs/api.md "Page outcome"). Its result is complete
 * (the error page's content, metadata.statusCode), but in a crawl or batch it counts under
 * failedUrls, not completedUrls, and a crawl does not follow its links (docs/api.md).
 */
export function isHttpErrorPage(data: { metadata: { statusCode?: number; pageOutcome?: unknown } }): boolean {
  // An error page served with 200 (metadata.pageOutcome 'soft-404') counts the same way.
  return (data.metadata.statusCode ?? 0) >= 400 || data.metadata.pageOutcome === 'soft-404';
}

/** At most this many links ride on page_completed (the full list is in the result payload). */
export const MAX_EVENT_LINKS = 2000;

export const pageEvents = {
  page_requested: PageRequested,
  page_shared: PageShared,
  page_served_from_cache: PageServedFromCache,
  page_started: PageStarted,
  page_fetched: PageFetched,
  page_completed: PageCompleted,
  page_failed: PageFailed,
} as const;

export type PageRequested = Static<typeof PageRequested>;
export type PageShared = Static<typeof PageShared>;
export type PageServedFromCache = Static<typeof PageServedFromCache>;
export type PageStarted = Static<typeof PageStarted>;
export type PageFetched = Static<typeof PageFetched>;
export type PageCompleted = Static<typeof PageCompleted>;
export type PageFailed = Static<typeof PageFailed>;

/** The JSON document a page_completed result reference points to (Object Store). */
export interface PageResultPayload {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  /** The extract format's result (null when a required field was missing). */
  json?: unknown;
  screenshot?: ScreenshotPayload;
  actionScreenshots?: ScreenshotPayload[];
  /** Only with the changeTracking format. */
  changeTracking?: ChangeTrackingReport;
  /** A document page: its stored bytes (served by the gateway as the result's `document.url`). */
  document?: DocumentPayload;
}

export interface DocumentPayload {
  /** Object Store name of the bytes as served. */
  name: string;
  contentType: string;
  fileSize: number;
}

export interface ScreenshotPayload {
  /** Object Store name of the image. */
  name: string;
  width: number;
  height: number;
  format: string;
  fileSize: number;
}
