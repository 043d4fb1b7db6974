// The crawl request of the spec as TypeBox schemas: the single source of validation (the
// gateway), of the types (the frontier) and of the OpenAPI document. Defaults are written
// here once and applied once, by `normalizeCrawlRequest` (validation leaves a body as
// posted), so the crawl_requested event carries fully resolved options and, in `asked`,
// the crawl's own fields as the caller posted them (the quota may grant a lower limit).
import { Type, type Static } from '@sinclair/typebox';
import { normalizeScrapeOptions, ScrapeOptionsSchema, type ResolvedScrapeOptions } from './scrape-options.js';

export const CRAWL_DEFAULTS = {
  /** Link depth from the start page (depth 0) that is still scraped. */
  maxDepth: 3,
  /** Pages scraped at most, the start page included. */
  limit: 100,
  allowExternalLinks: false,
  ignoreRobots: false,
};

export const CRAWL_BOUNDS = {
  maxDepth: { minimum: 1, maximum: 10 },
  limit: { minimum: 1, maximum: 1000 },
  /** Patterns per list and characters per pattern (decided in docs/api.md). */
  maxPatterns: 100,
  maxPatternLength: 1000,
  maxUrlLength: 8192,
  maxWebhookUrlLength: 2048,
};

const PathPatterns = Type.Array(Type.String({ minLength: 1, maxLength: CRAWL_BOUNDS.maxPatternLength }), {
  maxItems: CRAWL_BOUNDS.maxPatterns,
});

export const CrawlRequestSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: CRAWL_BOUNDS.maxUrlLength }),
    maxDepth: Type.Optional(Type.Integer({ ...CRAWL_BOUNDS.maxDepth, default: CRAWL_DEFAULTS.maxDepth })),
    limit: Type.Optional(Type.Integer({ ...CRAWL_BOUNDS.limit, default: CRAWL_DEFAULTS.limit })),
    includePaths: Type.Optional(PathPatterns),
    excludePaths: Type.Optional(PathPatterns),
    allowExternalLinks: Type.Optional(Type.Boolean({ default: CRAWL_DEFAULTS.allowExternalLinks })),
    /** Not in the spec: skip robots.txt (documented in docs/api.md). */
    ignoreRobots: Type.Optional(Type.Boolean({ default: CRAWL_DEFAULTS.ignoreRobots })),
    scrapeOptions: Type.Optional(ScrapeOptionsSchema),
    webhookUrl: Type.Optional(Type.String({ minLength: 1, maxLength: CRAWL_BOUNDS.maxWebhookUrlLength })),
  },
  { additionalProperties: false },
);
export type CrawlRequest = Static<typeof CrawlRequestSchema>;

/**
 * The crawl's own fields as the caller posted them, before defaults and before the quota's
 * grant: kept in crawl_requested beside what was granted. Path patterns and scrapeOptions
 * are not repeated: the event carries them as given (patterns) or only resolved, and no
 * grant changes them.
 */
export const CrawlAsked = Type.Object({
  url: Type.String(),
  maxDepth: Type.Optional(Type.Integer()),
  limit: Type.Optional(Type.Integer()),
  allowExternalLinks: Type.Optional(Type.Boolean()),
  ignoreRobots: Type.Optional(Type.Boolean()),
});
export type CrawlAsked = Static<typeof CrawlAsked>;

/** The fields of `request` that CrawlAsked keeps, only those the caller named. */
export function askedOf(request: CrawlRequest): CrawlAsked {
  const { url, maxDepth, limit, allowExternalLinks, ignoreRobots } = request;
  return {
    url,
    ...(maxDepth !== undefined ? { maxDepth } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(allowExternalLinks !== undefined ? { allowExternalLinks } : {}),
    ...(ignoreRobots !== undefined ? { ignoreRobots } : {}),
  };
}

/** What a crawl_requested event carries besides its bookkeeping fields. */
export interface ResolvedCrawlOptions {
  startUrl: string;
  maxDepth: number;
  limit: number;
  includePaths: string[];
  excludePaths: string[];
  allowExternalLinks: boolean;
  ignoreRobots: boolean;
  scrapeOptions: ResolvedScrapeOptions;
  webhookUrl?: string;
}

/**
 * Applies defaults once. `startUrl` is the caller's URL with its fragment removed (the
 * gateway has already checked syntax and SSRF); patterns are kept as given, the frontier
 * interprets them (see services/crawler-frontier/src/crawl/links.ts).
 */
export function normalizeCrawlRequest(input: CrawlRequest): ResolvedCrawlOptions {
  const start = new URL(input.url);
  start.hash = '';
  return {
    startUrl: start.toString(),
    maxDepth: input.maxDepth ?? CRAWL_DEFAULTS.maxDepth,
    limit: input.limit ?? CRAWL_DEFAULTS.limit,
    includePaths: input.includePaths ?? [],
    excludePaths: input.excludePaths ?? [],
    allowExternalLinks: input.allowExternalLinks ?? CRAWL_DEFAULTS.allowExternalLinks,
    ignoreRobots: input.ignoreRobots ?? CRAWL_DEFAULTS.ignoreRobots,
    scrapeOptions: normalizeScrapeOptions(input.scrapeOptions ?? {}, 'scrapeOptions.'),
    ...(input.webhookUrl !== undefined ? { webhookUrl: input.webhookUrl } : {}),
  };
}
