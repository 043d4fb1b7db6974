// HTML microdata (itemscope / itemtype / itemprop / itemid / itemref), read as the HTML
// Living Standard's "microdata to JSON" algorithm describes it (§5.4), so the output is the
// shape its JSON conversion defines: { type: [...], id?, properties: { name: [values] } },
// every property an array (a name may repeat), a nested item as an object value.
//
// Top-level items are elements with itemscope and no itemprop. An item's properties are
// found in its subtree and in the subtrees of the elements its itemref names, without
// descending into nested items (their properties are theirs). Property values:
//   itemscope               -> the nested item
//   meta                    -> content
//   audio embed iframe img source track video -> src, absolute
//   a area link             -> href, absolute
//   object                  -> data, absolute
//   data meter              -> value
//   time                    -> datetime, else the text
//   anything else           -> the text (textContent)
// An item reached again through itemref (a cycle) is "ERROR", as the standard says.
import { resolveHttpUrl } from './dom.js';
import { pageElements, type PageElements } from './page-elements.js';

export interface MicrodataItem {
  type: string[];
  id?: string;
  properties: Record<string, MicrodataValue[]>;
}
export type MicrodataValue = string | MicrodataItem;

/** Items nested deeper than this are cut (a hostile page could nest thousands). */
const MAX_DEPTH = 16;
const SRC_ELEMENTS = new Set(['AUDIO', 'EMBED', 'IFRAME', 'IMG', 'SOURCE', 'TRACK', 'VIDEO']);
const HREF_ELEMENTS = new Set(['A', 'AREA', 'LINK']);

export function readMicrodata(document: Document, base: URL, elements: PageElements = pageElements(document)): MicrodataItem[] {
  const items: MicrodataItem[] = [];
  for (const el of elements.itemscopes) {
    if (!el.hasAttribute('itemprop')) items.push(readItem(el, document, base, new Set(), 0));
  }
  return items;
}

function readItem(scope: Element, document: Document, base: URL, seen: Set<Element>, depth: number): MicrodataItem {
  seen.add(scope);
  const type = tokens(scope.getAttribute('itemtype'));
  // A Map, not an object: property names are the page's ("__proto__" included).
  const values = new Map<string, MicrodataValue[]>();
  for (const prop of properties(scope, document)) {
    const value = prop.hasAttribute('itemscope')
      ? (seen.has(prop) || depth >= MAX_DEPTH ? 'ERROR' : readItem(prop, document, base, new Set(seen), depth + 1))
      : propertyValue(prop, base);
    for (const name of tokens(prop.getAttribute('itemprop'))) {
      const list = values.get(name);
      if (list) list.push(value);
      else values.set(name, [value]);
    }
  }
  const id = scope.getAttribute('itemid')?.trim();
  return {
    type,
    ...(id && type.length > 0 ? { id: resolveHttpUrl(id, base)?.href ?? id } : {}),
    properties: Object.fromEntries(values),
  };
}

/** The item's property elements in tree order: its subtree and its itemref targets, not crossing nested items. */
function properties(scope: Element, document: Document): Element[] {
  const roots: Element[] = [...scope.children];
  for (const ref of tokens(scope.getAttribute('itemref'))) {
    const target = document.getElementById(ref);
    if (target && target !== scope) roots.push(target);
  }
  const found = new Set<Element>();
  // Depth-first, children pushed in reverse: each root's subtree is visited in tree order.
  const pending = [...roots].reverse();
  while (pending.length > 0) {
    const el = pending.pop()!;
    if (found.has(el)) continue;
    if (el.hasAttribute('itemprop')) found.add(el);
    // A nested item's own properties belong to it; an itemscope without itemprop is also opaque.
    if (el.hasAttribute('itemscope')) continue;
    // Read once: linkedom builds a new array on each read of `children`.
    const children = el.children;
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]!);
  }
  // Only itemref targets (elsewhere in the page) can break tree order.
  return roots.length > scope.children.length ? [...found].sort(treeOrder) : [...found];
}

function treeOrder(a: Element, b: Element): number {
  // DOCUMENT_POSITION_FOLLOWING (4): b comes after a.
  return a.compareDocumentPosition(b) & 4 ? -1 : 1;
}

function propertyValue(el: Element, base: URL): string {
  const name = el.nodeName;
  if (name === 'META') return el.getAttribute('content') ?? '';
  if (SRC_ELEMENTS.has(name)) return absolute(el.getAttribute('src'), base);
  if (HREF_ELEMENTS.has(name)) return absolute(el.getAttribute('href'), base);
  if (name === 'OBJECT') return absolute(el.getAttribute('data'), base);
  if (name === 'DATA' || name === 'METER') return el.getAttribute('value') ?? '';
  if (name === 'TIME' && el.hasAttribute('datetime')) return el.getAttribute('datetime') ?? '';
  return collapse(el.textContent);
}

function absolute(value: string | null, base: URL): string {
  if (!value) return '';
  try {
    return new URL(value.trim(), base).href;
  } catch {
    return value;
  }
}

function tokens(value: string | null): string[] {
  return [...new Set((value ?? '').split(/\s+/).filter(Boolean))];
}

function collapse(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
