// The final boilerplate pass, on the chosen content tree: what survives every candidate
// extractor because it sits inside the article's own container and carries no telling
// class name. Boilerplate is recognised by structure and position: how much of a block is
// link text, whether it stands outside the run of the article's prose (before its first
// paragraph or after its last), whether it is a one-line call-out (all bold or italic) or a
// credit beside an image. The stock phrases of phrases.ts only veto a block that structure
// or position has already marked: words alone never delete a block inside the article, so
// an article about cookies, dates or newsletters keeps its paragraphs.
import { collapsedLength, elementsWhere, firstVisibleChar, hasText, leadingText, linkDensity, textStats, type TextStats } from './text.js';
import { isBoilerplateHeading, isServerError, phraseKind, SERVER_ERROR_PREFIX_LENGTH, type PhraseKind } from './phrases.js';
import { removeTeaserRuns } from './teasers.js';
import { removePermalinks } from './permalinks.js';
import { isTailLinkLine } from './tail-lines.js';
/** Lists and blocks mostly made of links are navigation or related links (trafilatura's link-density test). */
const MAX_LIST_LINK_DENSITY = 0.6;
const MAX_BLOCK_LINK_DENSITY = 0.5;
/** ...unless they are long prose with a few links: only blocks up to this length are judged by links. */
const MAX_LINK_BLOCK_TEXT = 1000;
const MAX_LINK_BLOCK_SHARE = 0.5;

const BLOCKS = new Set(['p', 'div', 'section', 'ul', 'ol', 'dl', 'table', 'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'li', 'span', 'small', 'strong', 'em', 'b', 'i', 'a']);
/** What a closing section's title may be set in (cutTailSection). */
const SECTION_TITLES = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'div']);
const HEADINGS = new Set(['H1', 'H2', 'H3', 'H4', 'H5', 'H6']);

export interface PruneReport {
  removed: number;
}

export interface PruneOptions {
  /**
   * Judge lists and blocks by their link text. Off for pages that are not articles
   * (listings, shops, home pages), whose content is links.
   */
  linkDensity: boolean;
  /** Remove runs of teaser cards outside the prose (teasers.ts). Off where cards are the content (listings) or posts (threads). */
  teaserRuns?: boolean;
}

/** Removes the boilerplate blocks of `root` (in place). The first <h1> (the title) is never touched. */
export function pruneBoilerplate(root: Element, options: PruneOptions = { linkDensity: true }): PruneReport {
  let removed = removePermalinks(root);
  const stats = textStats(root);
  // A link list holding most of the content is the content (a listing, a directory page).
  const maxLinkBlock = Math.min(MAX_LINK_BLOCK_TEXT, MAX_LINK_BLOCK_SHARE * (stats.get(root)?.text ?? 0));
  const title = root.querySelector('h1');
  const remove = (el: Element): void => {
    el.remove();
    removed++;
  };
  if (options.teaserRuns) removed += removeTeaserRuns(root, stats, (skip) => proseSpan(root, stats, skip));
  const core = proseSpan(root, stats);
  for (const el of elementsWhere(root, (e) => BLOCKS.has(e.localName))) {
    if (!root.contains(el) || el === title || el.contains(title)) continue;
    const s = stats.get(el);
    if (!s || s.text === 0) continue;
    if (HEADINGS.has(el.nodeName)) {
      // A heading that announces boilerplate ("Related", "Comments", "Subscribe to our
      // newsletter") takes its section along, when it stands outside the prose or heads links.
      if (s.text <= MAX_HEADING_LENGTH && isBoilerplateHeading(textOf(el), s.text) && (core.outside(el) || headsLinks(el, stats))) removeSection(el, stats, remove);
      continue;
    }
    if (isBoilerplateBlock(el, s, core, { ...options, linkDensity: options.linkDensity && s.text <= maxLinkBlock })) remove(el);
  }
  removed += cutTailSection(root, title);
  removed += trimTail(root, title);
  return { removed };
}

