// Map result filtering (pure, no IO): normalization and deduplication, the same-site rule,
// the search keyword and the limit. Used while discovering (so duplicates and other sites
// never fill the collection) and once at the end (ranking and the limit).
import { isSameSite, normalizeUrl } from '../../../../shared/src/net/url-normalize.js';

export interface LinkFilterOptions {
  /** The URL the map was asked for: defines the site. */
  baseUrl: string;
  includeSubdomains: boolean;
  search?: string;
}

/** Where a term was found, best first. */
const TIER = { segment: 0, path: 1, host: 2, query: 3 } as const;

// Rules (docs/api.md "Map"):
//   - Every URL is normalized with shared/src/net/url-normalize.ts; two URLs with the same key
//     (www. prefix, trailing slash, index file, query order, utm_* ignored) are one entry,
//     reported in the form first discovered (fragment removed, scheme and host lower-cased,
//     default port removed).
//   - Same site: the host of the map URL, modulo a leading `www.`. With includeSubdomains,
//     any host under it too (blog.example.com for example.com). Everything else is dropped.
//   - Search: case-insensitive. The keyword is split on whitespace; a URL matches when it
//     contains every term (in its percent-decoded form, scheme excluded). Matches are
//     ranked: a term that is a whole path segment ranks first, then a term inside the path,
//     then in the host, then in the query string; ties go to the shorter URL, then to
//     discovery order. Without a search, URLs keep discovery order.
//   - At most `limit` entries.
export function searchTerms(search: string | undefined): string[] {
  return (search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Relevance of a URL for the search terms: lower is better, null when a term is missing.
 * Sum of each term's best tier (see TIER).
 */
export function searchScore(url: string, terms: string[]): number | null {
  if (terms.length === 0) return 0;
  let parsed: URL;
  try { parsed = new URL(url); } catch { return null; }
  const path = decoded(parsed.pathname).toLowerCase();
  const segments = path.split('/').filter(Boolean).map((s) => s.replace(/\.[a-z0-9]{1,5}$/, ''));
  const host = parsed.hostname.toLowerCase();
  const query = decoded(parsed.search).toLowerCase();
  let score = 0;
  for (const term of terms) {
    if (segments.includes(term)) score += TIER.segment;
    else if (path.includes(term)) score += TIER.path;
    else if (host.includes(term)) score += TIER.host;
    else if (query.includes(term)) score += TIER.query;
    else return null;
  }
  return score;
}

interface Entry {
  url: string;
  order: number;
  score: number;
}

/**
 * Collects discovered links: keeps same-site, search-matching URLs, one per normalized key.
 * `add` is cheap enough to call for every one of 50,000 sitemap entries.
 */
export class LinkCollector {
  private readonly keys = new Set<string>();
  private readonly entries: Entry[] = [];
  private readonly terms: string[];
  private readonly base: URL;
  private sameSite = 0;

  constructor(private readonly opts: LinkFilterOptions, private readonly maxEntries = Infinity) {
    this.base = new URL(opts.baseUrl);
    this.terms = searchTerms(opts.search);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Same-site URLs offered (kept or not by the search): did the source know the site at all? */
  get sameSiteSeen(): number {
    return this.sameSite;
  }

  /** No more entries are kept once full. */
  get full(): boolean {
    return this.entries.length >= this.maxEntries;
  }

  /** Whether the collection ranks results (a search was given). */
  get ranked(): boolean {
    return this.terms.length > 0;
  }

  /** Adds a URL (relative ones resolve against `base`); true when it was new and kept. */
  add(raw: string, base?: string): boolean {
    if (this.full) return false;
    const normalized = normalizeUrl(raw, base);
    if (!normalized || this.keys.has(normalized.key)) return false;
    if (!isSameSite(normalized.url, this.base, this.opts.includeSubdomains)) return false;
    this.sameSite++;
    const score = searchScore(normalized.url, this.terms);
    if (score === null) return false;
    this.keys.add(normalized.key);
    this.entries.push({ url: normalized.url, order: this.entries.length, score });
    return true;
  }

  /** The result: ranked when searching, discovery order otherwise; at most `limit`. */
  links(limit: number): string[] {
    if (!this.ranked) return this.entries.slice(0, limit).map((e) => e.url);
    return [...this.entries]
      .sort((a, b) => a.score - b.score || a.url.length - b.url.length || a.order - b.order)
      .slice(0, limit)
      .map((e) => e.url);
  }
}
