// linkedom keeps a document as one linked list in document order: every node points to the
// next (attributes, text, elements, and an end marker closing each element), and an element
// points to its end marker. Walking a subtree is then one pointer step per node, where the
// DOM's firstElementChild / nextElementSibling steps skip the attribute nodes again on every
// call and climb back up through parentElement (the walks below ran on every element of the
// page, tens of times per transform: Readability asks for tag lists on every candidate).
// The two links are symbols private to linkedom, found on the first node that has them; on
// any other DOM the callers take their own DOM walk.

/** A node as linkedom lays it out (only what the walks read). */
export interface ListNode {
  nodeType: number;
  localName?: string;
}

let NEXT: symbol | undefined;
let END: symbol | undefined;

/** Whether `node` is laid out as linkedom's list (found once, from the first node asked about). */
export function isListed(node: object): boolean {
  if (NEXT && END) return END in node;
  for (const s of Object.getOwnPropertySymbols(node)) {
    if (s.description === 'next') NEXT = s;
    else if (s.description === 'end') END = s;
  }
  if (NEXT && END) return END in node;
  NEXT = END = undefined;
  return false;
}

/** The node after `node` in the list (its first attribute or child, else what follows it). */
export function nextNode(node: object): ListNode {
  return (node as Record<symbol, ListNode>)[NEXT!]!;
}

/** The end marker of an element, document or fragment: the last node of its subtree. */
export function endOf(node: object): ListNode {
  return (node as Record<symbol, ListNode>)[END!]!;
}

/** The list's node types that are not DOM nodes: an element's end marker. */
export const END_MARKER = -1;