/** A closing section is short: at most this much text after its heading, and this share of the content. */
const MAX_TAIL_SECTION_TEXT = 800;
const MAX_TAIL_SECTION_SHARE = 0.2;
const MAX_SECTION_TITLE = 60;

/**
 * The last section of the content, when its title announces boilerplate ("About the
 * author", "Related", "Support us") and little text follows it: templates close articles
 * with such boxes, and their few lines are prose-shaped (a bio, a pitch), so neither the
 * line rules nor trimTail see them. Position marks the section (the end of the content,
 * short); the title's words confirm it. A long closing section with such a title stays.
 */
function cutTailSection(root: Element, title: Element | null): number {
  const stats = textStats(root);
  const total = stats.get(root)?.text ?? 0;
  const limit = Math.min(MAX_TAIL_SECTION_TEXT, MAX_TAIL_SECTION_SHARE * total);
  for (const el of elementsWhere(root, (e) => SECTION_TITLES.has(e.localName))) {
    if (el === title || el.contains(title)) continue;
    const s = stats.get(el);
    // A title, not a link ("Comments (74 posted)" links to another page; it heads nothing).
    if (!s || s.text === 0 || s.text > MAX_SECTION_TITLE || s.link > 0 || (!HEADINGS.has(el.nodeName) && hasContainerChild(el))) continue;
    const text = textOf(el);
    if (!isBoilerplateHeading(text, s.text) && phraseKind(text, s.text) !== 'teaser') continue;
    const after = following(el, root);
    const rest = after.reduce((n, e) => n + (stats.get(e)?.text ?? 0), 0);
    if (rest > limit) continue;
    if (title && after.some((e) => e.contains(title))) continue;
    for (const e of after) e.remove();
    el.remove();
    return after.length + 1;
  }
  return 0;
}

/** The elements after `el` in document order that are not inside it: its following siblings, and those of each ancestor below `root`. */
function following(el: Element, root: Element): Element[] {
  const out: Element[] = [];
  for (let node: Element | null = el; node && node !== root; node = node.parentElement) {
    for (let next = node.nextElementSibling; next; next = next.nextElementSibling) out.push(next);
  }
  return out;
}

/** Blocks that hold text directly: the units the tail is made of. */
const LEAF_BLOCKS = new Set(['P', 'H2', 'H3', 'H4', 'H5', 'H6', 'LI', 'DIV', 'BLOCKQUOTE', 'DD', 'DT', 'TD', 'PRE', 'FIGCAPTION', 'SECTION']);
const CONTAINER_CHILDREN = new Set([...LEAF_BLOCKS, 'UL', 'OL', 'DL', 'TABLE', 'H1', 'ARTICLE', 'HEADER', 'FOOTER', 'FORM', 'FIGURE']);
/** A tail block is furniture when it is this short... */
const MAX_TAIL_SHORT = 15;
/** A sentence ends inside the text (and another starts): two sentences are prose, not a label. */
const SENTENCE_END = /[.!?…]["»“”']?\s+["„«“]?\p{Lu}/u;
/** A heading or call-out longer than this that ends like a sentence is a sentence. */
const MAX_TAIL_PHRASE = 60;
/** ...or a one-line call-out (all bold, or an introducer ending in ':') up to this length. */
const MAX_TAIL_CALLOUT = 250;

/**
 * Where the article ends, templates put their furniture: a closing "Follow us", a bold call
 * to subscribe, a lone "Share:", an orphan heading whose section was removed. Walking back
 * from the last block, such blocks are dropped until the first block of prose: a heading
 * with nothing after it, a line ending in ':' with nothing to introduce, a line that is all
 * bold, or a scrap under MAX_TAIL_SHORT characters. Prose ends the walk, so the
 * article body itself is never touched.
 */
function trimTail(root: Element, title: Element | null): number {
  // hasText, not textOf: the walk usually stops at the last block, so only it needs its text.
  const blocks = [...root.querySelectorAll('*')].filter((el) => LEAF_BLOCKS.has(el.nodeName) && !hasContainerChild(el) && hasText(el));
  let removed = 0;
  for (let i = blocks.length - 1; i > 0; i--) {
    const el = blocks[i]!;
    if (el === title || el.contains(title) || !isTailFurniture(el)) break;
    el.remove();
    removed++;
  }
  return removed;
}

