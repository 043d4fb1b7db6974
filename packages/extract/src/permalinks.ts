// Heading permalinks: the "¶" or "#" that Sphinx, MkDocs and many blog themes put after (or
// before) each heading, linking to the heading itself. They are an affordance of the page,
// not words of the heading, so the final pass drops them and the title heading leaves them out.
// Sphinx gives every API entry's signature one too (<dt id="json.dumps">...<a href="#json.dumps">¶</a>):
// a term of a definition list is the heading of its entry.
import { elementsWhere } from './text.js';

/**
 * What a heading's permalink shows: a pilcrow, a hash, a section sign, a link symbol, or
 * nothing. "Â¶" is the pilcrow of a page encoded twice (its UTF-8 bytes read as Latin-1 and
 * encoded again), as some docs mirrors serve it.
 */
const PERMALINK_TEXT = /^(?:[\s¶#§🔗⚓]|Â¶)*$/u;

/**
 * A heading's permalink (Sphinx and MkDocs "headerlink", GitHub-style anchors): a link to the
 * heading's own fragment on this page that shows only a symbol. It is an affordance of the
 * page, not part of the heading's words ("Install FastAPI¶").
 */
export function removePermalinks(root: Element): number {
  let removed = 0;
  // `h1 a[href*="#"], ..., h6 a[href*="#"]` and closest('h1, ..., h6'), by a walk (text.ts
  // elementsWhere): the final pass runs on every page, and linkedom compiles both selectors per call.
  for (const a of elementsWhere(root, (el) => el.localName.toLowerCase() === 'a' && (el.getAttribute('href') ?? '').includes('#') && !!enclosingHeading(el))) {
    const heading = enclosingHeading(a);
    if (!heading || !isPermalink(a, heading)) continue;
    a.remove();
    removed++;
  }
  return removed;
}

/** Headings, and the term of a definition list (the heading of an API entry: Sphinx's signatures). */
const HEADING_NAMES = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt']);

/** The nearest heading (or definition term) that holds `el` (its ancestors up to the document, as closest() reads them). */
function enclosingHeading(el: Element): Element | null {
  for (let at = el.parentElement; at; at = at.parentElement) if (HEADING_NAMES.has(at.localName.toLowerCase())) return at;
  return null;
}

/** Whether the link `a` inside `heading` is the heading's permalink (see removePermalinks). */
export function isPermalink(a: Element, heading: Element): boolean {
  return PERMALINK_TEXT.test(a.textContent ?? '') && !a.querySelector('img') && isOwnFragment(a, heading);
}

/** A link to its own heading: its fragment is the id of the heading, of an element in it, or of an enclosing section. */
function isOwnFragment(a: Element, heading: Element): boolean {
  const href = a.getAttribute('href') ?? '';
  const id = decodeFragment(href.slice(href.indexOf('#') + 1));
  if (!id) return false;
  for (let el: Element | null = heading; el; el = el.parentElement) if (el.id === id) return true;
  for (const el of heading.querySelectorAll('[id]')) if (el.id === id) return true;
  return false;
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}
