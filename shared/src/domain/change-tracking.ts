// Change tracking (format `changeTracking`, docs/api.md "Change tracking"): what a page's
// markdown did since the key's last observation of the same normalized URL. The pure
// pieces live here: which answers are observations, the status decision, and the report
// schema (TypeBox: the API's OpenAPI and the result payload's type). The IO (reading the
// last observation, appending the next) is the transformer's (services/transformer/src/
// change-tracking/).
import { Type, type Static } from '@sinclair/typebox';
import { canonicalJson } from './cache-key.js';
import { sha256Hex } from '../infra/ids.js';
import type { ResolvedScrapeOptions } from './scrape-options.js';
import { StringEnum } from './string-enum.js';
import { normalizeUrl, urlKeyHash } from '../net/url-normalize.js';
import { LRUCache } from 'lru-cache';

export const CHANGE_STATUSES = ['new', 'same', 'changed', 'removed'] as const;
export type ChangeStatus = (typeof CHANGE_STATUSES)[number];

/** What an observation saw: the page with content, or the page gone (404/410). */
export type PageState = 'present' | 'gone';

/** Why a changed page's report carries no diff. */
export const DIFF_UNAVAILABLE = ['previous_expired', 'too_large'] as const;

export const ChangeTrackingReport = Type.Object({
  observed: Type.Boolean({
    description: 'false when this answer is not an observation of the page (HTTP error other than 404/410): no changeStatus, the last observation stays the baseline',
  }),
  changeStatus: Type.Optional(StringEnum(CHANGE_STATUSES, {
    description: 'new: no earlier observation (or the page was gone then); same: identical markdown; changed: different markdown; removed: the page now answers 404/410 and had content before',
  })),
  previousScrapeAt: Type.Union([Type.String(), Type.Null()], { description: 'When the observation compared against was made; null when there is none' }),
  previousJobId: Type.Optional(Type.String({ description: 'The job (scrape, crawl or batch id) that made the previous observation' })),
  previousJobKind: Type.Optional(StringEnum(['scrape', 'crawl', 'batch'] as const)),
  statusCode: Type.Optional(Type.Integer({ description: 'HTTP status of this answer' })),
  optionsChanged: Type.Optional(Type.Boolean({
    description: 'true when the previous observation was made with other content options (onlyMainContent, includeTags, excludeTags, viewport, mobile, device, headers, waitFor, actions): a change may come from the options, not the page',
  })),
  diff: Type.Optional(Type.String({ description: 'Unified diff (previous -> current markdown), only when changeStatus is changed' })),
  notModified: Type.Optional(Type.Boolean({
    description: 'true when the page answered 304 Not Modified to a conditional fetch: the content is the previous observation\'s (docs/api.md "Conditional fetches")',
  })),
  diffUnavailable: Type.Optional(StringEnum(DIFF_UNAVAILABLE, {
    description: 'Why a changed page has no diff: previous_expired (its markdown is past BASELINE_TTL_MS; the status is still exact, from the hash), too_large (the diff took longer than its time cap)',
  })),
});
export type ChangeTrackingReport = Static<typeof ChangeTrackingReport>;

/**
 * Which answers are observations. 2xx and 3xx are the page; 404 and 410 say it is gone.
 * Any other error (401, 403, 429, 5xx) says nothing about the page's content: comparing an
 * error page with the article would report a change that did not happen.
 */
export function observedState(statusCode: number): PageState | null {
  if (statusCode < 400) return 'present';
  if (statusCode === 404 || statusCode === 410) return 'gone';
  return null;
}

export interface ObservedContent {
  state: PageState;
  /** SHA-256 of the markdown (present pages only). */
  markdownHash?: string | undefined;
}

/** The status of `current` against the observation before it (none: the first). */
export function decideChangeStatus(previous: ObservedContent | undefined, current: ObservedContent): ChangeStatus {
  if (current.state === 'gone') {
    if (previous?.state === 'present') return 'removed';
    return previous ? 'same' : 'new';
  }
  if (!previous || previous.state === 'gone') return 'new';
  return previous.markdownHash === current.markdownHash ? 'same' : 'changed';
}

/**
 * The hash of the options that shape a page's markdown (not formats, timeout, engine or
 * screenshots): two observations made with different ones compare different extractions,
 * and the report says so (`optionsChanged`). Headers are hashed, never stored.
 */
export function contentOptionsHash(options: ResolvedScrapeOptions): string {
  const { onlyMainContent, includeTags, excludeTags, viewport, mobile, device, headers, waitFor, actions } = options;
  return sha256Hex(canonicalJson({ onlyMainContent, includeTags, excludeTags, viewport, mobile, device: device ?? null, headers, waitFor: waitFor ?? null, actions })).slice(0, 16);
}

/**
 * Page keys worked out lately: a page's key is asked several times on its way (the fetcher's
 * plan, its observation, the transformer's), each a parse, a normalization and a hash.
 */
const PAGE_KEYS_KEPT = 5_000;
const pageKeys = new LRUCache<string, string>({ max: PAGE_KEYS_KEPT });

/** The page key of a URL's normalized form (the part of its observations' subject). */
export function pageKeyOf(url: string): string {
  const known = pageKeys.get(url);
  if (known !== undefined) return known;
  const normalized = normalizeUrl(url);
  if (!normalized) throw new Error(`"${url}" is not a URL`);
  const key = urlKeyHash(normalized.key);
  pageKeys.set(url, key);
  return key;
}

/**
 * The subject part of a key's history of a URL: its page key, and for a
 * changeTrackingOptions.tag history the tag's hash after it (a tag is free text, a part a token).
 */
export function historyPart(url: string, tag?: string): string {
  const pageKey = pageKeyOf(url);
  return tag === undefined ? pageKey : `${pageKey}-${sha256Hex(`trawl-change-tag:${tag}`).slice(0, 16)}`;
}
