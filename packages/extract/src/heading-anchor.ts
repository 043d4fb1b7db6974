// Heading anchors: docs generators (Sphinx, MkDocs, Docusaurus, Next.js docs) give every
// heading, or the <section> it opens, an id made from the heading's own text, so that
// "#cookies" links to the section titled "Cookies". Such an id names the section's topic,
// not the element's role: a section about cookies, comments or authorization is no cookie
// banner, comment thread or author box. Structure tells them apart: the id spells the text
// of the heading it belongs to.

const HEADING = /^h[1-6]$/;

/**
 * Whether `id` (el's id) is the anchor of el's heading: el is a heading, or its first element
 * child is one, and the id and the heading's text are the same letters and digits ("about-
 * authentication-and-authorization" for "About authentication and authorization#"; the
 * permalink mark "¶" or "#" that generators append is no letter).
 */
export function isHeadingAnchor(el: Element, id: string): boolean {
  const heading = HEADING.test(el.localName) ? el : el.firstElementChild;
  if (!heading || !HEADING.test(heading.localName)) return false;
  const key = letters(id);
  return key.length > 0 && letters(heading.textContent ?? '') === key;
}

function letters(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Takes every heading anchor id under `root` off its element, for Readability: it reads ids
 * as names too (an "unlikely candidate" named "comment" or "replies" is stripped, a negative
 * name such as "share" lowers a node's score and drops a heading), and a docs section titled
 * "Respond to review comments" is no comment thread. The returned function puts the ids back
 * (on the elements themselves, wherever Readability has moved them).
 */
export function hideHeadingAnchors(root: Element): () => void {
  const hidden: Array<[Element, string]> = [];
  for (const el of root.querySelectorAll('[id]')) {
    const id = el.getAttribute('id')!;
    if (!isHeadingAnchor(el, id)) continue;
    hidden.push([el, id]);
    el.removeAttribute('id');
  }
  return () => {
    for (const [el, id] of hidden) el.setAttribute('id', id);
  };
}
