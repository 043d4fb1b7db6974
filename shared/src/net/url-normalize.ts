// URL normalization for deduplication (map, crawl, cache keys). Two forms:
//   - `url`: what is fetched: absolute, fragment removed, default port removed, scheme and
//     host lower-cased (WHATWG URL does those). The first variant discovered is fetched.
//   - `key`: what is compared: `url` plus the documented equivalences below, so that
//     variants of one page are one page (docs/api.md "URL normalization"):
//       * `www.` host prefix ignored             (www.example.com == example.com)
//       * trailing slash ignored                 (/docs/ == /docs)
//       * directory index files ignored          (/docs/index.html == /docs/)
//       * query parameters sorted, utm_* and empty `?` dropped
import { sha256Hex } from '../infra/ids.js';

export interface NormalizedUrl {
  url: string;
  key: string;
}

const INDEX_FILE = /\/(index|default)\.(html?|php|aspx?)$/i;

/**
 * The path's key form. Index files and trailing slashes are removed until neither is
 * left, so the order they appear in does not matter (`/index.html/` and `/index.html` and
 * `/` are one page) and a key's own key is itself.
 */
function keyPath(pathname: string): string {
  let path = pathname;
  for (;;) {
    const next = path.replace(INDEX_FILE, '/').replace(/(.)\/+$/, '$1');
    if (next === path) return path;
    path = next;
  }
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function normalizeUrl(raw: string, base?: string | URL): NormalizedUrl | null {
  let parsed: URL;
  try {
    parsed = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    return null;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return null;
  if (!parsed.hostname) return null;
  parsed.hash = '';
  parsed.username = '';
  parsed.password = '';
  const url = parsed.toString();

  const keyUrl = new URL(url);
  keyUrl.hostname = keyUrl.hostname.replace(/^(www\.)+/, '');
  // Setting the path resolves dot segments the parser left (`/a/.` -> `/a/`), which can
  // leave a trailing slash again: repeat until the path is stable.
  for (let before = ''; before !== keyUrl.pathname;) {
    before = keyUrl.pathname;
    keyUrl.pathname = keyPath(before);
  }
  const params = [...keyUrl.searchParams.entries()]
    .filter(([name]) => !name.toLowerCase().startsWith('utm_'))
    .sort(([a, av], [b, bv]) => compare(a, b) || compare(av, bv));
  keyUrl.search = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return { url, key: keyUrl.toString() };
}

/** The page key of a URL within a job: derived from the normalized key (see ids.pageKeyOf). */
export function urlKeyHash(key: string): string {
  return sha256Hex(key).slice(0, 16);
}

/** Registrable-ish base domain for same-site checks: host without a leading `www.`. */
export function siteHost(url: URL | string): string {
  const host = typeof url === 'string' ? new URL(url).hostname : url.hostname;
  return host.replace(/^www\./, '');
}

/** Same site: same host modulo `www.`; with subdomains, any host under the base host too. */
export function isSameSite(candidate: URL | string, base: URL | string, includeSubdomains = false): boolean {
  const c = siteHost(candidate);
  const b = siteHost(base);
  return c === b || (includeSubdomains && c.endsWith(`.${b}`));
}
