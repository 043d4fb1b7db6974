// A thread's member facts: each post's author panel lists the same labelled facts
// ("Joined", "Messages", "Reaction score") as definition pairs, and a "similar threads" box
// lists "Replies" and "Views" for every row. A label that the page repeats in many pairs
// is the post template's, not a post's words: those pairs go, by repetition alone (the
// label's words are not read). forum.ts drops the author panel when it finds the posts;
// this catches the threads whose posts it could not tell apart.

/** A label repeated in at least this many pairs is the template's: a thread of two posts shows its panel twice. */
const MIN_REPEATS = 2;
/** A pair's value is a short fact (a date, a count, a place), not a sentence. */
const MAX_VALUE_CHARS = 60;
/** A label is a word or a few. */
const MAX_LABEL_CHARS = 40;

/**
 * Removes the repeated label/value pairs of `root`'s definition lists; returns how many
 * pairs went. The labels are counted over `page` too (the page's body, which still holds
 * the posts the content did not keep): a thread of two posts shown from a page of many.
 */
export function removeRepeatedPairs(root: Element, page: Element = root): number {
  const pairs = definitionPairs(root);
  const counted = new Set<Element>();
  const repeats = new Map<string, number>();
  for (const p of [...pairs, ...(page === root ? [] : definitionPairs(page))]) {
    if (counted.has(p.dt)) continue;
    counted.add(p.dt);
    repeats.set(p.label, (repeats.get(p.label) ?? 0) + 1);
  }
  let removed = 0;
  const lists = new Set<Element>();
  for (const p of pairs) {
    if ((repeats.get(p.label) ?? 0) < MIN_REPEATS || p.values.some((v) => squash(v.textContent ?? '').length > MAX_VALUE_CHARS)) continue;
    if (p.dt.parentElement) lists.add(p.dt.parentElement);
    p.dt.remove();
    for (const v of p.values) v.remove();
    removed++;
  }
  for (const dl of lists) if (!dl.querySelector('dt, dd') && !squash(dl.textContent ?? '')) dl.remove();
  return removed;
}

interface Pair {
  label: string;
  dt: Element;
  values: Element[];
}

/** Each <dt> with a short label and the <dd>s that follow it (up to the next <dt>). */
function definitionPairs(root: Element): Pair[] {
  const pairs: Pair[] = [];
  for (const dt of root.querySelectorAll('dt')) {
    const label = squash(dt.textContent ?? '');
    if (!label || label.length > MAX_LABEL_CHARS) continue;
    const values: Element[] = [];
    for (let s = dt.nextElementSibling; s && s.localName === 'dd'; s = s.nextElementSibling) values.push(s);
    if (values.length > 0) pairs.push({ label, dt, values });
  }
  return pairs;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
