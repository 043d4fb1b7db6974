// The scrape result cache key (spec "Caching rules"): SHA-256 of the normalized URL and the
// options that change the result; which options are in it and why: docs/api.md "Cache".
// Requests with custom headers are cached per API key: headers may carry credentials, and
// one key must never be served a page fetched with another key's cookies.
import { sha256Hex } from '../infra/ids.js';
import type { ResolvedScrapeOptions } from './scrape-options.js';

/** JSON with object keys sorted, so equal options always hash the same. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function scrapeCacheKey(url: string, options: ResolvedScrapeOptions, apiKeyId: string): string {
  // `conditional` only says how the page may be fetched, not what it is.
  const { timeoutMs: _timeout, conditional: _conditional, screenshot, ...rest } = options;
  void _timeout;
  void _conditional;
  const shot = screenshot ? { fullPage: screenshot.fullPage, format: screenshot.format, quality: screenshot.quality, clip: screenshot.clip ?? null } : null;
  const scope = Object.keys(options.headers).length > 0 ? apiKeyId : '*';
  return sha256Hex(canonicalJson({ v: 1, url, options: { ...rest, screenshot: shot }, scope }));
}
