// The scrape answers (spec "Scrape"): they document the API (OpenAPI), drive the
// gateway's serialization and type the SDK. Field names follow the spec; docs/api.md lists
// what the spec left open. The request is shared/src/domain/scrape-options.ts.
import { Type, type Static } from '@sinclair/typebox';
import { ChangeTrackingReport } from '../domain/change-tracking.js';
import { FetchTimings } from '../domain/events/common.js';
import { ScrapeRequestSchema } from '../domain/scrape-options.js';
import { StringEnum } from '../domain/string-enum.js';
import { ConsentRecord } from '../domain/page-outcome/consent.js';
import { WaitMs, ScrapeStatusSchema } from './common.js';

export const ScreenshotView = Type.Object({
  url: Type.Optional(Type.String()),
  data: Type.Optional(Type.String({ description: 'data: URL, when screenshotOptions.response is base64' })),
  width: Type.Integer(),
  height: Type.Integer(),
  format: Type.String(),
  fileSize: Type.Integer(),
  expiresAt: Type.Optional(Type.String()),
});
export type ScreenshotView = Static<typeof ScreenshotView>;

/** A document page's stored bytes (docs/api.md "Documents"): served by the gateway, same API key. */
export const DocumentView = Type.Object({
  url: Type.String({ description: 'GET it with the same API key for the document as served' }),
  contentType: Type.String(),
  fileSize: Type.Integer(),
  expiresAt: Type.String(),
});
export type DocumentView = Static<typeof DocumentView>;

export const Metadata = Type.Object({
  title: Type.String({ description: "The page's title; a document's own title, else its URL's file name" }),
  description: Type.String(),
  contentType: Type.Optional(Type.String({ description: 'Documents: the Content-Type of the stored bytes' })),
  pageCount: Type.Optional(Type.Integer({ description: 'Documents: pages in the document (PDF; DOCX when its properties say)' })),
  pagesParsed: Type.Optional(Type.Integer({ description: 'Documents: pages parsed, when maxPages stopped short of pageCount' })),
  author: Type.Optional(Type.String()),
  needsOcr: Type.Optional(Type.Boolean({ description: 'PDF: true when it has no usable text layer (a scan); markdown is then empty' })),
  pagesWithoutText: Type.Optional(Type.Array(Type.Integer(), { description: 'PDF with a text layer: the pages (1-based, first 100) without one (scanned or blank)' })),
  parsed: Type.Optional(Type.Boolean({ description: 'Documents: false when `parsers` left the type out (only the document link)' })),
  engine: Type.Optional(StringEnum(['browser', 'http'] as const, { description: 'The engine that fetched the page: browser (rendered in Chromium) or http (one GET; rawHtml is the served HTML)' })),
  /** With the consent option: what it did (docs/api.md "Page outcome", *Consent walls*). */
  consent: Type.Optional(ConsentRecord),
}, { additionalProperties: true });
export type Metadata = Static<typeof Metadata>;

/** The `extract` format's result: what the schema's fields found (docs/api.md "extract"). */
export const ExtractedJson = Type.Unknown({
  description: 'With the extract format: an object with one key per schema field (a list of such objects when the schema has a baseSelector); null when a required field is missing',
});

/** The content fields of a scraped page, as scrape jobs and batch pages show them. */
export const PageContentFields = {
  markdown: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  rawHtml: Type.Optional(Type.String()),
  links: Type.Optional(Type.Array(Type.String())),
  screenshot: Type.Optional(ScreenshotView),
  actions: Type.Optional(Type.Object({ screenshots: Type.Array(ScreenshotView) })),
  document: Type.Optional(DocumentView),
  metadata: Type.Optional(Metadata),
  json: Type.Optional(ExtractedJson),
  changeTracking: Type.Optional(ChangeTrackingReport),
};

/** Why a page failed: its error code, message and, for a refused page, what was seen. */
export const PageError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  pageOutcome: Type.Optional(Type.String({ description: 'PAGE_CHALLENGE, PAGE_BLOCKED, PAGE_EMPTY: what the page was (docs/api.md "Page outcome")' })),
  evidence: Type.Optional(Type.Array(Type.String(), { description: 'What was seen: status, headers, title, vendor elements and scripts, text sizes' })),
});
export type PageError = Static<typeof PageError>;

/** POST /scrape's body: the spec's scrape request, plus `waitMs`. */
export const ScrapePostBody = Type.Composite([ScrapeRequestSchema, Type.Object({ waitMs: Type.Optional(WaitMs) })], { additionalProperties: false });
export type ScrapePostBody = Static<typeof ScrapePostBody>;

/** A new job; PROCESSING only when a `waitMs` ended before the job finished. */
export const ScrapeCreated = Type.Object({ id: Type.String(), status: StringEnum(['PENDING', 'PROCESSING'] as const) });
export type ScrapeCreated = Static<typeof ScrapeCreated>;

export const ScrapeTimings = Type.Composite([FetchTimings, Type.Object({ transformMs: Type.Integer(), totalMs: Type.Integer() })]);
export type ScrapeTimings = Static<typeof ScrapeTimings>;

export const ScrapeJobView = Type.Object({
  id: Type.String(),
  url: Type.String(),
  status: Type.Optional(ScrapeStatusSchema),
  fromCache: Type.Boolean(),
  createdAt: Type.Optional(Type.String()),
  startedAt: Type.Optional(Type.String()),
  completedAt: Type.Optional(Type.String()),
  ...PageContentFields,
  timings: Type.Optional(ScrapeTimings),
  error: Type.Optional(PageError),
});
export type ScrapeJobView = Static<typeof ScrapeJobView>;

export const ScrapeListItem = Type.Object({
  id: Type.String(),
  url: Type.String(),
  status: ScrapeStatusSchema,
  fromCache: Type.Boolean(),
  createdAt: Type.String(),
  completedAt: Type.Optional(Type.String()),
});
export type ScrapeListItem = Static<typeof ScrapeListItem>;
