// The page's outgoing links, for the `links` format and the crawl frontier. Taken from the
// whole page (navigation and footers included: that is where a site's structure lives),
// before onlyMainContent / includeTags / excludeTags narrow the content.
import { resolveHttpHref } from './dom.js';
import { pageElements, type PageElements } from './page-elements.js';

/**
 * Absolute http(s) URLs of <a href> and <area href>, in page order, deduplicated.
 * Fragment-only hrefs (#top), javascript:, mailto:, tel: and other schemes are dropped; the
 * fragment of every other link is removed, since it names a place in a page, not a page.
 */
export function extractLinks(document: Document, base: URL, elements: PageElements = pageElements(document)): string[] {
  const seen = new Set<string>();
  for (const el of elements.hrefs) {
    const href = el.getAttribute('href') ?? '';
    if (href.trimStart().startsWith('#')) continue;
    const url = resolveHttpHref(href, base);
    if (!url) continue;
    // A serialized URL's first '#' starts its fragment (one in a path or query is escaped).
    const hash = url.indexOf('#');
    seen.add(hash < 0 ? url : url.slice(0, hash));
  }
  return [...seen];
}
