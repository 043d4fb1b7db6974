// The elements the page's readers look at (metadata, structured data, links), gathered in
// one walk of the parsed page before any extractor changes it: each reader used to walk the
// whole document for its own few tags.
import { elementsWhere } from './text.js';

export interface PageElements {
  /** <meta>, <link> and <title>, in document order (pages put them in the body too). */
  head: Element[];
  /** <script type="application/ld+json"> (the type matched without case). */
  jsonLd: Element[];
  /** Elements with an itemscope attribute (microdata items). */
  itemscopes: Element[];
  /** <a href> and <area href>. */
  hrefs: Element[];
}

/** The page's elements of each kind, in document order, as querySelectorAll would list them. */
export function pageElements(document: Document): PageElements {
  const out: PageElements = { head: [], jsonLd: [], itemscopes: [], hrefs: [] };
  elementsWhere(document, (el) => {
    const name = el.localName;
    if (name === 'meta' || name === 'link' || name === 'title') out.head.push(el);
    else if (name === 'script' && (el.getAttribute('type') ?? '').toLowerCase() === 'application/ld+json') out.jsonLd.push(el);
    else if ((name === 'a' || name === 'area') && el.hasAttribute('href')) out.hrefs.push(el);
    if (el.hasAttribute('itemscope')) out.itemscopes.push(el);
    return false;
  });
  return out;
}
