import type { PageType } from './page-type.js';
import type { PageMetadata } from '../../../shared/src/events/common.js';
import type { DocumentKind } from '../../../shared/src/document-type.js';
import type { ResolvedScrapeOptions } from '../../../shared/src/scrape-options.js';
import type { StructuredData } from './structured-data.js';
import type { PageOutcome } from '../../../shared/src/page-outcome/outcome.js';

export interface TransformInput {
  /** The rendered page (Chromium's serialization of the DOM after scripts). */
  html: string;
  /** Final URL after redirects: the base for relative links (a <base href> takes precedence). */
  url: string;
  options: ResolvedScrapeOptions;
  /** HTTP status of the main document, copied into metadata.statusCode. */
  statusCode?: number;
  /** The response headers the page outcome reads (page_fetched.outcomeHeaders; shared/src/page-outcome). */
  headers?: Record<string, string>;
  /** Set for a document response (then `html` is ''): documents/transform-document.ts. */
  document?: DocumentInput;
}

export interface DocumentInput {
  kind: DocumentKind;
  bytes: Uint8Array;
  /** As stored (the served Content-Type when it named the kind). */
  contentType: string;
  /** Pages to parse at most (the request's maxPages within DOCUMENT_MAX_PAGES). */
  maxPages: number;
}

/** The cheap extras metadata.ts reads beside PageMetadata's fields (each only when present). */
export interface MetadataExtras {
  siteName?: string;
  ogTitle?: string;
  ogDescription?: string;
  image?: string;
  author?: string;
  publishedTime?: string;
  modifiedTime?: string;
  keywords?: string;
  robots?: string;
  favicon?: string;
  type?: string;
  dir?: string;
  /** What kind of page this is (page-type.ts): article, documentation, service, forum, listing, product or collection. */
  pageType?: PageType;
  /**
   * Only when a content candidate threw on the page's markup and the next one was used:
   * one "<candidate> failed: <message>" per failure, in order (see transform.ts firstWorking).
   */
  extractionFallbacks?: string[];
  /** JSON-LD, Open Graph, Twitter cards and microdata (structured-data.ts); only when the page has some. */
  structured?: StructuredData;
  /** Only when the extract format's json hit its size bound and was cut (extract.ts). */
  extractTruncated?: true;
}

/** What the page is (outcome/classify.ts; docs/api.md "Page outcome") and what was seen. */
export interface OutcomeMetadata {
  pageOutcome?: PageOutcome;
  pageOutcomeEvidence?: string[];
}

/** A document's metadata (docs/api.md "Documents"): the stored Content-Type, page counts, the OCR flag, whether it was converted. */
export interface DocumentMetadata {
  contentType?: string;
  pageCount?: number;
  pagesParsed?: number;
  needsOcr?: boolean;
  pagesWithoutText?: number[];
  parsed?: boolean;
}
export type TransformMetadata = PageMetadata & MetadataExtras & DocumentMetadata & OutcomeMetadata;

export interface TransformOutput {
  /** Present only when options.formats includes 'markdown'. */
  markdown?: string;
  /** Cleaned HTML of the content (after onlyMainContent / includeTags / excludeTags); only with 'html'. */
  html?: string;
  /** Always computed (the crawl frontier needs them): absolute http(s), deduplicated, page order. */
  links: string[];
  metadata: TransformMetadata;
  /** Present only with the 'extract' format: the schema's result (extract.ts). */
  json?: unknown;
}
