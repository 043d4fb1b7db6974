// Cheaper answers to three questions Readability (0.6.0) asks of every node, given on our
// instance only, each returning what the library's own method returns on linkedom:
//   - _isProbablyVisible / isProbablyReaderable's visibility check read `node.style`, for
//     which linkedom builds a CSSStyleDeclaration (a Map, a Proxy and a WeakMap entry the
//     collector walks) on every element it is asked about. An element without a style
//     attribute shows display '' and visibility '': the style is read only when there is one;
//   - _isValidByline reads the text of every node it is asked about (textContent: a walk
//     and a joined string per node, quadratic on a deep page) before testing its rel,
//     itemprop and names: the text is read only when those say "author";
//   - _getAllNodesWithTag asks querySelectorAll for a list of tag names, which linkedom
//     compiles into a matcher (css-select) on every call, tens of times per page: a plain
//     walk by name, template contents skipped as linkedom's querySelectorAll skips them;
//   - _getLinkDensity and _getTextDensity join an element's text (and each link's) into a
//     string and collapse its spaces only to take its length: the length of
//     textContent.trim() with whitespace runs as one (_getInnerText's), counted along the
//     text nodes (collapsedTextLength). The scoring walk asks it of nearly every div, and of
//     their ancestors again: it was the largest share of Readability's time;
//   - _isElementWithoutContent reads the whole textContent of every div and section to see
//     whether it is blank: a walk that stops at the first visible character (hasText);
//   - _grabArticle keeps the body as HTML (innerHTML, a serialisation of the whole page on
//     every page) to parse it back when an attempt finds too little text and it tries again
//     with fewer flags: a deep copy of the body is kept instead, and put back on a retry
//     (bodySnapshots below).
// If a new Readability renames these methods, the overrides are dead code, not wrong
// answers: the library's own methods run.
import { isProbablyReaderable, type Readability } from '@mozilla/readability';
import { CollapsedCount, collapsedTextLength, elementsWhere, hasText } from './text.js';
import { END_MARKER, endOf, isListed, nextNode, type ListNode } from './tree-order.js';

interface ReadabilityInternals {
  REGEXPS: { byline: RegExp; hashUrl: RegExp };
  _doc: Document;
  parse(): unknown;
  _isProbablyVisible(node: Element): boolean;
  _isValidByline(node: Element, matchString: string): boolean;
  _getAllNodesWithTag(node: ParentNode, tagNames: readonly string[]): ArrayLike<Element>;
  _getLinkDensity(element: Element): number;
  _getTextDensity(element: Element, tags: readonly string[]): number;
  _isElementWithoutContent(node: Element): boolean;
}

/**
 * A bare tag name, in either case: what the walk can match (anything else goes to
 * querySelectorAll). _cleanConditionally asks for its text-ish tags upper-cased
 * ("SPAN", "LI", "TD", "DIV", ...), which css-select lower-cases in an HTML document.
 */
const TAG_NAME = /^[a-z][a-z0-9]*$/i;

/** Gives `reader` the cheaper methods above (in place). */
export function speedUpReadability<T>(reader: Readability<T>): Readability<T> {
  const inner = reader as unknown as ReadabilityInternals;
  const visible = inner._isProbablyVisible.bind(inner);
  const byline = inner._isValidByline.bind(inner);
  const allWithTag = inner._getAllNodesWithTag.bind(inner);
  inner._isProbablyVisible = (node) => (node.hasAttribute('style') ? visible(node) : unstyledVisible(node));
  inner._isValidByline = (node, matchString) => {
    const itemprop = node.getAttribute('itemprop');
    if (!(node.getAttribute('rel') === 'author' || itemprop?.includes('author') || inner.REGEXPS.byline.test(matchString))) return false;
    return byline(node, matchString);
  };
  inner._getAllNodesWithTag = (node, tagNames) => {
    if (!tagNames.every((t) => TAG_NAME.test(t))) return allWithTag(node, tagNames);
    // css-select matches an HTML element's name lower-cased, against the selector's lower-cased.
    if (tagNames.length === 1) {
      const only = tagNames[0]!.toLowerCase();
      return elementsWhere(node, (el) => el.localName.toLowerCase() === only);
    }
    const names = new Set(tagNames.map((t) => t.toLowerCase()));
    return elementsWhere(node, (el) => names.has(el.localName.toLowerCase()));
  };
  if (inner._getLinkDensity && inner._getTextDensity && inner._isElementWithoutContent) {
    const withoutContent = inner._isElementWithoutContent.bind(inner);
    inner._getLinkDensity = (element) => {
      if (isListed(element)) return listedLinkDensity(element, inner.REGEXPS.hashUrl);
      const textLength = collapsedTextLength(element);
      if (textLength === 0) return 0;
      let linkLength = 0;
      for (const link of element.getElementsByTagName('a')) {
        const href = link.getAttribute('href');
        linkLength += collapsedTextLength(link) * (href && inner.REGEXPS.hashUrl.test(href) ? 0.3 : 1);
      }
      return linkLength / textLength;
    };
    inner._getTextDensity = (element, tags) => {
      const textLength = collapsedTextLength(element);
      if (textLength === 0) return 0;
      let childrenLength = 0;
      for (const child of inner._getAllNodesWithTag(element, tags) as Element[]) childrenLength += collapsedTextLength(child);
      return childrenLength / textLength;
    };
    inner._isElementWithoutContent = (node) => node.nodeType === 1 && !hasText(node) && withoutContent(node);
  }
  const parse = inner.parse.bind(inner);
  inner.parse = () => {
    const restore = bodySnapshots(inner._doc.body);
    try {
      return parse();
    } finally {
      restore();
    }
  };
  return reader;
}

