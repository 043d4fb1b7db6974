// Text measures of a subtree, computed in one walk so that scoring many elements stays linear
// in the size of the page (textContent per element would be quadratic on deep pages).
import { END_MARKER, endOf, isListed, nextNode } from './tree-order.js';

export interface TextStats {
  /** Visible-text length, whitespace runs counted as one. */
  text: number;
  /** The part of it inside links. */
  link: number;
}

/** Text and link-text length of every element under and including `root`. */
export function textStats(root: Element): Map<Element, TextStats> {
  const stats = new Map<Element, TextStats>();
  measure(root, stats, false);
  return stats;
}

/**
 * What textStats(within) holds for `el` (an element under `within`), measured on its own
 * subtree: for a few elements of a big subtree, without measuring all of it.
 */
export function statsWithin(el: Element, within: Element): TextStats {
  let inLink = false;
  for (let a: Element | null = el.parentElement; a && !inLink; a = a === within ? null : a.parentElement) inLink = a.localName === 'a';
  return measure(el, new Map(), inLink);
}

function measure(el: Element, stats: Map<Element, TextStats>, inLink: boolean): TextStats {
  return isListed(el) ? measureListed(el, stats, inLink) : measureTree(el, stats, inLink);
}

interface Frame {
  el: Element;
  own: TextStats;
  linked: boolean;
}

/** measureTree along linkedom's node list: an element's stats are kept at its end marker (the same post-order). */
function measureListed(root: Element, stats: Map<Element, TextStats>, inLink: boolean): TextStats {
  const open: Frame[] = [];
  let top: Frame = { el: root, own: { text: 0, link: 0 }, linked: inLink || root.localName === 'a' };
  const end = endOf(root);
  for (let node = nextNode(root); node !== end; node = nextNode(node)) {
    const type = node.nodeType;
    if (type === 3) {
      const n = collapsedLength((node as unknown as Text).data);
      top.own.text += n;
      if (top.linked) top.own.link += n;
    } else if (type === 1) {
      open.push(top);
      top = { el: node as Element, own: { text: 0, link: 0 }, linked: top.linked || node.localName === 'a' };
    } else if (type === END_MARKER) {
      stats.set(top.el, top.own);
      const parent = open.pop()!;
      parent.own.text += top.own.text;
      parent.own.link += top.own.link;
      top = parent;
    }
  }
  stats.set(root, top.own);
  return top.own;
}

function measureTree(el: Element, stats: Map<Element, TextStats>, inLink: boolean): TextStats {
  const own: TextStats = { text: 0, link: 0 };
  // localName, and siblings instead of childNodes: linkedom upper-cases a new string on each
  // read of nodeName and builds a new array on each read of childNodes (this walk visits
  // every node of the page, several times per transform).
  const linked = inLink || el.localName === 'a';
  for (let child = el.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) {
      const n = collapsedLength((child as Text).data);
      own.text += n;
      if (linked) own.link += n;
    } else if (child.nodeType === 1) {
      const sub = measureTree(child as Element, stats, linked);
      own.text += sub.text;
      own.link += sub.link;
    }
  }
  stats.set(el, own);
  return own;
}

/** Share of an element's text that is link text (0 for an empty element). */
export function linkDensity(s: TextStats | undefined): number {
  return s && s.text ? s.link / s.text : 0;
}

/**
 * Length of a text with whitespace runs counted as one character and the ends trimmed: the
 * length of `text.replace(/\s+/g, ' ').trim()`, counted without building that string (it runs
 * on every text node of a page, several times per transform).
 */
export function collapsedLength(text: string): number {
  return new CollapsedCount().add(text).length;
}

/** The length of text fed piece by piece, as if joined, whitespace runs collapsed and trimmed. */
export class CollapsedCount {
  length = 0;
  private started = false; // a non-space character was counted
  private space = false; // whitespace since the last one (counted once, if more text follows)

  add(text: string): this {
    for (let i = 0; i < text.length; i++) {
      if (isSpace(text.charCodeAt(i))) {
        this.space = this.started;
      } else {
        if (this.space) this.length++;
        this.length++;
        this.started = true;
        this.space = false;
      }
    }
    return this;
  }
}

/**
 * `el.textContent.replace(/\s+/g, ' ').trim().length` (its text and CDATA nodes in document
 * order, whitespace runs across node boundaries counted as one), counted along linkedom's
 * list without joining the subtree's text into one string and collapsing it (the whole main
 * content's text, once per transform).
 */
export function collapsedTextLength(el: Element): number {
  if (!isListed(el)) return collapsedLength(el.textContent ?? '');
  const count = new CollapsedCount();
  const end = endOf(el);
  for (let node = nextNode(el); node !== end; node = nextNode(node)) {
    if (node.nodeType === 3 || node.nodeType === 4) count.add((node as unknown as CharacterData).data);
  }
  return count.length;
}

