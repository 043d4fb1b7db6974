// Card grids that Readability cuts from a page whose main content is a grid of items.
//
// Readability scores paragraphs: a category page, a course catalogue or a recipe index opens
// with a paragraph or two of prose, then shows its items as a run of like cards (a title, a
// line of text, a link). The prose wins, and the cards (short, link-heavy) are cleaned away
// as if they were a link farm. So before Readability runs, the runs of like cards outside the
// site chrome are noted (a copy of each); after it, a run whose cards the article lost comes
// back when it is most of the page's content: at least GRID_SHARE times the article's text.
// "Related posts" or an FAQ beside a page's text are at most about as long as it, so they
// stay out; a listing's grid is several times longer than its intro. A run also comes back
// under a short article that kept its heading over less text than the cards (a cut section):
// the only way back for pages that declare themselves articles. Products and threads do not
// get here (extract-page.ts GRID_PAGES).
import { removeBoilerplate } from './clean.js';
import { elementsWhere, firstElementWhere, isLinkWithHref, textStats, type TextStats } from './text.js';
import { classOf } from './dom.js';

/** A run of like cards: this many siblings of the same tag and class, each with text and a link. */
const MIN_CARDS = 4;
const MIN_CARD_CHARS = 20;
/** A run comes back when its text is at least this share of the article's text. */
const GRID_SHARE = 1.5;
/** Under this much text the article is no result of its own (extract-page.ts falls back to the page). */
const MIN_ARTICLE_TEXT = 100;
/**
 * Cut sections come back only under this much text: a category page's intro. Under a long
 * article, a heading kept over a grid is its "more stories" or a sidebar's widget.
 */
const MAX_CUT_ARTICLE_TEXT = 1000;
/** A run counts as kept when this share of its cards' text starts is in the article. */
const KEPT_CARD_SHARE = 0.5;
const PROBE_LENGTH = 40;
const MIN_PROBE_LENGTH = 12;
const ANCHOR_MARK = 'data-trawl-grid';
const CHROME = 'nav, header, footer, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"]';

export interface CardGrid {
  /** Copies of the cards, in a <div> (in their list or table when the run was one). */
  cards: Element;
  /** Those copies, in card order. */
  copies: Element[];
  /** The start of each card's text, in card order: how the article's copy of a card is recognised. */
  probes: Array<string | undefined>;
  text: number;
}

/**
 * The runs of like cards in `body` (outermost runs only), each copied, with the heading that
 * precedes the run marked so that the copy can go back under it.
 */
export function collectGrids(body: Element): CardGrid[] {
  const stats = textStats(body);
  const grids: CardGrid[] = [];
  for (const run of cardRuns(body, stats, cardKind)) {
    const parent = run[0]!.parentElement!;
    const cards = body.ownerDocument.createElement('div');
    const holder = parent.localName === 'ul' || parent.localName === 'ol' || parent.localName === 'tbody' ? (parent.cloneNode(false) as Element) : cards;
    if (holder !== cards) cards.appendChild(holder.localName === 'tbody' ? wrapTable(holder) : holder);
    let text = 0;
    const probes: Array<string | undefined> = [];
    const copies: Element[] = [];
    for (const card of run) {
      copies.push(holder.appendChild(card.cloneNode(true) as Element));
      text += stats.get(card)?.text ?? 0;
      probes.push(firstText(card));
    }
    const anchor = precedingHeading(run[0]!);
    anchor?.setAttribute(ANCHOR_MARK, String(grids.length));
    grids.push({ cards, copies, probes, text });
  }
  return grids;
}

/**
 * Puts back into `article` the runs it lost that are a large part of the content, each
 * after its heading when the article kept the heading, else at the end. Removes the marks.
 */
export function restoreGrids(article: Element, grids: readonly CardGrid[], options: { cutSectionsOnly?: boolean } = {}): void {
  const articleText = collapsed(article.textContent);
  // An (almost) empty article is no article: the caller's fallbacks take the whole page.
  if (grids.length > 0 && articleText.length >= MIN_ARTICLE_TEXT) {
    for (const [i, grid] of grids.entries()) {
      const anchor = article.querySelector(`[${ANCHOR_MARK}="${i}"]`);
      const cut = anchor !== null && articleText.length < MAX_CUT_ARTICLE_TEXT && isCutSection(anchor, article, grid.text);
      if (!cut && (options.cutSectionsOnly || grid.text < GRID_SHARE * articleText.length)) continue;
      const kept = grid.probes.map((p) => p !== undefined && articleText.includes(p));
      if (kept.filter(Boolean).length >= KEPT_CARD_SHARE * kept.length) continue;
      // The cards the article kept (Readability may keep the first one) are not repeated.
      for (const [j, copy] of grid.copies.entries()) if (kept[j]) copy.remove();
      removeBoilerplate(grid.cards);
      if (anchor) anchor.after(grid.cards);
      else article.appendChild(grid.cards);
    }
  }
  for (const el of article.querySelectorAll(`[${ANCHOR_MARK}]`)) el.removeAttribute(ANCHOR_MARK);
}