/**
 * _getLinkDensity in one walk along linkedom's list: the element's text and each link's
 * (links in links each counted, as getElementsByTagName lists them), summed in the links'
 * order as the library sums them, so the figure is the same to the last bit.
 */
function listedLinkDensity(element: Element, hashUrl: RegExp): number {
  const text = new CollapsedCount();
  const links: Array<{ count: CollapsedCount; weight: number }> = [];
  const open: Array<{ end: ListNode; count: CollapsedCount }> = [];
  const end = endOf(element);
  for (let node = nextNode(element); node !== end; node = nextNode(node)) {
    if (node.nodeType === 3 || node.nodeType === 4) {
      const data = (node as unknown as CharacterData).data;
      text.add(data);
      for (const link of open) link.count.add(data);
    } else if (node.nodeType === 1) {
      // getElementsByTagName, which the library asks for the links, lists a template's too.
      if ((node.localName ?? '').toLowerCase() !== 'a') continue;
      const href = (node as unknown as Element).getAttribute('href');
      const count = new CollapsedCount();
      links.push({ count, weight: href && hashUrl.test(href) ? 0.3 : 1 });
      open.push({ end: endOf(node), count });
    } else if (node.nodeType === END_MARKER && open.length > 0 && open[open.length - 1]!.end === node) {
      open.pop();
    }
  }
  if (text.length === 0) return 0;
  let linkLength = 0;
  for (const { count, weight } of links) linkLength += count.length * weight;
  return linkLength / text.length;
}

/**
 * While Readability parses: `body.innerHTML` read gives a token and keeps a deep copy of the
 * body; the token written back puts a fresh copy of that body's children in place (what
 * parsing the HTML back gave, without the serialisation and the parse). Anything else
 * written goes to linkedom. Returns the function that takes the accessor away.
 */
function bodySnapshots(body: HTMLElement | null): () => void {
  if (!body) return () => {};
  const snapshots = new Map<string, Element>();
  const proto = Object.getPrototypeOf(body) as object;
  const native = innerHtmlAccessor(proto);
  if (!native?.get || !native.set) return () => {};
  Object.defineProperty(body, 'innerHTML', {
    configurable: true,
    get: () => {
      const token = `${SNAPSHOT_TOKEN}${snapshots.size}`;
      snapshots.set(token, body.cloneNode(true) as Element);
      return token;
    },
    set: (html: string) => {
      const snapshot = snapshots.get(html);
      if (!snapshot) return native.set!.call(body, html);
      const copy = snapshot.cloneNode(true) as Element;
      body.replaceChildren(...copy.childNodes);
    },
  });
  return () => {
    delete (body as { innerHTML?: string }).innerHTML;
  };
}

/** What a body's innerHTML reads while Readability parses (no page's HTML starts so). */
const SNAPSHOT_TOKEN = '\u0000trawl-body-snapshot-';

function innerHtmlAccessor(proto: object | null): PropertyDescriptor | undefined {
  for (let p = proto; p; p = Object.getPrototypeOf(p) as object | null) {
    const d = Object.getOwnPropertyDescriptor(p, 'innerHTML');
    if (d) return d;
  }
  return undefined;
}

/** isProbablyReaderable(document) with the cheaper visibility check below. */
export function probablyReaderable(document: Document): boolean {
  return isProbablyReaderable(readerableQueries(document), { visibilityChecker: readerableVisible });
}

const READERABLE_BLOCKS = new Set(['p', 'pre', 'article']);

/**
 * The document as isProbablyReaderable reads it (its two querySelectorAll calls, nothing
 * else), answering its two selectors by a walk (see _getAllNodesWithTag above): linkedom
 * compiles each one and runs the matcher on every element; any other selector (a new
 * version's) goes to the document.
 */
function readerableQueries(document: Document): Document {
  const querySelectorAll = (selector: string): ArrayLike<Element> => {
    if (selector === 'p, pre, article') return elementsWhere(document, (el) => READERABLE_BLOCKS.has(el.localName.toLowerCase()));
    if (selector === 'div > br') return elementsWhere(document, (el) => el.localName.toLowerCase() === 'br' && el.parentElement?.localName.toLowerCase() === 'div');
    return document.querySelectorAll(selector);
  };
  return { querySelectorAll } as unknown as Document;
}

/**
 * isProbablyReaderable's visibility check (its isNodeVisible: display, hidden, aria-hidden
 * with the fallback-image exception), reading the style only when the element has one.
 */
export function readerableVisible(node: Node): boolean {
  const el = node as HTMLElement;
  if (el.hasAttribute('style') && el.style.display == 'none') return false;
  return notHidden(el);
}

/** _isProbablyVisible for an element without a style attribute. */
function unstyledVisible(node: Element): boolean {
  return notHidden(node);
}

function notHidden(node: Element): boolean {
  if (node.hasAttribute('hidden')) return false;
  if (!node.hasAttribute('aria-hidden') || node.getAttribute('aria-hidden') != 'true') return true;
  const className = (node as { className?: unknown }).className;
  return !!(className && typeof (className as string).includes === 'function' && (className as string).includes('fallback-image'));
}
