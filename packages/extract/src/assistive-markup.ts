// What a page marks for screen readers, read the other way round from what a sighted reader
// sees, in two patterns whose markup says so (no words are read):
//   - a redundant link: a card links its thumbnail and its blurb to the story its headline
//     links to, and hides those second links from screen readers (aria-hidden="true") so the
//     story is not announced twice. They are shown on screen: prepareBody would drop every
//     aria-hidden element as hidden, and with it a news river's blurbs. A link with text that
//     is aria-hidden itself (not inside a hidden container: a closed menu, a modal's backdrop)
//     and whose href another, announced link of the page has, keeps its text, unless its
//     parent says the same beside it (an overlay link that repeats a heading);
//   - an image link named for screen readers only: the name sits in an element with a
//     class the CSS frameworks give to text clipped to one pixel (Bootstrap's sr-only and
//     visually-hidden, WordPress's screen-reader-text). A shop tile's colour swatches are
//     such links; a reader sees the images, not the names;
//   - an echo: screen-reader-only text beside the same words shown on screen (eBay's
//     `<span>EUR 163.12<span class="clipped">EUR 163.12</span></span>`, or a shown "See all
//     details" spelled out as "See all details on coverage"). Without the page's CSS both
//     copies would reach the markdown; the shown one stays.

import { elementsWhere } from './text.js';
import { classOf } from './dom.js';

const HIDDEN = 'aria-hidden';
/** The class tokens of the frameworks' screen-reader-only utilities. */
const SCREEN_READER_ONLY = new Set(['sr-only', 'visually-hidden', 'visuallyhidden', 'screen-reader-text', 'screenreader-text', 'sr-text', 'u-visually-hidden', 'a11y-hidden', 'clipped']);
const IMAGES = new Set(['img', 'picture', 'svg']);

/** All three, before prepareBody removes the hidden elements: one walk finds what they read. */
export function readAssistiveMarkup(body: Element): void {
  const links: Element[] = [];
  const screenReaderOnly: Element[] = [];
  elementsWhere(body, (el) => {
    if (isLink(el)) links.push(el);
    else if (isScreenReaderOnly(el)) screenReaderOnly.push(el);
    return false;
  });
  revealRedundantLinks(body, links);
  removeImageLinkNames(body, links);
  removeEchoes(body, screenReaderOnly);
}

const isLink = (el: Element): boolean => el.localName === 'a' && el.hasAttribute('href');

/** The links of `root` (a walk: linkedom compiles a selector string on every call). */
function linksOf(root: Element): Element[] {
  return elementsWhere(root, isLink);
}

/** Unhides the redundant links of `body` (before the hidden elements are removed). Returns how many. */
export function revealRedundantLinks(body: Element, links = linksOf(body)): number {
  const hidden: Element[] = [];
  const announced = new Set<string>();
  for (const a of links) {
    if (isHidden(a) || hiddenAbove(a)) {
      if (isHidden(a) && !hiddenAbove(a)) hidden.push(a);
    } else announced.add(a.getAttribute('href')!);
  }
  let revealed = 0;
  for (const a of hidden) {
    const text = squash(a.textContent);
    if (!announced.has(a.getAttribute('href')!) || !text || saidBeside(a, text)) continue;
    a.removeAttribute(HIDDEN);
    revealed += 1;
  }
  return revealed;
}

function isHidden(el: Element): boolean {
  return el.getAttribute(HIDDEN) === 'true';
}

/** Whether an ancestor of `el` is aria-hidden (a closed menu, a modal's backdrop). */
function hiddenAbove(el: Element): boolean {
  for (let p = el.parentElement; p; p = p.parentElement) if (isHidden(p)) return true;
  return false;
}

/** Whether the link's text is said again beside it, in its parent: a heading's overlay link repeats the heading. */
function saidBeside(a: Element, text: string): boolean {
  const parent = a.parentElement;
  if (!parent) return false;
  let beside = '';
  for (let c = parent.firstChild; c; c = c.nextSibling) if (c !== a) beside += ` ${c.textContent ?? ''}`;
  return squash(beside).includes(text);
}

function squash(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/**
 * Removes the screen-reader-only names of image links: a link that shows an image and no
 * text of its own (a shop tile's colour swatch) is named for screen readers only. Other
 * screen-reader-only text stays: a shop's "Original price was: $30.00" spells out what the
 * struck-through price shows.
 */
export function removeImageLinkNames(root: Element, links = linksOf(root)): number {
  let removed = 0;
  for (const a of links) {
    if (!a.firstElementChild || elementsWhere(a, (el) => IMAGES.has(el.localName)).length === 0) continue;
    const names = elementsWhere(a, isScreenReaderOnly);
    if (names.length === 0 || visibleText(a, names)) continue;
    for (const el of names) el.remove();
    removed += names.length;
  }
  return removed;
}

function isScreenReaderOnly(el: Element): boolean {
  // The attribute node's text (classOf): linkedom's getAttribute('class') joins a class list on every read.
  const classes = classOf(el);
  if (!classes) return false;
  let answer = screenReaderOnlyByClass.get(classes);
  if (answer === undefined) {
    if (screenReaderOnlyByClass.size >= MAX_REMEMBERED_CLASSES) screenReaderOnlyByClass.clear();
    answer = classes.split(/\s+/).some((t) => SCREEN_READER_ONLY.has(t.toLowerCase()));
    screenReaderOnlyByClass.set(classes, answer);
  }
  return answer;
}

/**
 * isScreenReaderOnly by the class attribute's text: the walk asks it of every element, and a
 * page repeats a few class strings on thousands of them. Bounded (cleared when full).
 */
const screenReaderOnlyByClass = new Map<string, boolean>();
const MAX_REMEMBERED_CLASSES = 20_000;

/** Whether `el` has text outside the `names` elements. */
function visibleText(el: Element, names: readonly Element[]): boolean {
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3 && /\S/.test(c.textContent ?? '')) return true;
    if (c.nodeType === 1 && !names.includes(c as Element) && visibleText(c as Element, names)) return true;
  }
  return false;
}

/**
 * Removes screen-reader-only text that echoes what its parent shows: the same words, or the
 * shown words spelled out longer after them ("See all details" → "… on coverage"; a shown "4"
 * read out as "Rated 4 stars out of 5" is no echo). Text a reader does not see beside it (aria-hidden) does not
 * count as shown, so a clipped copy of an aria-hidden title stays as the title's only copy.
 * Returns how many went.
 */
export function removeEchoes(root: Element, screenReaderOnly = elementsWhere(root, isScreenReaderOnly)): number {
  let removed = 0;
  for (const el of screenReaderOnly) {
    const parent = el.parentElement;
    const text = squash(el.textContent);
    if (!parent || !el.isConnected || !text) continue;
    const shown = squash(shownText(parent, el));
    if (!shown || !(`${text} `.startsWith(`${shown} `) || ` ${shown} `.includes(` ${text} `))) continue;
    el.remove();
    removed += 1;
  }
  return removed;
}

/** The text of `el` without `skip` and without aria-hidden subtrees. */
function shownText(el: Element, skip: Element): string {
  let out = '';
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) out += c.textContent ?? '';
    else if (c.nodeType === 1 && c !== skip && !isHidden(c as Element)) out += ` ${shownText(c as Element, skip)}`;
  }
  return out;
}
