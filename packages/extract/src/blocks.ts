// Blocks of a page and what the learned classifier (block-model.ts) reads about each one.
// A block is the text a reader sees as one unit: the text nodes (with their inline markup)
// whose nearest block-level ancestor is the same element, as in boilerpipe and trafilatura.
// Every feature is structural or typographic (density, position, tag path, names,
// repetition, neighbours); no word list decides, so an article *about* cookies is read like
// any other.
import { isBoilerplateToken, nameTokens } from './boilerplate.js';
import { PAGE_TYPES, type PageType } from './page-type.js';
import { collapsedLength, hasNonSpace, hasText } from './text.js';
import { classOf } from './dom.js';

/** Block-level elements: each starts a block of its own. */
const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'dd', 'details', 'dialog', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure',
  'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table',
  'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'legend', 'center',
]);
const TAG_KINDS: Record<string, number> = { p: 0, h1: 1, h2: 1, h3: 1, h4: 1, h5: 1, h6: 1, li: 2, td: 3, th: 3, pre: 4, dd: 5, dt: 5, blockquote: 6, figcaption: 7, caption: 7 };
const TAG_KIND_COUNT = 9; // the 8 above, and every other block tag
const LANDMARKS = ['nav', 'header', 'footer', 'aside', 'form', 'main', 'article', 'table', 'li'];
const ROLE_LANDMARKS: Record<string, string> = { navigation: 'nav', banner: 'header', contentinfo: 'footer', complementary: 'aside', main: 'main', article: 'article' };
const CONTENT_NAME = /^(content|article|post|entry|body|main|text|story|description|product|prose|markdown|documentation|docs|thread|message|review|answer|question)$/;
/** Marks the page's blocks so the chosen content can say which of them it kept. */
export const BLOCK_MARK = 'data-trawl-block';

export interface Block {
  el: Element;
  text: string;
  words: number;
  linkChars: number;
  chars: number;
  /** Tag path of the block's last three ancestors with their first class: what repeats on a listing. */
  signature: string;
  features: number[];
}

/** Names of the features, in the model's order (block-model.json records them too). */
export const FEATURE_NAMES = [
  'logWords', 'logChars', 'linkDensity', 'punctPerWord', 'endsSentence', 'digitShare', 'capitalShare', 'position', 'textPosition', 'logDepth',
  ...Array.from({ length: TAG_KIND_COUNT }, (_, i) => `tag${i}`),
  ...LANDMARKS.map((l) => `in_${l}`),
  'boilerplateNames', 'contentNames', 'inResult', 'prevInResult', 'nextInResult', 'prevLinkDensity', 'nextLinkDensity', 'prevLogWords', 'nextLogWords',
  'logSignatureRepeats', 'logTextRepeats', 'wordShare', 'resultShare',
  ...PAGE_TYPES.map((t) => `type_${t}`),
  'prev2InResult', 'next2InResult', 'windowLinkDensity', 'signatureResultShare', 'parentInResult',
];

interface Raw {
  el: Element;
  parts: string[];
  linkChars: number;
  depth: number;
  landmarks: number[];
  boilerplateNames: number;
  contentNames: number;
  signature: string;
  parent: Raw | undefined;
}

/** Gives every block-level element under `body` a mark (its index), before extractors move or clone them. */
export function markBlocks(body: Element): void {
  let i = 0;
  const visit = (el: Element): void => {
    if (BLOCK_TAGS.has(el.localName)) el.setAttribute(BLOCK_MARK, String(i++));
    for (let c = el.firstElementChild; c; c = c.nextElementSibling) visit(c);
  };
  visit(body);
}

/** Whether an element's names (nameTokens) hold a boilerplate name and a content name, as 0 or 1. */
interface NameKinds {
  boilerplate: number;
  content: number;
}

/** NameKinds per names array: nameTokens hands every element with the same names the same array. */
const kindsOfNames = new WeakMap<ReadonlyArray<readonly string[]>, NameKinds>();