function hasContainerChild(el: Element): boolean {
  for (const child of el.children) if (CONTAINER_CHILDREN.has(child.nodeName)) return true;
  return false;
}

/** List items, cells and code are data: a short one ends the walk (a spec table's last row is content). */
const DATA_BLOCKS = new Set(['LI', 'TD', 'DD', 'DT', 'PRE']);

function isTailFurniture(el: Element): boolean {
  if (DATA_BLOCKS.has(el.nodeName)) return false;
  const text = textOf(el);
  if (text.length <= MAX_TAIL_SHORT || isTailLinkLine(el, text)) return true;
  // Sentences in a heading tag are prose: templates that set a closing paragraph in <h4>
  // are common, and a real heading is a phrase. (Not so for bold: closing calls to follow
  // or write in are bold sentences.)
  const sentences = SENTENCE_END.test(text) || (text.length > MAX_TAIL_PHRASE && /[.!?…]$/u.test(text));
  if (HEADINGS.has(el.nodeName)) return !sentences;
  if (text.length > MAX_TAIL_CALLOUT) return false;
  if (text.endsWith(':')) return true;
  // Two sentences without a link are a closing paragraph set in bold (a news summary), not
  // a call to follow or write in: those link to where they call.
  if (SENTENCE_END.test(text) && !el.querySelector('a')) return false;
  const emphasized = [...el.querySelectorAll('strong, b')].reduce((n, b) => (b.parentElement?.closest('strong, b') ? n : n + collapsedLength(b.textContent ?? '')), 0);
  return emphasized >= 0.9 * text.length;
}

function textOf(el: Element): string {
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
}

function isServerErrorBlock(el: Element): boolean {
  return isServerError(firstVisibleChar(el), () => leadingText(el, SERVER_ERROR_PREFIX_LENGTH), () => textOf(el));
}

function isBoilerplateBlock(el: Element, s: TextStats, core: ProseSpan, options: PruneOptions): boolean {
  const name = el.nodeName;
  // Machine output (PHP warnings) is never prose: the opening words decide first, so a big
  // block's whole text is built only when it starts like a server error.
  // (Not a wrapper holding prose as well: its text also starts with the warning.)
  if (name !== 'PRE' && isServerErrorBlock(el) && isLine(el) && !core.holdsProse(el)) return true;
  if (s.text <= MAX_PHRASE_BLOCK && !core.holdsProse(el)) {
    const kind = phraseKind(textOf(el), s.text);
    if (kind && isLine(el) && structureMarks(el, s, kind, core)) return true;
  }
  if (!options.linkDensity) return false;
  if (name === 'UL' || name === 'OL' || name === 'DL') {
    // One item that is all link is a "see also" line set as a list inside the article.
    const items = itemCount(el);
    return (linkDensity(s) > MAX_LIST_LINK_DENSITY && items >= 2) || (items === 1 && linkDensity(s) >= ONE_LINK_ITEM_DENSITY);
  }
  if (name === 'DIV' || name === 'SECTION' || name === 'P') {
    // A block around a data table (one with header cells) is data even when its rows link
    // their items: test results, product comparisons and timetables name each item by a link.
    return linkDensity(s) > MAX_BLOCK_LINK_DENSITY && hasSeveralLinks(el) && !el.querySelector('th');
  }
  return false;
}

/** A list of one item is a link line when (almost) all of its text is link text. */
const ONE_LINK_ITEM_DENSITY = 0.9;
/** No phrase rule looks at a block longer than this (phrases.ts: 400 for an affiliate disclosure). */
const MAX_PHRASE_BLOCK = 400;
/** A boilerplate section heading is a phrase, not a paragraph set in a heading tag. */
const MAX_HEADING_LENGTH = 200;
/** A block mostly made of link text: a teaser, a button, a link to another page. */
const MARKED_LINK_DENSITY = 0.5;
/** A call-out line: (almost) all of it bold or italic. */
const CALLOUT_EMPHASIS = 0.9;

