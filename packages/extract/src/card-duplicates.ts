// A card that says its title twice: shop and news templates write a tile's name once per
// layout (the image link's caption, a heading for the wide screen, another for the narrow
// one; the hidden one was shown by CSS and survives as text), so a catalogue of 40 products
// reads each name two or three times and its precision halves. Inside one card of a run of
// like cards (grids.ts cardRuns), an element whose whole text repeats an earlier element's of
// the same card, word for word and not its ancestor or descendant, is that second copy and
// goes. By structure only: the same card, the same text. Texts repeated from card to card
// (every tile's "Quick view", a shared price) are left alone: two cards are two items.
import { cardKind, cardRuns } from './grids.js';
import type { PageType } from './page-type.js';
import { textStats } from './text.js';

/** The pages whose content is cards: listings and collections, and services (category pages that declare nothing are often typed so). */
const CARD_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['listing', 'collection', 'service']);
/** Shorter texts (a size, a colour, "New") may say two things in one card: only a name's worth counts as a copy. */
const MIN_COPY_CHARS = 8;

export function isCardPage(pageType: PageType | undefined): boolean {
  return CARD_PAGES.has(pageType);
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
