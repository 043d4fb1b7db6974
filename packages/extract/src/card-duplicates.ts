// A card that says its title twice: shop and news templates write a tile's name once per
// layout (the image link's caption, a heading for the wide screen, another for the narrow
// one; the hidden one was shown by CSS and survives as text), so a catalogue of 40 products
// reads each name two or three times and its precision halves. Inside one card of a run of
// like cards (grids.ts cardRuns), an element whose whole text repeats an earlier element's of
// the same card, word for word and not its ancestor or descendant, is that second copy and
// goes. By structure only: the same card, the same text. Texts repeated from card to card
// (every tile's "Quick view", a shared price) are left alone: two cards are two items.
//
// Service and collection pages also say whole blocks twice: a hero, a promotion or a
// quote band written once for the wide layout and once for the narrow one. On those the
// product pages' rule applies (product.ts removeRepeatedBlocks: a block of 30+ characters
// that repeats an earlier one word for word is kept once). Not on listings: a news river
// or a results page repeats its lines from item to item (the same teaser under two
// sections), and WCXB's listings keep them.
import { cardKind, cardRuns } from './grids.js';
import type { PageType } from './page-type.js';
import { removeRepeatedBlocks } from './product.js';
import { textStats } from './text.js';

/** The pages whose content is cards: listings and collections, and services (category pages that declare nothing are often typed so). */
const CARD_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['listing', 'collection', 'service']);
/** Shorter texts (a size, a colour, "New") may say two things in one card: only a name's worth counts as a copy. */
const MIN_COPY_CHARS = 8;

/** The pages whose repeated blocks are layout copies (products have their own pass in extract-page.ts). */
const REPEATED_BLOCK_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['collection', 'service']);

/** The copies a page's layouts leave in its content, by page type: a card's second title, a block said twice. Returns how many went. */
export function removeLayoutCopies(root: Element, pageType: PageType | undefined): number {
  let removed = CARD_PAGES.has(pageType) ? removeCardDuplicates(root) : 0;
  if (REPEATED_BLOCK_PAGES.has(pageType)) removed += removeRepeatedBlocks(root);
  return removed;
}

/** Removes the second and later copies of a text inside each card of `root`'s card runs. Returns how many went. */
export function removeCardDuplicates(root: Element): number {
  let removed = 0;
  for (const run of cardRuns(root, textStats(root), cardKind)) {
    for (const card of run) removed += dedupeCard(card);
  }
  return removed;
}

function dedupeCard(card: Element): number {
  const first = new Map<string, Element>();
  const copies: Element[] = [];
  for (const el of card.querySelectorAll('*')) {
    if (copies.some((c) => c.contains(el))) continue;
    const text = squash(el.textContent ?? '');
    if (text.length < MIN_COPY_CHARS) continue;
    const seen = first.get(text);
    if (!seen) first.set(text, el);
    else if (!seen.contains(el) && !el.contains(seen)) copies.push(el);
  }
  for (const el of copies) el.remove();
  return copies.length;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