/**
 * Whether structure or position marks a block whose words read as boilerplate of `kind`:
 * the words then confirm what the block is. Outside the article's prose (its head or tail)
 * every kind is marked, except consent notices, which must also link somewhere (a banner
 * links to its policy; a paragraph about cookies need not). Inside the prose: a block that
 * is mostly link text (a teaser, a button), a one-line call-out in bold or italic (not for
 * dates and consent notices, where a bold line is as likely a sub-heading), or a credit
 * right beside an image.
 */
function structureMarks(el: Element, s: TextStats, kind: PhraseKind, core: ProseSpan): boolean {
  if (linkDensity(s) >= MARKED_LINK_DENSITY) return true;
  if (kind === 'consent') return (core.outside(el) && s.link > 0) || controlAfter(el);
  if (core.outside(el)) return true;
  if (kind === 'date') return false;
  if (kind === 'credit' && besideMedia(el)) return true;
  return emphasizedLength(el) >= CALLOUT_EMPHASIS * s.text;
}

/** The article's prose: where it starts and ends, and which blocks are part of it. */
interface ProseSpan {
  /** The text of the prose blocks. */
  proseText: number;
  /** Before the first prose block or after the last one (always true when there is no prose). */
  outside(el: Element): boolean;
  /** Whether the element is or holds a prose block (never removed for its words). */
  holdsProse(el: Element): boolean;
}

/** A prose block: a leaf block of at least this much text, with few links, that no phrase rule reads as boilerplate. */
const MIN_PROSE_TEXT = 80;
const MAX_PROSE_LINK_DENSITY = 0.3;

/**
 * The run of the article's prose, by document order: from its first prose block to its
 * last. Blocks before or after it are the article's head and tail, where templates put
 * bylines, dates, credits, calls to subscribe and consent notices.
 */
function proseSpan(root: Element, stats: Map<Element, TextStats>, skip?: (el: Element) => boolean): ProseSpan {
  const order = new Map<Element, number>();
  const prose: Element[] = [];
  let i = 0;
  for (const el of root.querySelectorAll('*')) {
    order.set(el, i++);
    if (!LEAF_BLOCKS.has(el.nodeName) || HEADINGS.has(el.nodeName)) continue;
    const s = ownInlineStats(el, stats);
    if (s.text < MIN_PROSE_TEXT || linkDensity(s) > MAX_PROSE_LINK_DENSITY) continue;
    const whole = stats.get(el)!;
    if (whole.text <= MAX_PHRASE_BLOCK && phraseKind(textOf(el), whole.text)) continue;
    if (isServerErrorBlock(el)) continue;
    if (skip?.(el)) continue;
    prose.push(el);
  }
  const first = prose[0];
  const last = prose[prose.length - 1];
  const proseSet = new Set(prose);
  return {
    proseText: prose.reduce((n, p) => n + (stats.get(p)?.text ?? 0), 0),
    outside(el) {
      if (!first || !last) return true;
      const at = order.get(el) ?? -1;
      if (at < order.get(first)!) return !el.contains(first);
      return at > order.get(last)! && !last.contains(el);
    },
    holdsProse(el) {
      if (proseSet.has(el)) return true;
      for (const p of prose) if (el.contains(p)) return true;
      return false;
    },
  };
}

const INLINE = new Set(['A', 'SPAN', 'STRONG', 'B', 'EM', 'I', 'U', 'S', 'CODE', 'SMALL', 'SUP', 'SUB', 'MARK', 'ABBR', 'Q', 'CITE', 'TIME', 'BR', 'DFN', 'KBD', 'SAMP', 'VAR', 'FONT']);

/**
 * The text an element holds itself, in its text nodes and inline children (not in child
 * blocks): a paragraph is prose by its own text, not by the blocks a wrapper holds.
 */
