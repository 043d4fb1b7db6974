// The link graph of the crawl benchmark's site: `pages` article pages reachable from `/`
// within a few levels (each page links to its 8 children in a tree, so 500 pages are 3
// levels deep), with about 20 links per page counting the header navigation. A share of
// the links are duplicates in another spelling (a #fragment, a trailing slash) which a
// crawler must treat as the same page: the site counts requests per page to check that.
import { rng, type Link } from './pages.js';

export const CRAWL_BRANCHING = 8;

export function crawlPath(i: number): string {
  return i === 0 ? '/' : `/articles/p${i}`;
}

/** The page index of a request path (any of its spellings), or undefined for other paths. */
export function crawlPageOf(requestPath: string): number | undefined {
  const path = requestPath.split(/[?#]/)[0]!.replace(/(.)\/+$/, '$1');
  if (path === '/') return 0;
  const m = /^\/articles\/p(\d+)$/.exec(path);
  return m ? Number(m[1]) : undefined;
}

function variant(path: string, roll: number): string {
  if (roll < 0.2) return `${path}#section-${Math.floor(roll * 50)}`;
  if (roll < 0.4 && path !== '/') return `${path}/`;
  return path;
}

export interface CrawlPageLinks {
  nav: Link[];
  body: Link[];
}

/** Links of page i: header navigation (hubs) and body links (children, then others). */
export function crawlLinks(i: number, pages: number, seed = 7): CrawlPageLinks {
  const next = rng(seed * 100_003 + i);
  const nav: Link[] = [0, 1, 2, 3, 4, 5].filter((n) => n < pages).map((n) => ({ href: variant(crawlPath(n), next()), text: n === 0 ? 'Home' : `Topic ${n}` }));
  const body: Link[] = [];
  for (let c = i * CRAWL_BRANCHING + 1; c <= i * CRAWL_BRANCHING + CRAWL_BRANCHING && c < pages; c++) {
    body.push({ href: variant(crawlPath(c), next()), text: `Article ${c}` });
  }
  while (nav.length + body.length < 20) {
    const other = Math.floor(next() * pages);
    body.push({ href: variant(crawlPath(other), next()), text: `More: article ${other}` });
  }
  return { nav, body };
}
