// The boundary decision, learned: every block of the page (blocks.ts), whether the rules'
// content kept it among its features, is kept or dropped by the block model (block-model.ts).
// The rules choose well where the page is one article; the model adds what they cut (a
// listing's cards, a product's specifications) and drops what they let through. On the
// pages made of cards, a card the model kept in part is kept whole, less the lines its
// template repeats in every card (wholeCards).
import { BLOCK_MARK, FEATURE_NAMES, keptMarks, readBlocks, removeBlocks, type Block } from './blocks.js';
import { blockScore, type BlockModel } from './block-model.js';
import { cardRuns, runTextLength } from './grids.js';
import { itemGrid } from './item-grid.js';
import { textStats } from './text.js';
import type { PageType } from './page-type.js';

const IN_RESULT = FEATURE_NAMES.indexOf('inResult');
/**
 * The page types the model decides on (the detected type). On articles, docs, forum threads
 * and products the rules (Readability, the names, the final pass, the thread and product
 * layouts) were as good on the held-out fold, and the model re-admitted the odd newsletter
 * line or dropped a shop's lines; on listings, collections and services the rules cut the
 * repeated cards and sections, and the model wins them back.
 */
export const MODEL_PAGE_TYPES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['listing', 'collection', 'service']);
/** Under this much text the model's content is no result: the rules' content stays. */
const MIN_CLASSIFIED_TEXT = 100;
/**
 * The page types whose card runs are kept whole (wholeCards): the model's types. Services
 * count too: category pages, shops and news rivers that declare nothing are often typed so.
 */
const WHOLE_CARD_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['listing', 'collection', 'service']);
/** Cards are short: a run whose cards hold more text than this on average is posts or sections, which the model reads well. */
const MAX_CARD_CHARS = 500;
/** A run's cards are kept whole when the model kept part of at least this share of them. */
const KEPT_CARDS_SHARE = 0.5;
/** The pages with an item grid (item-grid.ts): a service page's largest run is its sections or its link menus. */
const GRID_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['listing', 'collection']);
/** A dropped text found in more than one card and this share of a run's cards or more is the cards' template (a button, a rating widget): it stays out. */
const REPEATED_TEXT_SHARE = 0.25;

/**
 * The model's content: `full` (the page's prepared body, cloned before the extractors ran,
 * with its blocks marked) without the blocks the model drops; `root` (the rules' content)
 * when there is no model or the model keeps next to nothing.
 */
export function classifiedContent(full: Element, root: Element, pageType: PageType | undefined, model: BlockModel | null, onBlocks?: (blocks: Block[]) => void): Element {
  if (!model && !onBlocks) return root;
  const blocks = readBlocks(full, keptMarks(root), pageType);
  onBlocks?.(blocks);
  if (!model) return root;
  const dropped = new Set<Element>();
  let keptText = 0;
  for (const b of blocks) {
    if (blockScore(model, b.features) >= (b.features[IN_RESULT] ? model.threshold : model.addThreshold)) keptText += b.chars;
    else dropped.add(b.el);
  }
  if (keptText < MIN_CLASSIFIED_TEXT) return root;
  if (WHOLE_CARD_PAGES.has(pageType)) for (const el of wholeCards(full, blocks, dropped, pageType)) dropped.delete(el);
  removeBlocks(full, [...dropped]);
  keepHeading(full, root);
  return full;
}

/**
 * The dropped blocks of cards the model kept in part: on a listing or a collection the cards
 * of a run (grids.ts cardRuns) are the content. The model decides block by block, and in a card it keeps the
 * linked title (like the other titles) but may drop the blurb or the price and maker lines
 * under it. A run counts when the model kept some block in at least KEPT_CARDS_SHARE of its
 * cards; the cards it dropped whole stay out, and so do texts that many cards repeat (the
 * card template's "Quick view" or rating widget, which the model rightly dropped). Runs of
 * long cards (a thread's posts on a page typed service) are left to the model.
 */
function wholeCards(full: Element, blocks: readonly Block[], dropped: ReadonlySet<Element>, pageType: PageType | undefined): Element[] {
  const runOf = new Map<Element, number>();
  const runSizes: number[] = [];
  const stats = textStats(full);
  const runText = (run: readonly Element[]): number => runTextLength(run, stats);
  // The page's item grid first: every card of it counts as kept.
  const grid = new Set(GRID_PAGES.has(pageType) ? (itemGrid(full, stats, blocks.filter((b) => !dropped.has(b.el)).map((b) => b.el), { maxCardChars: MAX_CARD_CHARS, headedCards: pageType === 'listing' }) ?? []) : []);
  if (grid.size > 0) {
    for (const card of grid) runOf.set(card, 0);
    runSizes.push(grid.size);
  }
  for (const run of cardRuns(full, stats)) {
    if (runText(run) > MAX_CARD_CHARS * run.length || run.some((card) => runOf.has(card))) continue;
    for (const card of run) runOf.set(card, runSizes.length);
    runSizes.push(run.length);
  }
  if (runOf.size === 0) return [];
  const inCards = blocks.flatMap((b) => {
    const card = enclosingCard(b.el, runOf);
    return card ? [{ el: b.el, card, key: `${runOf.get(card)}\u0000${b.text.replace(/\s+/g, ' ').trim()}` }] : [];
  });
  const keptCards = new Set([...grid, ...inCards.filter((b) => !dropped.has(b.el)).map((b) => b.card)]);
  const keptPerRun = runSizes.map(() => 0);
  for (const card of keptCards) keptPerRun[runOf.get(card)!]! += 1;
  // How many cards of its run hold each text.
  const cardsWithText = new Map<string, Set<Element>>();
  for (const b of inCards) cardsWithText.set(b.key, (cardsWithText.get(b.key) ?? new Set<Element>()).add(b.card));
  return inCards
    .filter((b) => {
      if (!dropped.has(b.el) || !keptCards.has(b.card)) return false;
      const run = runOf.get(b.card)!;
      return keptPerRun[run]! >= KEPT_CARDS_SHARE * runSizes[run]! && unique(cardsWithText.get(b.key)!.size, runSizes[run]!);
    })
    .map((b) => b.el);
}

/** Whether a text found in `cards` of a run of `runSize` is the card's own, not its template's. */
function unique(cards: number, runSize: number): boolean {
  return cards === 1 || cards < REPEATED_TEXT_SHARE * runSize;
}

function enclosingCard(el: Element, runOf: ReadonlyMap<Element, number>): Element | undefined {
  for (let at: Element | null = el; at; at = at.parentElement) if (runOf.has(at)) return at;
  return undefined;
}

/** The rules' content may open with a heading it made (from the title, for a page without <h1>): kept. */
function keepHeading(full: Element, root: Element): void {
  const first = root.firstElementChild;
  if (first?.localName === 'h1' && !first.hasAttribute(BLOCK_MARK) && !full.querySelector('h1')) full.prepend(first.cloneNode(true));
}

/** The marks are the extractor's own: no output shows them. */
export function removeBlockMarks(root: Element): void {
  root.removeAttribute(BLOCK_MARK);
  for (const el of root.querySelectorAll(`[${BLOCK_MARK}]`)) el.removeAttribute(BLOCK_MARK);
}
