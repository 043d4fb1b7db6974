// A product page's description and specifications from its JSON-LD, when the page hides
// them: shops put them in tabs that load or show on a click, and the rendered content then
// holds the name and price only. Added only where the content lacks them, as text (the
// JSON-LD's markup is never parsed into the page). Its customer reviews, and the blocks a
// shop renders once per layout, go.
import { nameTokens } from './boilerplate.js';
import { jsonLdNodes } from './json-ld.js';
import { removeProductStrips } from './product-strips.js';

/** A description shorter than this is a tagline, not the product's description. */
const MIN_DESCRIPTION_CHARS = 80;
/** The description counts as shown when its opening this long is in the content. */
const PROBE_CHARS = 60;
const MAX_PROPERTIES = 50;

export interface ProductFacts {
  description?: string;
  properties: Array<[string, string]>;
}

/**
 * A product page's content in its layout: blocks rendered once per layout kept once, the
 * strips of other products removed (product-strips.ts), then the JSON-LD's description and
 * specifications added where the content lacks them.
 */
export function productLayout(root: Element, jsonLd: unknown[], pageUrl: string): void {
  removeRepeatedBlocks(root);
  removeProductStrips(root, pageUrl);
  const facts = productFacts(jsonLd);
  if (facts) addProductDetails(root, facts);
}

export function productFacts(blocks: unknown[]): ProductFacts | undefined {
  const node = jsonLdNodes(blocks).find((n) => [n['@type']].flat().some((t) => t === 'Product' || t === 'ProductGroup'));
  if (!node) return undefined;
  const description = plain(node.description);
  const properties: Array<[string, string]> = [];
  for (const p of [node.additionalProperty].flat().slice(0, MAX_PROPERTIES)) {
    if (!p || typeof p !== 'object') continue;
    const name = plain((p as Record<string, unknown>).name);
    const value = plain((p as Record<string, unknown>).value);
    if (name && value) properties.push([name, value]);
  }
  return { ...(description && description.length >= MIN_DESCRIPTION_CHARS ? { description } : {}), properties };
}

/** Appends the description and the specifications that the content does not show. */
export function addProductDetails(root: Element, facts: ProductFacts): void {
  const document = root.ownerDocument;
  const shown = squash(root.textContent ?? '');
  if (facts.description && !shown.includes(squash(facts.description).slice(0, PROBE_CHARS))) {
    const p = document.createElement('p');
    p.textContent = facts.description;
    root.append(p);
  }
  const missing = facts.properties.filter(([, value]) => !shown.includes(squash(value)));
  if (missing.length < 2) return;
  const table = document.createElement('table');
  for (const [name, value] of missing) {
    const tr = document.createElement('tr');
    for (const cell of [name, value]) {
      const td = document.createElement('td');
      td.textContent = cell;
      tr.append(td);
    }
    table.append(tr);
  }
  root.append(table);
}

/** A repeated text this long at least is a repeated block (shorter ones are labels: "Size", "Yes"). */
const MIN_REPEATED_CHARS = 30;
const LEAF_BLOCKS = new Set(['p', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dd', 'dt', 'blockquote', 'figcaption', 'div', 'section', 'td', 'th']);

/**
 * Removes the blocks whose text repeats an earlier block of the content word for word: a
 * shop page renders its promotion, its price box and its delivery note once per layout
 * (desktop, mobile, sticky bar) and the hidden copies come back with the tabs. The first
 * copy stays. Returns how many went.
 */
export function removeRepeatedBlocks(root: Element): number {
  const seen = new Set<string>();
  let removed = 0;
  for (const el of [...root.querySelectorAll('*')]) {
    if (!LEAF_BLOCKS.has(el.localName) || !root.contains(el) || hasBlockChild(el)) continue;
    const text = squash(el.textContent ?? '');
    if (text.length < MIN_REPEATED_CHARS) continue;
    if (seen.has(text)) {
      el.remove();
      removed++;
    } else seen.add(text);
  }
  return removed;
}

function hasBlockChild(el: Element): boolean {
  for (const child of el.querySelectorAll('*')) if (LEAF_BLOCKS.has(child.localName)) return true;
  return false;
}

function plain(value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const text = String(value).replace(/<[^>]*>/g, ' ').replace(/&nbsp;/g, ' ').replace(/\s+/g, ' ').trim();
  return text || undefined;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

/** A name word for the customer reviews (review, reviews, reviewer, reviewslist...). */
const REVIEW_WORD = /^reviews?(list|section|container|widget|block|wrapper|summary)?$|^reviewer/;

/**
 * Removes a product page's customer reviews: the elements named so (class, id or itemprop
 * with a word for reviews, or microdata typed schema.org/Review), except one that holds the
 * product's heading (a page wrapper that names a reviews feature). The page is about the
 * product; the reviews are what buyers wrote about it, and they are prose, so Readability
 * would rather keep them than the description's short lines and specification table.
 * Only product pages (an article may be a review). Returns how many went.
 */
export function removeReviews(body: Element): number {
  const found: Element[] = [];
  for (const el of body.querySelectorAll('[class], [id], [itemprop], [itemtype]')) {
    if (found.some((f) => f.contains(el))) continue;
    const typed = /schema\.org\/(Review|UserReview)$/i.test(el.getAttribute('itemtype') ?? '');
    if (!typed && !nameTokens(el).some((words) => words.some((w) => REVIEW_WORD.test(w)))) continue;
    if (el.localName === 'body' || el.querySelector('h1')) continue;
    found.push(el);
  }
  for (const el of found) el.remove();
  return found.length;
}