function ownInlineStats(el: Element, stats: Map<Element, TextStats>): TextStats {
  const own: TextStats = { text: 0, link: 0 };
  for (let child = el.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) own.text += collapsedLength((child as Text).data);
    else if (child.nodeType === 1 && INLINE.has((child as Element).nodeName)) {
      const s = stats.get(child as Element);
      if (s) {
        own.text += s.text;
        own.link += s.link;
      }
    }
  }
  return own;
}

/** Whether an image, picture, video or figure stands right before the block, or the block is in a figure. */
function besideMedia(el: Element): boolean {
  if (el.closest('figure')) return true;
  const prev = el.previousElementSibling;
  return !!prev && (/^(IMG|PICTURE|VIDEO|FIGURE)$/.test(prev.nodeName) || !!prev.querySelector('img, picture, video'));
}

/** Text length inside outermost <strong>, <b>, <em>, <i> (or the element itself when it is one). */
function emphasizedLength(el: Element): number {
  if (/^(STRONG|B|EM|I)$/.test(el.nodeName)) return collapsedLength(el.textContent ?? '');
  let n = 0;
  for (const b of el.querySelectorAll('strong, b, em, i')) if (!b.parentElement?.closest('strong, b, em, i')) n += collapsedLength(b.textContent ?? '');
  return n;
}

/** A button-like line right after the block (a notice's "Manage settings" or "Accept"): short and all link. */
function controlAfter(el: Element): boolean {
  const next = el.nextElementSibling;
  if (!next) return false;
  const text = textOf(next);
  const links = [...next.querySelectorAll('a')].reduce((n, a) => n + collapsedLength(a.textContent ?? ''), next.nodeName === 'A' ? text.length : 0);
  return text.length > 0 && text.length <= MAX_CONTROL_TEXT && links >= 0.9 * text.length;
}
const MAX_CONTROL_TEXT = 60;

/** Whether the blocks after a heading are links (a "Related" list): what removeSection takes. */
function headsLinks(heading: Element, stats: Map<Element, TextStats>): boolean {
  const next = heading.nextElementSibling;
  if (!next) return false;
  const s = stats.get(next);
  // Thumbnails that link (no text at all) count as links too.
  return linkDensity(s) > MAX_BLOCK_LINK_DENSITY || ((s?.text ?? 0) === 0 && !!next.querySelector('a img, a picture'));
}

/**
 * An inline element (a <strong>, a <span>) is a line of its own when nothing but whitespace
 * stands beside it in its block (the nearest ancestor that is no inline element: a word set
 * as <a><code><span>cookies</span></code></a> is judged against its sentence, not its
 * <code>): then removing it removes the line, not part of a sentence.
 */
function isLine(el: Element): boolean {
  if (!['SPAN', 'SMALL', 'STRONG', 'EM', 'B', 'I', 'A'].includes(el.nodeName)) return true;
  let block = el.parentElement;
  while (block && INLINE.has(block.nodeName)) block = block.parentElement;
  return !!block && textOf(block) === textOf(el);
}

function itemCount(list: Element): number {
  let n = 0;
  for (const child of list.children) if (child.nodeName === 'LI' || child.nodeName === 'DT' || child.nodeName === 'DD') n++;
  return n;
}

function hasSeveralLinks(el: Element): boolean {
  return el.querySelectorAll('a').length >= 2;
}

/**
 * A boilerplate heading takes its section along: the siblings after it up to the next
 * heading of the same or a higher level, as long as they are link lists, short blocks or
 * link-heavy (a "Related" heading over prose would be odd; the prose stays).
 */
function removeSection(heading: Element, stats: Map<Element, TextStats>, remove: (el: Element) => void): void {
  const level = Number(heading.nodeName.charAt(1));
  let next = heading.nextElementSibling;
  while (next) {
    if (HEADINGS.has(next.nodeName) && Number(next.nodeName.charAt(1)) <= level) break;
    const s = stats.get(next);
    // Links (the related list itself) or nothing to read (its thumbnails); prose ends the section.
    if (!(linkDensity(s) > MAX_BLOCK_LINK_DENSITY || (s?.text ?? 0) === 0)) break;
    const after = next.nextElementSibling;
    remove(next);
    next = after;
  }
  remove(heading);
}
