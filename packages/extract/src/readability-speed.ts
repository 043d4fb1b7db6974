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
//     walk by name, template contents skipped as linkedom's querySelectorAll skips them.
// If a new Readability renames these methods, the overrides are dead code, not wrong
// answers: the library's own methods run.
import { isProbablyReaderable, type Readability } from '@mozilla/readability';
import { elementsWhere } from './text.js';

interface ReadabilityInternals {
  REGEXPS: { byline: RegExp };
  _isProbablyVisible(node: Element): boolean;
  _isValidByline(node: Element, matchString: string): boolean;
  _getAllNodesWithTag(node: ParentNode, tagNames: readonly string[]): ArrayLike<Element>;
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
  return reader;
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
