// A label scrambled against ad blockers: eBay spells "Sponsored" as a row of spans, one letter
// each, between spans of random UUIDs that its CSS hides (the class names are random too).
// Without the CSS the markdown gets a line of UUIDs. Read by shape, not by words: a row of
// at least MIN_IDS spans holding only UUIDs and single characters is never text a person
// wrote, so the row goes (outside code listings).

import { elementsWhere } from './text.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Fewer UUIDs than this could be a real id shown on purpose (an order number). */
const MIN_IDS = 3;

/** Removes every scrambled label under `root`. Returns how many rows went. */
export function removeScrambledLabels(root: Element): number {
  const rows = elementsWhere(root, isScrambledRow);
  for (const row of rows) row.remove();
  return rows.length;
}

function isScrambledRow(el: Element): boolean {
  let ids = 0;
  for (let c = el.firstChild; c; c = c.nextSibling) {
    if (c.nodeType === 3) {
      if (/\S/.test(c.textContent ?? '')) return false;
      continue;
    }
    if (c.nodeType !== 1) continue;
    const child = c as Element;
    if (child.localName !== 'span' || child.firstElementChild) return false;
    const text = (child.textContent ?? '').trim();
    if (UUID.test(text)) ids += 1;
    else if ([...text].length > 1) return false;
  }
  return ids >= MIN_IDS && !inCode(el);
}

/** Ids in a code listing are the listing's. */
function inCode(el: Element): boolean {
  for (let e: Element | null = el; e; e = e.parentElement) if (e.localName === 'pre' || e.localName === 'code') return true;
  return false;
}
