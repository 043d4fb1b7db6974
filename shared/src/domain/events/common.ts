// Pieces shared by several event types.
import { FormatRegistry, Type, type Static } from '@sinclair/typebox';
import { PAGE_ERROR_CODES } from '../errors.js';
import { PageOutcomeSchema } from '../page-outcome/outcome.js';
import { ConsentRecord } from '../page-outcome/consent.js';

// TypeBox's compiler knows no formats until told: ISO 8601 UTC timestamps, as the spec shows them.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (value) => ISO_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value)));

export const Timestamp = Type.String({ format: 'date-time' });

/** A reference to a large payload in the JetStream Object Store (events never carry it inline). */
export const PayloadRef = Type.Object({
  bucket: Type.String(),
  name: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  contentType: Type.String(),
  /**
   * The one chunk the object was written as (its nuid and SHA-256, as its meta holds them),
   * when it is one: a reader gets it by one direct get instead of the meta and then the
   * chunk. Absent for larger objects and on older events; a chunk no longer there (the name
   * written again, or expired) is read through the meta.
   */
  chunk: Type.Optional(Type.Object({ nuid: Type.String(), digest: Type.String() })),
});
export type PayloadRef = Static<typeof PayloadRef>;

export const PageError = Type.Object({
  code: Type.Union(PAGE_ERROR_CODES.map((c) => Type.Literal(c))),
  message: Type.String(),
  /** PAGE_CHALLENGE, PAGE_BLOCKED, PAGE_EMPTY: what the page was and what was seen (docs/api.md "Page outcome"). */
  pageOutcome: Type.Optional(Type.String()),
  evidence: Type.Optional(Type.Array(Type.String())),
});
export type PageError = Static<typeof PageError>;

/** The engine that served a page (scrape option `engine`; events before it existed: browser). */
export const EngineUsed = Type.Union([Type.Literal('browser'), Type.Literal('http')]);
export type EngineUsed = Static<typeof EngineUsed>;

/** The earlier DOM a browser capture gave when the page's scripts lost its content (docs/architecture.md "Pages whose scripts misbehave"). */
export const DomSnapshot = Type.Union([Type.Literal('domcontentloaded'), Type.Literal('served')]);

export const PageMetadata = Type.Object(
  {
    /** Which engine fetched the page (set by the transformer from page_fetched). */
    engine: Type.Optional(EngineUsed),
    title: Type.String(),
    description: Type.String(),
    language: Type.Optional(Type.String()),
    canonicalUrl: Type.Optional(Type.String()),
    sourceUrl: Type.Optional(Type.String()),
    statusCode: Type.Optional(Type.Integer()),
    /** What the page is, and what was seen (docs/api.md "Page outcome"); absent on documents and older events. */
    pageOutcome: Type.Optional(PageOutcomeSchema),
    pageOutcomeEvidence: Type.Optional(Type.Array(Type.String())),
    /**
     * Set when the page's scripts lost its content and the browser engine gave an earlier
     * DOM (page_fetched.domSnapshot): 'domcontentloaded', or 'served' (the HTML as the server sent it).
     */
    domSnapshot: Type.Optional(DomSnapshot),
    /** What the `consent` option did (page_fetched.consent; docs/api.md "Page outcome"): only when it was asked for. */
    consent: Type.Optional(ConsentRecord),
    /** The page answered 304 to a conditional fetch: this is the stored observation's content (shared/src/domain/conditional-fetch.ts). */
    notModified: Type.Optional(Type.Boolean()),
    /** 'sitemap-lastmod': a recrawl did not fetch the page at all (its sitemap lastmod is not newer than its last observation). */
    notModifiedBy: Type.Optional(Type.Literal('sitemap-lastmod')),
  },
  { additionalProperties: true },
);
export type PageMetadata = Static<typeof PageMetadata>;

const Ms = Type.Integer({ minimum: 0 });
export const FetchTimings = Type.Object({ queueWaitMs: Ms, fetchMs: Ms, renderMs: Ms, screenshotMs: Ms, engine: Type.Optional(EngineUsed) });
export type FetchTimings = Static<typeof FetchTimings>;

export const Timings = Type.Object({
  queueWaitMs: Ms, fetchMs: Ms, renderMs: Ms, transformMs: Ms, screenshotMs: Ms, totalMs: Ms, engine: Type.Optional(EngineUsed),
});
export type Timings = Static<typeof Timings>;
