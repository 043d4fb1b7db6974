// The extraction library's input and output: what a rendered page becomes (markdown, html,
// links, metadata, the extract format's json). The transformer adds documents and the page
// outcome on top (services/transformer/src/types.ts).
import type { PageMetadata } from '../../../shared/src/domain/events/common.js';
import type { ResolvedScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import type { PageType } from './page-type.js';
import type { StructuredData } from './structured-data.js';

/** The scrape options extraction reads. */
export type ExtractOptions = Pick<ResolvedScrapeOptions, 'formats' | 'onlyMainContent' | 'includeTags' | 'excludeTags' | 'extract'>;

export interface ExtractInput {
  /** The rendered page (Chromium's serialization of the DOM after scripts). */
  html: string;
  /** Final URL after redirects: the base for relative links (a <base href> takes precedence). */
  url: string;
  options: ExtractOptions;
  /** HTTP status of the main document, copied into metadata.statusCode. */
  statusCode?: number;
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
   * one "<candidate> failed: <message>" per failure, in order (see extract-page.ts firstWorking).
   */
  extractionFallbacks?: string[];
  /** JSON-LD, Open Graph, Twitter cards and microdata (structured-data.ts); only when the page has some. */
  structured?: StructuredData;
  /** Only when the extract format's json hit its size bound and was cut (schema-extract.ts). */
  extractTruncated?: true;
}

export type ExtractMetadata = PageMetadata & MetadataExtras;

export interface ExtractOutput<M extends ExtractMetadata = ExtractMetadata> {
  /** Present only when options.formats includes 'markdown'. */
  markdown?: string;
  /** Cleaned HTML of the content (after onlyMainContent / includeTags / excludeTags); only with 'html'. */
  html?: string;
  /** Always computed (the crawl frontier needs them): absolute http(s), deduplicated, page order. */
  links: string[];
  metadata: M;
  /** Present only with the 'extract' format: the schema's result (schema-extract.ts). */
  json?: unknown;
}
