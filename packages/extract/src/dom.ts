// The one parse of a page. linkedom was chosen over jsdom and happy-dom after measuring
// all three with Readability on the 69 fixture pages (bench notes in the transformer
// report): linkedom parse + Readability is ~5x faster than jsdom with the same extraction
// score, happy-dom is ~2.5x faster than jsdom but lost whole articles (cnet). Its
// parser (htmlparser2) is not a full HTML5 tree builder, which is fine for our input:
// Chromium's serialization of the rendered DOM is always well-formed.
//
// linkedom is patched (patches/linkedom+*.patch, applied by patch-package on install): its
// EventTarget gave every node a WeakMap entry and a Map at construction, for listeners
// that no page transform adds. A 100 KB page builds tens of thousands of nodes (parse,
// Readability's clones, turndown's); the patch creates the map on the first
// addEventListener, which cut the transform's CPU by about 16% (70 to 59 ms per bench
// page, a quarter of it in V8's collector, which walks WeakMap entries) and its heaps.
import { parseHTML } from 'linkedom';
import { ValidationError } from '../../../shared/src/domain/errors.js';

/** Parses an HTML document; fragments and body-less documents get a body. */
export function parseDocument(html: string): Document {
  const source = /<html[\s>]/i.test(html) ? html : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
  const document = parseHTML(source).document as unknown as Document;
  lowerCaseCreatedElements(document);
  ensureBody(document);
  polyfillTableRows(document);
  return document;
}

/**
 * In an HTML document createElement lower-cases the name; linkedom does not, so
 * Readability's createElement("DIV") would serialize as <DIV> in the html output.
 */
function lowerCaseCreatedElements(document: Document): void {
  const create = document.createElement.bind(document);
  document.createElement = ((name: string, options?: ElementCreationOptions) => create(name.toLowerCase(), options)) as typeof document.createElement;
}

/** `<html>` without `<body>` (hand-written pages): move everything but `<head>` into one. */
function ensureBody(document: Document): void {
  if (document.body) return;
  const root = document.documentElement;
  const body = document.createElement('body');
  for (const child of [...root.childNodes]) {
    if (child.nodeName !== 'HEAD') body.appendChild(child);
  }
  root.appendChild(body);
}

let tableRowsPatched = false;
/**
 * linkedom has no HTMLTableElement.rows (tables are plain HTMLElements), which
 * @joplin/turndown-plugin-gfm reads to turn tables into GFM: without it every table is
 * flattened into loose cells. The getter answers for TABLE only (undefined elsewhere) and
 * is computed on access because turndown converts a clone of the tree.
 */
function polyfillTableRows(document: Document): void {
  if (tableRowsPatched) return;
  tableRowsPatched = true;
  const proto = Object.getPrototypeOf(document.createElement('table')) as object;
  if ('rows' in proto) return;
  Object.defineProperty(proto, 'rows', {
    configurable: true,
    // Read once per cell by the plugin: localName and element siblings, not linkedom's
    // nodeName (a new upper-cased string per read) and children (a new array per read).
    get(this: Element) {
      if (this.localName !== 'table') return undefined;
      const rows: Element[] = [];
      for (let child = this.firstElementChild; child; child = child.nextElementSibling) {
        const name = child.localName;
        if (name === 'tr') rows.push(child);
        else if (name === 'thead' || name === 'tbody' || name === 'tfoot') {
          for (let row = child.firstElementChild; row; row = row.nextElementSibling) if (row.localName === 'tr') rows.push(row);
        }
      }
      return rows;
    },
  });
}

/**
 * The class attribute, as getAttribute('class') returns it in linkedom ('' when there is
 * none), read from the attribute node: linkedom answers getAttribute('class') by joining
 * the element's class list into a new string on every read (and builds a list for an
 * element that has no class). The node's value is that joined string, kept in step by
 * every class change.
 */
export function classOf(el: Element): string {
  return el.getAttributeNode('class')?.value ?? '';
}

/** The base for relative URLs: `<base href>` (itself relative to the page URL) or the page URL. */
export function documentBaseUrl(document: Document, pageUrl: URL): URL {
  // <base> belongs in <head>: looking only there avoids a walk of the whole body.
  const href = (document.head ?? document).querySelector('base[href]')?.getAttribute('href')?.trim();
  if (href) {
    try {
      const base = new URL(href, pageUrl);
      if (base.protocol === 'http:' || base.protocol === 'https:') return base;
    } catch {
      // An unparsable <base> is ignored, as browsers do.
    }
  }
  return pageUrl;
}

/** Absolute http(s) URL for an attribute value, or undefined (javascript:, mailto:, junk). */
export function resolveHttpUrl(value: string, base: URL): URL | undefined {
  const trimmed = value.trim();
  if (!trimmed) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

const resolvedByBase = new WeakMap<URL, Map<string, string | undefined>>();

/**
 * resolveHttpUrl(value, base)?.href, remembered per base: a page resolves most of its links
 * twice (the links format, then the body's attributes) and repeats many (menus, footers),
 * and parsing a URL is a visible part of the transform's CPU.
 */
export function resolveHttpHref(value: string, base: URL): string | undefined {
  let memo = resolvedByBase.get(base);
  if (!memo) resolvedByBase.set(base, (memo = new Map()));
  if (memo.has(value)) return memo.get(value);
  const href = resolveHttpUrl(value, base)?.href;
  memo.set(value, href);
  return href;
}

/** querySelectorAll that reports a bad user selector as a ValidationError naming the field. */
export function selectAll(root: ParentNode, selector: string, field: string): Element[] {
  try {
    return [...root.querySelectorAll(selector)];
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ValidationError(`${field}: invalid CSS selector ${JSON.stringify(selector)} (${reason})`, field);
  }
}