/**
 * A heading the article kept over less text than its cards: the text after it in the
 * article, up to the next heading of its level or above, is shorter than the run of cards
 * that followed it on the page. Readability cut what the heading introduced (a card grid is
 * short and link-heavy); a kept heading over (next to) nothing is the mark of that cut,
 * whatever the page declares itself to be.
 */
function isCutSection(heading: Element, article: Element, cardsText: number): boolean {
  const level = headingLevel(heading);
  if (level === undefined) return false;
  let text = 0;
  for (let node = after(heading, article); node && text < cardsText; node = node.firstChild ?? after(node, article)) {
    if (node.nodeType === 3) text += collapsed(node.textContent).length;
    else if (node.nodeType === 1) {
      const next = headingLevel(node as Element);
      if (next !== undefined && next <= level) break;
    }
  }
  return text < cardsText;
}

/** The node after `node`'s subtree in document order, within `root`. */
function after(node: Node, root: Element): Node | null {
  for (let at: Node | null = node; at && at !== root; at = at.parentNode) if (at.nextSibling) return at.nextSibling;
  return null;
}

/** The level of a heading (h1 -> 1), or undefined. */
function headingLevel(el: Element): number | undefined {
  const m = /^h([1-6])$/.exec(el.localName);
  return m ? Number(m[1]) : undefined;
}

/** The text length of a run's cards together. */
export function runTextLength(run: readonly Element[], stats: ReadonlyMap<Element, TextStats>): number {
  let sum = 0;
  for (const card of run) sum += stats.get(card)?.text ?? 0;
  return sum;
}

/** The runs of like cards in `root` outside the site chrome, outermost runs only, in document order. */
export function cardRuns(root: Element, stats: ReadonlyMap<Element, TextStats> = textStats(root), kindOf: (el: Element) => string = classKind): Element[][] {
  const runs: Element[][] = [];
  const taken: Element[] = [];
  for (const parent of elementsWhere(root, isCardParent)) {
    if (taken.some((t) => t.contains(parent))) continue;
    const run = likeCards(parent, stats, kindOf);
    if (!run || parent.closest(CHROME)) continue;
    taken.push(parent);
    runs.push(run);
  }
  return runs;
}

/** ul, ol, div, section, main, tbody (the selector, as a walk: text.ts elementsWhere). */
const CARD_PARENTS = new Set(['ul', 'ol', 'div', 'section', 'main', 'tbody']);

function isCardParent(el: Element): boolean {
  return CARD_PARENTS.has(el.localName.toLowerCase());
}

/** The largest run of like children of `parent` (same tag and class, each with text and a link), or null. */
function likeCards(parent: Element, stats: ReadonlyMap<Element, TextStats>, kindOf: (el: Element) => string): Element[] | null {
  const groups = new Map<string, Element[]>();
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
    if ((stats.get(c)?.text ?? 0) < MIN_CARD_CHARS || !firstElementWhere(c, isLinkWithHref) && c.localName !== 'a') continue;
    const key = kindOf(c);
    const group = groups.get(key);
    if (group) group.push(c);
    else groups.set(key, [c]);
  }
  let best: Element[] | null = null;
  for (const group of groups.values()) if (group.length >= MIN_CARDS && (!best || group.length > best.length)) best = group;
  return best;
}

/** Cards alike by tag and whole class attribute (the card runs the block model's pages keep whole, classify.ts). */
function classKind(el: Element): string {
  return `${el.localName}.${classOf(el)}`;
}

/**
 * Cards alike by tag and first class token without digits: templates add per-item classes
 * (WordPress's post-123 and category-x, a product's id), so the whole class attribute
 * differs from card to card. The grids Readability lost are found so.
 */
export function cardKind(el: Element): string {
  const cls = classOf(el);
  const first = cls.split(/\s+/).find((t) => t && !/\d/.test(t)) ?? '';
  return `${el.localName}.${first}`;
}

/** The nearest heading before `el` in document order, looked for among the previous siblings of it and its ancestors. */
function precedingHeading(el: Element): Element | undefined {
  for (let at: Element | null = el; at && at.localName !== 'body'; at = at.parentElement) {
    for (let s = at.previousElementSibling; s; s = s.previousElementSibling) {
      if (/^h[1-6]$/.test(s.localName)) return s;
      const inner = s.querySelectorAll('h1, h2, h3, h4, h5, h6');
      if (inner.length > 0) return inner[inner.length - 1];
    }
  }
  return undefined;
}

/**
 * The start of the card's first text of some length: one text node, as the article's copy
 * holds it (an element's textContent runs its children's texts together, which the
 * article's text, rewritten by Readability, may not).
 */
function firstText(card: Element): string | undefined {
  const walker = card.ownerDocument.createTreeWalker(card, 4);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = collapsed((node as Text).data);
    if (text.length >= MIN_PROBE_LENGTH) return text.slice(0, PROBE_LENGTH);
  }
  return undefined;
}

function wrapTable(tbody: Element): Element {
  const table = tbody.ownerDocument.createElement('table');
  table.appendChild(tbody);
  return table;
}

function collapsed(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
