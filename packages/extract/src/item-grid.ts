// A listing's or a collection's item grid: the run of like cards (grids.ts cardRuns, cards
// alike by their first class token, cardKind, as templates add per-item classes) that holds
// the page's items. The block model decides line by line, and on a recipe index whose cards
// are linked titles only, or a shop whose tiles it kept by their image links, it may keep no
// line of any card; classify.ts wholeCards then keeps every card of this run whole. Found by
// structure only: the run's share of the page's text, or its place beside the content the
// model kept (the index's intro and its cards in one container).
import { cardKind, cardRuns, runTextLength } from './grids.js';
import type { TextStats } from './text.js';

/** The largest run holding at least this share of the page's text is the grid. */
const GRID_TEXT_SHARE = 0.3;
/** A grid is this many cards or more (fewer are a strip of teasers beside the content). */
const MIN_GRID_CARDS = 6;

/**
 * The item grid of `full`: the largest run of MIN_GRID_CARDS or more short cards (at most
 * `maxCardChars` on average) when it holds GRID_TEXT_SHARE of the page's text; else the
 * largest such run whose container holds a kept block outside its cards (`kept`: the
 * blocks the model kept), or, with `headedCards` (listings), whose every card has a heading
 * of its own: a river of headed teasers. A shop's category page (a collection) is not read
 * so: its headed product strips under the text are the shop's offers, not the page's items.
 * Undefined when there is none.
 */
export function itemGrid(full: Element, stats: ReadonlyMap<Element, TextStats>, kept: readonly Element[], options: { maxCardChars: number; headedCards: boolean }): Element[] | undefined {
  const runText = (run: readonly Element[]): number => runTextLength(run, stats);
  const runs = cardRuns(full, stats, cardKind)
    .filter((run) => run.length >= MIN_GRID_CARDS && runText(run) <= options.maxCardChars * run.length)
    .sort((a, b) => runText(b) - runText(a));
  const largest = runs[0];
  if (!largest) return undefined;
  if (runText(largest) >= GRID_TEXT_SHARE * (stats.get(full)?.text ?? 0)) return largest;
  return runs.find((run) => besideKept(run, kept) || (options.headedCards && run.every(headed)));
}

/** A card headed by a heading of its own: a grid's item (a menu's items have none). */
function headed(card: Element): boolean {
  return card.querySelector('h2, h3, h4, h5, h6') !== null;
}

/** Whether the run's container holds a kept block that is not in one of its cards. */
function besideKept(run: readonly Element[], kept: readonly Element[]): boolean {
  const parent = run[0]!.parentElement!;
  return kept.some((el) => parent.contains(el) && !run.some((card) => card.contains(el)));
}
