// Conditional fetches (issue 27, docs/api.md "Conditional fetches"): a page the key observed
// before is asked for with the validators its server gave then (If-None-Match from ETag,
// If-Modified-Since from Last-Modified); a 304 answer completes the page from that stored
// observation, with no transform and no render. The pure pieces: which validators a
// response carries, whether a last observation can stand in for the page now (its result
// must hold what is asked, made with the same options, and still be stored), and the
// request headers.
import { canonicalJson } from './cache-key.js';
import type { UrlObserved } from './events/observation.js';
import { sha256Hex } from '../infra/ids.js';
import type { ResolvedScrapeOptions } from './scrape-options.js';

export interface Validators {
  etag?: string;
  lastModified?: string;
}

/** Longest validator kept: a header that long is no cache validator. */
const MAX_VALIDATOR_CHARS = 256;

/** A response's validators (headers lower-cased, as node gives them); undefined when it has none. */
export function validatorsOf(headers: Record<string, string | string[] | undefined>): Validators | undefined {
  const one = (v: string | string[] | undefined): string | undefined => {
    const s = (Array.isArray(v) ? v[0] : v)?.trim();
    return s && s.length <= MAX_VALIDATOR_CHARS ? s : undefined;
  };
  const etag = one(headers.etag);
  const lastModified = one(headers['last-modified']);
  if (!etag && !lastModified) return undefined;
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** The request headers that make a GET conditional on the stored validators. */
export function conditionalHeaders(v: Validators): Record<string, string> {
  return { ...(v.etag ? { 'if-none-match': v.etag } : {}), ...(v.lastModified ? { 'if-modified-since': v.lastModified } : {}) };
}

/** The formats a stored result holds as content (changeTracking is made again each time). */
export function contentFormats(options: Pick<ResolvedScrapeOptions, 'formats'>): string[] {
  return options.formats.filter((f) => f !== 'changeTracking');
}

/**
 * The hash of every option that shapes a page's result other than its formats: two
 * requests with the same one and the same served HTML get the same content. Not in it:
 * formats (compared as a set), timeout, engine, screenshots (never under HTTP), the
 * change-tracking tag (it names the history, which is the subject) and `conditional`.
 */
export function resultOptionsHash(options: ResolvedScrapeOptions): string {
  const { formats: _f, timeoutMs: _t, engine: _e, screenshot: _s, changeTrackingTag: _c, conditional: _n, ...rest } = options;
  return sha256Hex(canonicalJson({ v: 1, ...rest })).slice(0, 16);
}

/** What the fetcher sends to make a page conditional, and what page_fetched.notModified names. */
export interface StoredBasis {
  /** The observation (its stream sequence and time) and the page that made it. */
  observationSeq: number;
  observedAt: string;
  source: UrlObserved['source'];
  markdownHash?: string | undefined;
  baseline?: UrlObserved['baseline'];
  /** The content formats the observed page's result holds (absent on older observations). */
  formats?: string[] | undefined;
  /** When that result was stored (a 304's observation names an older page's result). */
  resultStoredAt?: string | undefined;
}

export interface ConditionalBasis extends StoredBasis {
  /** The validators the observed response gave. */
  validators: Validators;
}

export interface BasisLimits {
  /** How long a page's stored result lives (PAYLOAD_TTL_MS; 0: forever). */
  payloadTtlMs: number;
  /** How long its markdown lives (BASELINE_TTL_MS; 0: forever). */
  baselineTtlMs: number;
}

/**
 * Whether the key's last observation of the URL can answer a 304 for this request:
 * conditional fetches are on, the page was there, its server gave validators, its result
 * was made with the same options and holds every format asked (markdown is also in the
 * baseline), and it is young enough that its stored result and markdown are surely still
 * kept (half their lifetime: a 304 then never finds them gone).
 */
export function conditionalBasis(
  last: { seq: number; data: UrlObserved } | null,
  options: ResolvedScrapeOptions,
  now: Date,
  limits: BasisLimits,
): ConditionalBasis | undefined {
  const basis = storedBasis(last, options, now, limits);
  return basis && last?.data.validators ? { ...basis, validators: last.data.validators } : undefined;
}

/** conditionalBasis without the validators: whether the stored page can stand for this request at all. */
export function storedBasis(
  last: { seq: number; data: UrlObserved } | null,
  options: ResolvedScrapeOptions,
  now: Date,
  limits: BasisLimits,
): StoredBasis | undefined {
  if (options.conditional === false || !last) return undefined;
  const d = last.data;
  if (d.state !== 'present' || !d.resultOptionsHash || !d.formats) return undefined;
  if (d.resultOptionsHash !== resultOptionsHash(options)) return undefined;
  const held = new Set([...d.formats, 'markdown']);
  if (!contentFormats(options).every((f) => held.has(f))) return undefined;
  // The result's age counts from when it was stored (a 304 reuses an older page's result).
  const ages: [number, string][] = [[limits.payloadTtlMs, d.resultStoredAt ?? d.observedAt], [limits.baselineTtlMs, d.observedAt]];
  if (ages.some(([ttl, since]) => ttl > 0 && now.getTime() - Date.parse(since) > ttl / 2)) return undefined;
  return {
    observationSeq: last.seq,
    observedAt: d.observedAt,
    source: d.source,
    ...(d.markdownHash ? { markdownHash: d.markdownHash } : {}),
    ...(d.baseline ? { baseline: d.baseline } : {}),
    formats: d.formats,
    resultStoredAt: d.resultStoredAt ?? d.observedAt,
  };
}

/** The reason page_fetched.notModified and the page's metadata give for a page skipped on its sitemap lastmod. */
export const SITEMAP_LASTMOD = 'sitemap-lastmod' as const;

/**
 * A recrawl skips a page whose sitemap <lastmod> is not newer than the key's last
 * observation of it (sitemaps.org: the date the page last changed). An unreadable lastmod
 * skips nothing.
 */
export function skipOnLastmod(lastmod: string | null | undefined, basis: Pick<StoredBasis, 'observedAt'>): boolean {
  if (!lastmod) return false;
  const changed = Date.parse(lastmod);
  return Number.isFinite(changed) && changed <= Date.parse(basis.observedAt);
}
