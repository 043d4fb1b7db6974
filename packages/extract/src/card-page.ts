// A page made of cards: most of its visible text sits in runs of like cards (grids.ts
// cardRuns: a shop's product tiles, a news river's story teasers, a course catalogue) and
// next to none in prose. page-type.ts reads it twice: a page that declares nothing is a
// listing or a collection by it, and so is one whose og:type says "article" (shops and
// news homes set og:type=article on every page): Readability would keep one card or the
// intro and lose the rest. By structure only: text shares, like siblings, and a price mark
// in the cards' class names (a shop's tiles name their price; a story teaser does not).
import { cardKind, cardRuns } from './grids.js';
import { textStats } from './text.js';
import { classOf } from './dom.js';

export type CardPageType = 'listing' | 'collection';

/**
 * One run of cards holds at least this share of the page's visible text: the index is one
 * grid. A page whose text is spread over several short runs is an article with sidebars
 * (recent posts, a tag list, a menu the page did not mark as navigation).
 */
const MIN_CARD_SHARE = 0.5;
/** The run's link density stays under this: a grid of bare links is a menu (a magazine's category navigation), not cards with text of their own. */
const MAX_CARD_LINK_DENSITY = 0.8;
/** Prose (paragraphs of PROSE_CHARS or more, outside the site chrome) holds under this share of it. */
const MAX_PROSE_SHARE = 0.15;
const PROSE_CHARS = 150;
/** Fewer cards than this are a strip of teasers, not an index (page-type.ts asks as many of a listing). */
const MIN_CARDS = 6;
/** A page with cards whose price is marked in at least this share of them is a shop's category page. */
const PRICED_CARDS_SHARE = 0.5;

const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary']);
const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg']);

/** 'collection' (priced cards) or 'listing' for a page made of cards, else undefined. */
export function cardPageType(body: Element | null): CardPageType | undefined {
  if (!body) return undefined;
  const { text, prose } = proseShare(body);
  if (text === 0 || prose >= MAX_PROSE_SHARE * text) return undefined;
  const stats = textStats(body);
  let best: { text: number; link: number; cards: Element[] } | undefined;
  for (const run of cardRuns(body, stats, cardKind)) {
    let runText = 0;
    let runLink = 0;
    for (const card of run) {
      runText += stats.get(card)?.text ?? 0;
      runLink += stats.get(card)?.link ?? 0;
    }
    if (!best || runText > best.text) best = { text: runText, link: runLink, cards: run };
  }
  if (!best || best.cards.length < MIN_CARDS || best.text < MIN_CARD_SHARE * text || best.link >= MAX_CARD_LINK_DENSITY * best.text) return undefined;
  const priced = best.cards.filter(hasPriceMark).length;
  const cards = best.cards.length;
  return priced >= PRICED_CARDS_SHARE * cards ? 'collection' : 'listing';
}

/** The visible text of `body` (no scripts or styles), and the part of it in prose outside the site chrome. */
function proseShare(body: Element): { text: number; prose: number } {
  let text = 0;
  let prose = 0;
  const walk = (el: Element, inChrome: boolean): void => {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        text += collapsed(child.textContent).length;
        continue;
      }
      if (child.nodeType !== 1) continue;
      const c = child as Element;
      if (NOT_TEXT.has(c.localName)) continue;
      const chrome = inChrome || CHROME_TAGS.has(c.localName) || CHROME_ROLES.has(c.getAttribute('role') ?? '');
      if (c.localName === 'p' && !chrome) {
        const n = collapsed(c.textContent).length;
        text += n;
        if (n >= PROSE_CHARS) prose += n;
      } else walk(c, chrome);
    }
  };
  walk(body, false);
  return { text, prose };
}

/** An element in the card whose class or itemprop names a price ("price", "product-price", "priceValue"). */
function hasPriceMark(card: Element): boolean {
  for (const el of [card, ...card.querySelectorAll('[class], [itemprop]')]) {
    if (namesPrice(`${classOf(el)} ${el.getAttribute('itemprop') ?? ''}`)) return true;
  }
  return false;
}

/** Whether class, id or itemprop names hold a word that names a price ("price", "product-price", "priceValue"). */
export function namesPrice(names: string): boolean {
  return /(^|[^a-z])price/i.test(names.replace(/([a-z])([A-Z])/g, '$1-$2'));
}

function collapsed(s: string | null): string {
  return (s ?? '').replace(/\s+/g, ' ').trim();
}