function nameKinds(names: ReadonlyArray<readonly string[]>): NameKinds {
  let kinds = kindsOfNames.get(names);
  if (!kinds) {
    kinds = { boilerplate: names.some((w) => isBoilerplateToken(w)) ? 1 : 0, content: names.some((w) => w.some((x) => CONTENT_NAME.test(x))) ? 1 : 0 };
    kindsOfNames.set(names, kinds);
  }
  return kinds;
}

/** Marks of the blocks a chosen content root holds. */
export function keptMarks(root: Element): Set<string> {
  const marks = new Set<string>();
  if (root.hasAttribute(BLOCK_MARK)) marks.add(root.getAttribute(BLOCK_MARK)!);
  for (const el of root.querySelectorAll(`[${BLOCK_MARK}]`)) marks.add(el.getAttribute(BLOCK_MARK)!);
  return marks;
}

/** The blocks of `body` that have text, in page order, with their features. */
export function readBlocks(body: Element, kept: ReadonlySet<string>, pageType: PageType | undefined): Block[] {
  const raws: Raw[] = [];
  const walk = (el: Element, block: Raw, inLink: boolean, ctx: { depth: number; landmarks: number[]; bp: number; ct: number; path: string[] }): void => {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        const data = (child as Text).data;
        if (!hasNonSpace(data)) {
          if (block.parts.length) block.parts.push(' ');
          continue;
        }
        block.parts.push(data);
        if (inLink) block.linkChars += collapsedLength(data);
      } else if (child.nodeType === 1) {
        const c = child as Element;
        const tag = c.localName;
        const names = nameKinds(nameTokens(c));
        const bp = ctx.bp + names.boilerplate;
        const ct = ctx.ct + names.content;
        const role = ROLE_LANDMARKS[c.getAttribute('role') ?? ''];
        const li = LANDMARKS.indexOf(tag);
        const ri = role ? LANDMARKS.indexOf(role) : -1;
        const landmarks = li >= 0 || ri >= 0 ? ctx.landmarks.map((v, i) => (i === li || i === ri ? 1 : v)) : ctx.landmarks;
        const path = [...ctx.path.slice(-2), `${tag}.${classOf(c).trim().split(/\s+/)[0] ?? ''}`];
        const next = { depth: ctx.depth + 1, landmarks, bp, ct, path };
        if (BLOCK_TAGS.has(tag)) {
          const raw: Raw = { el: c, parts: [], linkChars: 0, depth: next.depth, landmarks, boilerplateNames: bp, contentNames: ct, signature: path.join('>'), parent: block };
          raws.push(raw);
          walk(c, raw, inLink || tag === 'a', next);
        } else {
          walk(c, block, inLink || tag === 'a', next);
        }
      }
    }
  };
  const root: Raw = { el: body, parts: [], linkChars: 0, depth: 0, landmarks: LANDMARKS.map(() => 0), boilerplateNames: 0, contentNames: 0, signature: 'body', parent: undefined };
  raws.push(root);
  walk(body, root, false, { depth: 0, landmarks: root.landmarks, bp: 0, ct: 0, path: [] });

  const blocks: Array<Omit<Block, 'features'> & { raw: Raw; inResult: number }> = [];
  for (const raw of raws) {
    const text = raw.parts.join('').replace(/\s+/g, ' ').trim();
    if (!text) continue;
    const mark = raw.el.getAttribute(BLOCK_MARK);
    blocks.push({ el: raw.el, text, words: text.split(' ').length, linkChars: Math.min(raw.linkChars, text.length), chars: text.length, signature: raw.signature, raw, inResult: mark !== null && kept.has(mark) ? 1 : 0 });
  }
  const totalWords = blocks.reduce((n, b) => n + b.words, 0) || 1;
  const resultWords = blocks.reduce((n, b) => n + b.words * b.inResult, 0);
  const signatures = countOf(blocks.map((b) => b.signature));
  const signaturesKept = countOf(blocks.filter((b) => b.inResult).map((b) => b.signature));
  const isKept = (raw: Raw | undefined): number => {
    const mark = raw?.el.getAttribute(BLOCK_MARK);
    return mark != null && kept.has(mark) ? 1 : 0;
  };
  const texts = countOf(blocks.map((b) => b.text));
  const typeOneHot = PAGE_TYPES.map((t) => (t === pageType ? 1 : 0));
  let wordsBefore = 0;
  return blocks.map((b, i) => {
    const prev = blocks[i - 1];
    const next = blocks[i + 1];
    const kind = TAG_KINDS[b.el.localName] ?? TAG_KIND_COUNT - 1;
    const punct = (b.text.match(/[.,;:!?]/g) ?? []).length;
    const digits = (b.text.match(/\d/g) ?? []).length;
    const tokens = b.text.split(' ');
    const capital = tokens.filter((w) => /^\p{Lu}/u.test(w)).length;
    const features = [
      Math.log1p(b.words),
      Math.log1p(b.chars),
      b.linkChars / b.chars,
      punct / b.words,
      /[.!?:"”»)]$/.test(b.text) ? 1 : 0,
      digits / b.chars,
      capital / tokens.length,
      blocks.length > 1 ? i / (blocks.length - 1) : 0,
      wordsBefore / totalWords,
      Math.log1p(b.raw.depth),
      ...Array.from({ length: TAG_KIND_COUNT }, (_, k) => (k === kind ? 1 : 0)),
      ...b.raw.landmarks,
      b.raw.boilerplateNames,
      b.raw.contentNames,
      b.inResult,
      prev ? prev.inResult : 0,
      next ? next.inResult : 0,
      prev ? prev.linkChars / prev.chars : 1,
      next ? next.linkChars / next.chars : 1,
      prev ? Math.log1p(prev.words) : 0,
      next ? Math.log1p(next.words) : 0,
      Math.log1p(signatures.get(b.signature)! - 1),
      Math.log1p(texts.get(b.text)! - 1),
      b.words / totalWords,
      resultWords / totalWords,
      ...typeOneHot,
      blocks[i - 2]?.inResult ?? 0,
      blocks[i + 2]?.inResult ?? 0,
      windowLinkDensity(blocks, i),
      (signaturesKept.get(b.signature) ?? 0) / signatures.get(b.signature)!,
      isKept(b.raw.parent),
    ];
    wordsBefore += b.words;
    return { el: b.el, text: b.text, words: b.words, linkChars: b.linkChars, chars: b.chars, signature: b.signature, features };
  });
}

