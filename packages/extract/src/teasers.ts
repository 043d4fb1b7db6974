// Teaser runs: the "more stories" grid a template puts under an article, inside the same
// container, so neither the class names nor Readability leave it out. Each teaser is a card
// (a thumbnail, a kicker, a linked headline, a one-line blurb) and the cards are siblings of
// one kind. The blurbs are prose-shaped and the headline is the only link, so the cards pass
// the link-density tests; what marks them is structure (a run of like cards, each headed by
// a link to another page) and position (after the article's last paragraph, or before its
// first). Words play no part: a run of cards inside the prose, or one whose headings are not
// links (a how-to's steps, a FAQ), stays.
import { collapsedLength, elementsWhere, firstElementWhere, isLinkWithHref, type TextStats } from './text.js';
import { classOf } from './dom.js';

/** This many like cards in a row make a run (two are a pair of links, e.g. previous/next). */
const MIN_RUN = 3;
/** A teaser is short: a headline and a blurb. A longer card is a section of the article. */
const MAX_CARD_TEXT = 400;
/** A headline is a link when (nearly) all its text is link text. */
const HEADLINE_LINK_SHARE = 0.9;
const CARD_HEADINGS = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);
const isCardHeading = (el: Element): boolean => CARD_HEADINGS.has(el.localName.toLowerCase());

/**
 * An article under a teaser run has this much prose of its own; with less (an index page's
 * intro, a docs landing page) the cards are the page's content.
 */
const MIN_TEASED_ARTICLE_TEXT = 1000;

/** Where the article's prose runs (prune.ts), its blocks chosen without those `skip` names. */
export type ProseSpanOf = (skip: (el: Element) => boolean) => { proseText: number; outside(el: Element): boolean };

/**
 * Removes the runs of teaser cards outside the article's prose, the prose counted without
 * the cards' own blurbs: a "more stories" grid under the article. Around a short text the
 * cards are the content (a section's index page), and they stay. Returns how many went.
 */
export function removeTeaserRuns(root: Element, stats: ReadonlyMap<Element, TextStats>, spanOf: ProseSpanOf): number {
  const cards = teaserCards(root, stats);
  if (cards.length === 0) return 0;
  const core = spanOf((el) => cards.some((card) => card.contains(el)));
  if (core.proseText < MIN_TEASED_ARTICLE_TEXT) return 0;
  const outside = cards.filter((card) => core.outside(card));
  for (const card of outside) card.remove();
  return outside.length;
}

/** The teaser cards of `root`: every card of every run of MIN_RUN or more like cards. */
export function teaserCards(root: Element, stats: ReadonlyMap<Element, TextStats>): Element[] {
  const cards: Element[] = [];
  for (const parent of [root, ...root.querySelectorAll('*')]) {
    let run: Element[] = [];
    const flush = (): void => {
      if (run.length >= MIN_RUN) cards.push(...run);
      run = [];
    };
    for (const child of parent.children) {
      if (!isTeaser(child, stats)) {
        flush();
        continue;
      }
      if (run.length > 0 && signature(run[0]!) !== signature(child)) flush();
      run.push(child);
    }
    flush();
  }
  return cards;
}

/** Cards are alike when they share their tag and class attribute. */
function signature(el: Element): string {
  return `${el.nodeName} ${classOf(el)}`;
}

/** A short card whose headline is a link (to the story it teases). */
function isTeaser(el: Element, stats: ReadonlyMap<Element, TextStats>): boolean {
  const s = stats.get(el);
  if (!s || s.text === 0 || s.text > MAX_CARD_TEXT) return false;
  const heading = /^H[2-6]$/.test(el.nodeName) ? el : firstElementWhere(el, isCardHeading);
  if (!heading) return false;
  const text = collapsedLength(heading.textContent ?? '');
  if (text === 0) return false;
  let link = 0;
  for (const a of elementsWhere(heading, isLinkWithHref)) link += collapsedLength(a.textContent ?? '');
  if (heading.closest('a[href]')) link = text;
  return link >= HEADLINE_LINK_SHARE * text;
}
