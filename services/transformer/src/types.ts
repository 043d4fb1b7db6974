import type { ExtractInput, ExtractMetadata, ExtractOutput } from '../../../packages/extract/src/index.js';
import type { DocumentKind } from '../../../shared/src/domain/document-type.js';
import type { ResolvedScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import type { PageOutcome } from '../../../shared/src/domain/page-outcome/outcome.js';

export interface TransformInput extends ExtractInput {
  options: ResolvedScrapeOptions;
  /** The response headers the page outcome reads (page_fetched.outcomeHeaders; shared/src/domain/page-outcome). */
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
export type TransformMetadata = ExtractMetadata & DocumentMetadata & OutcomeMetadata;

/** A page's or document's result: the extraction's output with the transformer's metadata. */
export type TransformOutput = ExtractOutput<TransformMetadata>;
