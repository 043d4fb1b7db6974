// A product page's strips of other products: "people who viewed this item also viewed",
// "similar items", "complete the look". The page is about one product; a run of like cards
// (grids.ts cardRuns) each linking to another page and showing an image or a price is the
// shop's offer of other products, whatever its heading says. Found by structure only (the
// run, its links, its images and price marks); the heading over a strip goes with it when
// nothing else is left under it.
import { cardKind, cardRuns, runTextLength } from './grids.js';
import { namesPrice } from './card-page.js';
import { textStats } from './text.js';
import { classOf } from './dom.js';

/** A strip is this many cards or more: fewer are a bundle's parts or a "pairs well with" pair. */
const MIN_STRIP_CARDS = 4;
/** At least this share of the cards shows an image or a price: a product tile (a spec list's rows show neither). */
const TILE_SHARE = 0.5;
/**
 * A strip holds under this share of the content's text: a run that is most of it is the
 * page's own grid (a category page, a shop's home page, read as a product page).
 */
const MAX_STRIP_SHARE = 0.4;

/**
 * Removes from `root` (a product page's content) the runs of product tiles that are not the
 * page's product, and the headings left over nothing. Returns how many runs went.
 */
export function removeProductStrips(root: Element, pageUrl: string): number {
  const page = withoutHash(pageUrl);
  const stats = textStats(root);
  const maxText = MAX_STRIP_SHARE * (stats.get(root)?.text ?? 0);
  const strips = cardRuns(root, stats, cardKind).filter(
    (run) =>
      run.length >= MIN_STRIP_CARDS &&
      runTextLength(run, stats) < maxText &&
      run.every((card) => !card.querySelector('h1') && linksElsewhere(card, page)) &&
      run.filter(isTile).length >= TILE_SHARE * run.length,
  );
  for (const run of strips) {
    const heading = headingBefore(run[0]!, root);
    // The run's odd cards too (a first or a sponsored tile with a class of its own): like tiles of the same tag.
    const parent = run[0]!.parentElement!;
    const tiles = [...parent.children].filter((el) => run.includes(el) || (el.localName === run[0]!.localName && linksElsewhere(el, page) && isTile(el)));
    for (const card of tiles) card.remove();
    if (heading && headsNothing(heading, root)) heading.remove();
  }
  return strips.length;
}

/** Whether the card links to a page other than `page` (its own anchors and "#" buttons are not). */
function linksElsewhere(card: Element, page: string): boolean {
  const links = card.localName === 'a' ? [card] : [...card.querySelectorAll('a[href]')];
  return links.some((a) => {
    const href = a.getAttribute('href') ?? '';
    if (!/^https?:/i.test(href)) return false;
    return withoutHash(href) !== page;
  });
}

function isTile(card: Element): boolean {
  if (card.querySelector('img, picture')) return true;
  for (const el of [card, ...card.querySelectorAll('[class], [itemprop]')]) if (namesPrice(`${classOf(el)} ${el.getAttribute('itemprop') ?? ''}`)) return true;
  return false;
}

/** The heading just before the run: a previous sibling of the run's container or of one of its ancestors, within `root`. */
function headingBefore(card: Element, root: Element): Element | undefined {
  for (let at: Element | null = card.parentElement; at && at !== root; at = at.parentElement) {
    for (let s = at.previousElementSibling; s; s = s.previousElementSibling) {
      if (/^h[2-6]$/.test(s.localName)) return s;
      if ((s.textContent ?? '').trim()) return undefined;
    }
  }
  return undefined;
}

/** Whether no text follows the heading before the next heading of its level or above (or the end of `root`). */
function headsNothing(heading: Element, root: Element): boolean {
  const level = Number(heading.localName.slice(1));
  for (let node = after(heading, root); node; node = node.nodeType === 1 && (node as Element).firstChild ? (node as Element).firstChild : after(node, root)) {
    if (node.nodeType === 3 && (node.textContent ?? '').trim()) return false;
    if (node.nodeType === 1) {
      const m = /^h([1-6])$/.exec((node as Element).localName);
      if (m && Number(m[1]) <= level) return true;
    }
  }
  return true;
}

function after(node: Node, root: Element): Node | null {
  for (let at: Node | null = node; at && at !== root; at = at.parentNode) if (at.nextSibling) return at.nextSibling;
  return null;
}

function withoutHash(url: string): string {
  const i = url.indexOf('#');
  return (i < 0 ? url : url.slice(0, i)).replace(/\/$/, '');
}
