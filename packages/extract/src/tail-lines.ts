// Link lines at the end of the content: what a template sets under the article's last
// paragraph inside the article's own container, and what no class name marks. A "next
// part" link, a "Category: <link>" meta line, a footer's "Imprint | Privacy" row. By
// structure alone: a short line, not a sentence, of which a good share (not all) is link text. The
// walk back from the end (prune.ts trimTail) stops at the first block that is not such
// furniture, so the article's own lines before its last prose are never reached.
import { collapsedLength } from './text.js';

/** A tail link line is a line: at most this much text... */
const MAX_TAIL_LINK_LINE = 100;
/**
 * ...of which at least this share is link text (a "Category: Press Releases" line), but not
 * all of it: a line that is one link is as often the story the post points to ("[The
 * generation we love to dump on]") as a button; a label beside a link is a meta line.
 */
const MIN_TAIL_LINK_SHARE = 0.25;
const MAX_TAIL_LINK_SHARE = 0.9;
/** Two sentences (one ends, another starts) are prose, links or not. */
const SENTENCE_END = /[.!?…]["»“”']?\s+["„«“]?\p{Lu}/u;

/** Whether `el` (a leaf block at the end of the content, its collapsed text `text`) is a short line of links. */
export function isTailLinkLine(el: Element, text: string): boolean {
  if (text.length > MAX_TAIL_LINK_LINE || SENTENCE_END.test(text) || /[.!?…]$/u.test(text)) return false;
  const links = el.nodeName === 'A' ? text.length : [...el.querySelectorAll('a')].reduce((n, a) => (a.parentElement?.closest('a') ? n : n + collapsedLength(a.textContent ?? '')), 0);
  return links >= MIN_TAIL_LINK_SHARE * text.length && links < MAX_TAIL_LINK_SHARE * text.length;
}
