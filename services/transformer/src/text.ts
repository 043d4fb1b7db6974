// Text measures of a subtree, computed in one walk so that scoring many elements stays linear
// in the size of the page (textContent per element would be quadratic on deep pages).

export interface TextStats {
  /** Visible-text length, whitespace runs counted as one. */
  text: number;
  /** The part of it inside links. */
  link: number;
}

/** Text and link-text length of every element under and including `root`. */
export function textStats(root: Element): Map<Element, TextStats> {
  const stats = new Map<Element, TextStats>();
  measure(root, stats, false);
  return stats;
}

function measure(el: Element, stats: Map<Element, TextStats>, inLink: boolean): TextStats {
  const own: TextStats = { text: 0, link: 0 };
  const linked = inLink || el.nodeName === 'A';
  for (const child of el.childNodes) {
    if (child.nodeType === 3) {
      const n = collapsedLength((child as Text).data);
      own.text += n;
      if (linked) own.link += n;
    } else if (child.nodeType === 1) {
      const sub = measure(child as Element, stats, linked);
      own.text += sub.text;
      own.link += sub.link;
    }
  }
  stats.set(el, own);
  return own;
}

/** Share of an element's text that is link text (0 for an empty element). */
export function linkDensity(s: TextStats | undefined): number {
  return s && s.text ? s.link / s.text : 0;
}

/** Length of a text with whitespace runs counted as one character and the ends trimmed. */
export function collapsedLength(text: string): number {
  return text.replace(/\s+/g, ' ').trim().length;
}

/** Elements under `root` in document order, skipping the subtree of any element `skip` accepts. */
export function* walkElements(root: Element, skip?: (el: Element) => boolean): Generator<Element> {
  const stack: Element[] = [...root.children].reverse();
  while (stack.length) {
    const el = stack.pop()!;
    yield el;
    if (skip?.(el) || !el.parentNode) continue;
    for (let i = el.children.length - 1; i >= 0; i--) stack.push(el.children[i]!);
  }
}
