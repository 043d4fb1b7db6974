// Streamed server rendering (React 18 Suspense, as Next.js and Remix serve it): the server
// first sends a placeholder (<template id="B:n">, after a fallback such as a spinner) and,
// once the slow part has rendered, its HTML at the end of the body in a hidden
// <div id="S:n">, with an inline script that moves it over the placeholder. Without scripts
// the content stays hidden at the end of the page and would be removed as hidden. The
// script's move is done here, by the ids alone: the segment takes the placeholder's place.
// A part of a segment that rendered later still is streamed the same way into a
// <template id="P:n"> inside it (React's $RS moves S:n over P:n: the same n by design; a
// boundary's B:n is matched to S:n by number, which holds where one counter numbers both).
// A segment whose placeholder is missing stays as it is (hidden, so it goes).

import { elementsWhere } from './text.js';

/** The comment that closes a Suspense boundary ("<!--$?-->" opens a pending one). */
const BOUNDARY_END = '/$';

/** React's ids: "B:<n>" for a boundary's placeholder, "S:<n>" for its segment; n in hex (React writes id.toString(16)). */
const SEGMENT_ID = /^S:([0-9a-f]+)$/;

/**
 * Moves every hidden streamed segment of `body` into the place of its placeholder, before
 * the hidden content is removed. Returns how many segments were moved.
 */
export function placeStreamedSegments(body: Element): number {
  let moved = 0;
  // Segments are direct children of the body in the streamed HTML, but a parser may nest
  // them: any hidden div whose id is a segment's (div[hidden][id^="S:"], by a walk: text.ts elementsWhere).
  for (const segment of elementsWhere(body, isHiddenSegment)) {
    const n = SEGMENT_ID.exec(segment.id)?.[1];
    if (n === undefined) continue;
    const part = placeholderOf(body, `P:${n}`);
    const placeholder = part ?? placeholderOf(body, `B:${n}`);
    if (!placeholder) continue;
    if (!part) removeFallback(placeholder);
    placeholder.replaceWith(...segment.childNodes);
    segment.remove();
    moved++;
  }
  return moved;
}

function placeholderOf(body: Element, id: string): Element | null {
  const el = body.ownerDocument.getElementById(id);
  return el && el.localName === 'template' && body.contains(el) ? el : null;
}

function isHiddenSegment(el: Element): boolean {
  return el.localName.toLowerCase() === 'div' && el.hasAttribute('hidden') && (el.getAttribute('id') ?? '').startsWith('S:');
}

/**
 * The boundary's fallback (a spinner, "Loading...") follows the placeholder up to the
 * boundary's closing comment; the script removes it with the placeholder. Nothing is
 * removed when the closing comment is not found among the placeholder's next siblings.
 */
function removeFallback(placeholder: Element): void {
  const fallback: ChildNode[] = [];
  for (let n = placeholder.nextSibling; n; n = n.nextSibling) {
    if (n.nodeType === 8 && (n as Comment).data === BOUNDARY_END) {
      for (const f of fallback) f.remove();
      return;
    }
    fallback.push(n);
  }
}