/** Link share of the text of the blocks within three of block i. */
function windowLinkDensity(blocks: ReadonlyArray<{ chars: number; linkChars: number }>, i: number): number {
  let chars = 0;
  let link = 0;
  for (let j = Math.max(0, i - 3); j <= Math.min(blocks.length - 1, i + 3); j++) {
    chars += blocks[j]!.chars;
    link += blocks[j]!.linkChars;
  }
  return chars ? link / chars : 0;
}

function countOf(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return counts;
}

/**
 * Removes the blocks the model dropped: each one's own text and inline markup, keeping the
 * blocks nested in it (also those an inline element wraps, as custom elements and links
 * do); then the block elements left without text.
 */
export function removeBlocks(body: Element, dropped: readonly Element[]): void {
  for (const el of dropped) removeOwnText(el);
  for (const el of [...body.querySelectorAll('*')].reverse()) {
    // hasText: whether textContent has a non-space, without joining it (this runs on every block, bottom up).
    if (BLOCK_TAGS.has(el.localName) && !hasText(el) && !el.querySelector('img, picture, video')) el.remove();
  }
}

/** The text and inline markup of `el` that belong to no nested block. */
function removeOwnText(el: Element): void {
  for (let child = el.firstChild; child; ) {
    const next = child.nextSibling;
    if (child.nodeType === 3) child.remove();
    else if (child.nodeType === 1 && !BLOCK_TAGS.has((child as Element).localName)) {
      if (hasBlock(child as Element)) removeOwnText(child as Element);
      else child.remove();
    }
    child = next;
  }
}

function hasBlock(el: Element): boolean {
  for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (BLOCK_TAGS.has(c.localName) || hasBlock(c)) return true;
  return false;
}
