// The batch scrape request as TypeBox schemas: the single source of validation (gateway),
// of the types (frontier, projector) and of the OpenAPI document. A batch is the scrape
// request with `urls` (1-100) instead of `url`: the same page options apply to every URL.
import { Type, type Static } from '@sinclair/typebox';
import { ScrapeOptionsSchema } from './scrape-options.js';
import { normalizeUrl, urlKeyHash } from '../net/url-normalize.js';

export const BATCH_BOUNDS = {
  /** Spec "Limits": batch scrape URLs per request 1-100. */
  minUrls: 1,
  maxUrls: 100,
  maxUrlLength: 8192,
  maxWebhookUrlLength: 2048,
};

export const BATCH_DEFAULTS = {
  /** Reject the whole request when one URL is invalid (strict, like every other field). */
  ignoreInvalidUrls: false,
};

export const BatchScrapeRequestSchema = Type.Composite(
  [
    Type.Object({
      urls: Type.Array(Type.String({ minLength: 1, maxLength: BATCH_BOUNDS.maxUrlLength }), {
        minItems: BATCH_BOUNDS.minUrls,
        maxItems: BATCH_BOUNDS.maxUrls,
        description: 'The pages to scrape, 1-100 http(s) URLs; duplicates are scraped once',
      }),
      ignoreInvalidUrls: Type.Optional(Type.Boolean({
        default: BATCH_DEFAULTS.ignoreInvalidUrls,
        description: 'Scrape the valid URLs and list the others in `invalidUrls` instead of rejecting the request',
      })),
      webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: BATCH_BOUNDS.maxWebhookUrlLength })),
    }),
    ScrapeOptionsSchema,
  ],
  { additionalProperties: false },
);
export type BatchScrapeRequest = Static<typeof BatchScrapeRequestSchema>;

/** A page of a batch: the URL as fetched and its key (the subject part of its page events). */
export interface BatchPage {
  url: string;
  pageKey: string;
}

/**
 * The batch's pages in request order, one per normalized URL (docs/api.md "URL
 * normalization"): a URL given twice is one page, at the position of its first occurrence.
 * Returns null for a URL that is not http(s).
 */
export function batchPageOf(raw: string): BatchPage | null {
  const normalized = normalizeUrl(raw);
  return normalized ? { url: normalized.url, pageKey: urlKeyHash(normalized.key) } : null;
}

export function uniquePages(urls: readonly string[]): BatchPage[] {
  const seen = new Set<string>();
  const pages: BatchPage[] = [];
  for (const raw of urls) {
    const page = batchPageOf(raw);
    if (!page || seen.has(page.pageKey)) continue;
    seen.add(page.pageKey);
    pages.push(page);
  }
  return pages;
}
