// Which links join a crawl: pure rules, no IO (robots.txt is decided at the edge and passed
// in as a predicate): the path globs of includePaths/excludePaths, then checkLink.
import { Minimatch, type MinimatchOptions } from 'minimatch';
import { normalizeUrl, siteHost, urlKeyHash } from '../../../../shared/src/net/url-normalize.js';
import type { CrawlSkipReason } from '../../../../shared/src/domain/events/job.js';
import { LRUCache } from 'lru-cache';

const GLOB_OPTIONS: MinimatchOptions = { dot: true, matchBase: true, nonegate: true, nocomment: true };

export interface LinkRules {
  startUrl: string;
  maxDepth: number;
  allowExternalLinks: boolean;
  includePaths: readonly string[];
  excludePaths: readonly string[];
}

export type PathMatcher = (pathname: string) => boolean;

function anchor(pattern: string): string {
  const p = pattern.trim();
  if (p.includes('/') && !p.startsWith('/') && !p.startsWith('*')) return `/${p}`;
  return p;
}

/** The path a pattern is matched against: decoded, without a trailing slash (except "/"). */
export function matchPath(url: URL): string {
  let path = url.pathname;
  try { path = decodeURIComponent(path); } catch { /* keep it encoded when it is not valid UTF-8 */ }
  return path.length > 1 ? path.replace(/\/+$/, '') || '/' : path;
}

const compiled = new LRUCache<string, PathMatcher>({ max: 500 });

// Glob patterns (docs/api.md "Crawl path patterns") are minimatch globs matched against the
// URL's path only (no host, no query), percent-decoded, with a trailing slash removed:
//   /docs/*       pages directly under /docs/ (/docs/a, /docs/a/ - not /docs, not /docs/a/b)
//   /docs/**      pages under /docs/ at any depth (/docs/a, /docs/a/b/c - not /docs itself)
//   *.pdf         a pattern without "/" matches the last path segment: any PDF at any depth
//   /blog/2024-*  one segment beginning "2024-" under /blog (use /blog/2024-*/** for deeper)
// Matching is case-sensitive, like URL paths. A pattern with a "/" that does not start with
// "/" or "*" is anchored at the root ("docs/*" is "/docs/*"). Exclude wins over include.
/** True when any pattern matches; compiled once per pattern list (bounded memo). */
export function pathMatcher(patterns: readonly string[]): PathMatcher {
  const cacheKey = JSON.stringify(patterns);
  let matcher = compiled.get(cacheKey);
  if (!matcher) {
    const globs = patterns.map((p) => new Minimatch(anchor(p), GLOB_OPTIONS));
    matcher = (pathname) => globs.some((g) => g.match(pathname));
    compiled.set(cacheKey, matcher);
  }
  return matcher;
}

/** The include/exclude rule alone: exclude wins; an empty include list includes everything. */
export function pathAllowed(url: URL, rules: Pick<LinkRules, 'includePaths' | 'excludePaths'>): boolean {
  return matchPathAllowed(matchPath(url), rules);
}

/** pathAllowed of a path already in its match form (matchPath). */
function matchPathAllowed(path: string, rules: Pick<LinkRules, 'includePaths' | 'excludePaths'>): boolean {
  if (rules.excludePaths.length > 0 && pathMatcher(rules.excludePaths)(path)) return false;
  if (rules.includePaths.length > 0 && !pathMatcher(rules.includePaths)(path)) return false;
  return true;
}

export interface Candidate {
  /** What is fetched: the first variant seen, fragment removed. */
  url: string;
  /** Page key (subject token): hash of the normalized key. */
  pageKey: string;
}

export type Verdict = { accept: true; candidate: Candidate } | { accept: false; reason: CrawlSkipReason };

// The order of a link's checks, each with its skip reason (robots, duplicate and limit are
// decided after these, by the frontier):
//   invalid   not an http(s) URL
//   depth     the link's depth (parent depth + 1) exceeds maxDepth
//   external  another host than the start URL's (modulo `www.`) and allowExternalLinks is off
//   pattern   excluded by excludePaths, or includePaths is given and none matches
//   robots    disallowed by the host's robots.txt (unless ignoreRobots)
//   duplicate the same normalized key was already accepted (or twice on this page)
//   limit     the crawl already holds `limit` pages
/** What the checks need of a link, whatever the crawl: its fetched form, page key, site host and match path (null: not http(s)). */
interface LinkFacts { url: string; pageKey: string; site: string; path: string }

/**
 * Links seen lately, by their text as found. A site's links repeat on every page (its
 * navigation), and each is judged when its page completes and again for robots.txt: a
 * parse, a normalization and a hash each time. Bounded; the oldest go first.
 */
const SEEN_LINKS_KEPT = 20_000;
/** `false`: not an http(s) URL (the cache holds no null). */
const seenLinks = new LRUCache<string, LinkFacts | false>({ max: SEEN_LINKS_KEPT });

function factsOf(raw: string): LinkFacts | null {
  const known = seenLinks.get(raw);
  if (known !== undefined) return known || null;
  const normalized = normalizeUrl(raw);
  let facts: LinkFacts | null = null;
  if (normalized) {
    const url = new URL(normalized.url);
    facts = { url: normalized.url, pageKey: urlKeyHash(normalized.key), site: siteHost(url), path: matchPath(url) };
  }
  seenLinks.set(raw, facts ?? false);
  return facts;
}

/** The pure checks (invalid, depth, external, pattern) for one link found at `depth - 1`. */
export function checkLink(raw: string, depth: number, rules: LinkRules): Verdict {
  const facts = factsOf(raw);
  if (!facts) return { accept: false, reason: 'invalid' };
  if (depth > rules.maxDepth) return { accept: false, reason: 'depth' };
  if (!rules.allowExternalLinks && facts.site !== (factsOf(rules.startUrl)?.site ?? siteHost(rules.startUrl))) return { accept: false, reason: 'external' };
  if (!matchPathAllowed(facts.path, rules)) return { accept: false, reason: 'pattern' };
  return { accept: true, candidate: { url: facts.url, pageKey: facts.pageKey } };
}

/** The page key of a URL, or null for a URL that is not http(s). */
export function pageKeyOfUrl(raw: string): string | null {
  return factsOf(raw)?.pageKey ?? null;
}
