// Map events. A map is synchronous for the caller but recorded like every other job, so
// audit replay shows what was asked and what was answered (subjects: docs/architecture.md
// "Map"). The result's links travel inline when small and through the Object Store when
// large (MAP_INLINE_LINKS_MAX_BYTES): events stay well below the NATS message size limit.
import { Type, type Static } from '@sinclair/typebox';
import { PayloadRef, Timestamp } from './common.js';

const Count = Type.Integer({ minimum: 0 });

/** A map's default budget: the spec's "large sites can take up to 30 seconds". */
export const MAP_DEFAULT_BUDGET_MS = 30_000;

/** Encoded size (JSON bytes) up to which map_completed carries its links inline. */
export const MAP_INLINE_LINKS_MAX_BYTES = 32 * 1024;

export const MAP_SOURCES = ['sitemap', 'crawl'] as const;
export type MapSource = (typeof MAP_SOURCES)[number];

export const MapRequested = Type.Object({
  url: Type.String(),
  search: Type.Optional(Type.String()),
  limit: Type.Integer({ minimum: 1, maximum: 10_000 }),
  ignoreSitemap: Type.Boolean(),
  includeSubdomains: Type.Boolean(),
  apiKeyId: Type.String(),
  requestedAt: Timestamp,
  /** Time from requestedAt the worker may spend; it answers with what it found by then. */
  budgetMs: Type.Integer({ minimum: 1000, maximum: 300_000 }),
});

export const MapCompleted = Type.Object({
  /** The links, when their JSON is at most MAP_INLINE_LINKS_MAX_BYTES. */
  links: Type.Optional(Type.Array(Type.String())),
  /** Otherwise a JSON array of strings in the Object Store. */
  linksRef: Type.Optional(PayloadRef),
  count: Count,
  /** Where links came from: the sitemaps, the browser crawl, or both. */
  sources: Type.Array(Type.Union(MAP_SOURCES.map((s) => Type.Literal(s)))),
  /** True when discovery stopped early (the budget, a size or file bound): the list may be incomplete. */
  partial: Type.Boolean(),
  sitemapsFetched: Count,
  pagesCrawled: Count,
  durationMs: Count,
  completedAt: Timestamp,
});

export const MapFailed = Type.Object({
  /** An API error code (URL_NOT_ALLOWED, NETWORK_ERROR, PAGE_TIMEOUT, INTERNAL_ERROR, ...). */
  error: Type.Object({ code: Type.String(), message: Type.String() }),
  failedAt: Timestamp,
});

export const mapEvents = {
  map_requested: MapRequested,
  map_completed: MapCompleted,
  map_failed: MapFailed,
} as const;

export type MapRequested = Static<typeof MapRequested>;
export type MapCompleted = Static<typeof MapCompleted>;
export type MapFailed = Static<typeof MapFailed>;