/** Whether `text` has a character other than whitespace (`\S`), without collapsing it. */
export function hasNonSpace(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) return true;
  return false;
}

/** The code units `\s` matches (ECMAScript WhiteSpace and LineTerminator, as trim() uses). */
function isSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029
    || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** Whether an element holds any visible text (textContent not all whitespace), stopping at the first. */
export function hasText(el: Node): boolean {
  for (let child = el.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3 || child.nodeType === 4) {
      if (hasNonSpace((child as CharacterData).data)) return true;
    } else if (child.nodeType === 1 && hasText(child)) {
      return true;
    }
  }
  return false;
}

/** Elements under `root` in document order, skipping the subtree of any element `skip` accepts. */
export function* walkElements(root: Element, skip?: (el: Element) => boolean): Generator<Element> {
  // linkedom builds a new list on each read of `children`: read once per element.
  const stack: Element[] = [...root.children].reverse();
  while (stack.length) {
    const el = stack.pop()!;
    yield el;
    if (skip?.(el) || !el.parentNode) continue;
    const children = el.children;
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
}

/**
 * The element after `el` in document order within `root` (templates' contents skipped), or
 * null at the end: the step of elementsWhere's and firstElementWhere's walks on a DOM other
 * than linkedom's (on linkedom they step along its node list, tree-order.ts).
 */
function nextInTree(el: Element, root: ParentNode): Element | null {
  let next = el.localName === 'template' ? null : el.firstElementChild;
  // Up to the next sibling of the nearest ancestor (below root) that has one.
  for (let up: Element | null = el; !next && up && up !== root; up = up.parentElement) {
    next = up.nextElementSibling;
    if (up.parentNode === root) break;
  }
  return next;
}

/**
 * The descendants of `root` that `test` accepts, in document order: what
 * querySelectorAll(selector) returns for a selector that `test` states, template contents
 * skipped as linkedom's querySelectorAll skips them. A plain walk: linkedom compiles the
 * selector on every call and runs the compiled matcher on every element, which made the
 * metadata and final-pass walks a visible part of the transform's CPU.
 */
export function elementsWhere(root: ParentNode, test: (el: Element) => boolean): Element[] {
  const out: Element[] = [];
  if (isListed(root)) {
    const end = endOf(root);
    for (let node = nextNode(root); node !== end; node = nextNode(node)) {
      if (node.nodeType !== 1) continue;
      if (test(node as Element)) out.push(node as Element);
      if (node.localName === 'template') node = endOf(node);
    }
    return out;
  }
  let el = root.firstElementChild;
  while (el) {
    if (test(el)) out.push(el);
    el = nextInTree(el, root);
  }
  return out;
}

/**
 * The first descendant of `root` that `test` accepts, in document order: what
 * querySelector(selector) returns for a selector that `test` states (see elementsWhere; a
 * selector is compiled anew on every querySelector call, which cost more than the walk on
 * the small subtrees asked about per element).
 */
export function firstElementWhere(root: ParentNode, test: (el: Element) => boolean): Element | null {
  if (isListed(root)) {
    const end = endOf(root);
    for (let node = nextNode(root); node !== end; node = nextNode(node)) {
      if (node.nodeType !== 1) continue;
      if (test(node as Element)) return node as Element;
      if (node.localName === 'template') node = endOf(node);
    }
    return null;
  }
  let el = root.firstElementChild;
  while (el) {
    if (test(el)) return el;
    el = nextInTree(el, root);
  }
  return null;
}

/** `a[href]` as a test: a link with a target (the tag name as css-select reads it in an HTML document). */
export function isLinkWithHref(el: Element): boolean {
  return el.localName.toLowerCase() === 'a' && el.hasAttribute('href');
}

/** The first non-space character of the element's text ('' when it has none). */
export function firstVisibleChar(el: Node): string {
  for (let child = el.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3 || child.nodeType === 4) {
      const data = (child as CharacterData).data;
      for (let i = 0; i < data.length; i++) if (!isSpace(data.charCodeAt(i))) return data.charAt(i);
    } else if (child.nodeType === 1) {
      const c = firstVisibleChar(child);
      if (c) return c;
    }
  }
  return '';
}

/**
 * The start of the element's collapsed text, at least `chars` characters of it when it is that long: text
 * nodes are read in document order until enough non-space text is gathered.
 */
export function leadingText(el: Element, chars: number): string {
  let raw = '';
  let visible = 0;
  const visit = (node: Node): boolean => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3 || child.nodeType === 4) {
        const data = (child as CharacterData).data;
        raw += data;
        // Non-space characters never exceed the collapsed length: enough of them is enough text.
        visible += collapsedLength(data);
        if (visible >= chars) return true;
      } else if (child.nodeType === 1 && visit(child)) {
        return true;
      }
    }
    return false;
  };
  visit(el);
  return raw.replace(/\s+/g, ' ').trim();
}
