// The boundary decision, learned: every block of the page (blocks.ts), whether the rules'
// content kept it among its features, is kept or dropped by the block model (block-model.ts).
// The rules choose well where the page is one article; the model adds what they cut (a
// listing's cards, a product's specifications) and drops what they let through.
import { BLOCK_MARK, FEATURE_NAMES, keptMarks, readBlocks, removeBlocks, type Block } from './blocks.js';
import { blockScore, type BlockModel } from './block-model.js';
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
 * The model's content: `full` (the page's prepared body, cloned before the extractors ran,
 * with its blocks marked) without the blocks the model drops; `root` (the rules' content)
 * when there is no model or the model keeps next to nothing.
 */
export function classifiedContent(full: Element, root: Element, pageType: PageType | undefined, model: BlockModel | null, onBlocks?: (blocks: Block[]) => void): Element {
  if (!model && !onBlocks) return root;
  const blocks = readBlocks(full, keptMarks(root), pageType);
  onBlocks?.(blocks);
  if (!model) return root;
  const dropped: Element[] = [];
  let keptText = 0;
  for (const b of blocks) {
    if (blockScore(model, b.features) >= (b.features[IN_RESULT] ? model.threshold : model.addThreshold)) keptText += b.chars;
    else dropped.push(b.el);
  }
  if (keptText < MIN_CLASSIFIED_TEXT) return root;
  removeBlocks(full, dropped);
  keepHeading(full, root);
  return full;
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
