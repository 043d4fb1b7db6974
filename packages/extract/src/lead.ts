// The lead (standfirst, intro, excerpt) of an article sits in the article's header, beside
// the <h1> and outside the container that holds the body paragraphs. Readability picks that
// container and drops the header, so the lead, often the article's most important
// paragraph, is lost. News and blog templates everywhere are built this way (a header with
// title, lead and byline, then the body), so the blocks that follow the title heading are
// read before Readability runs and put back above the body when it left them out.
import { collapsedLength, elementsWhere, linkDensity, statsWithin } from './text.js';

/** A lead is prose: a sentence or more, few links (a byline, a date or a breadcrumb is not). */
const MIN_LEAD_TEXT = 40;
const MAX_LEAD_LINK_DENSITY = 0.3;
/** Only the first few blocks after the title are a lead; the body follows them. */
const MAX_LEAD_BLOCKS = 4;
const MAX_LEAD_TEXT = 1500;

const BLOCK_CHILDREN = new Set(['P', 'DIV', 'SECTION', 'ARTICLE', 'UL', 'OL', 'TABLE', 'BLOCKQUOTE', 'HEADER', 'FIGURE', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6']);
const LEAD_TAGS = new Set(['P', 'H2', 'H3', 'DIV', 'SPAN', 'STRONG']);

/**
 * Clones of the prose blocks right after the page's title heading (the <h1> whose text is
 * the title of the page), in document order. Empty when there is no such heading.
 */
export function collectLead(document: Document, title: string, pageUrl?: string): Element[] {
  const h1 = titleHeading(document, title, pageUrl);
  if (!h1) return [];
  // The lead lives in the title's header: the nearest ancestor with more than the heading.
  const scope = h1.closest('article, main, [role="main"]') ?? document.body;
  // Measured per candidate (the walk stops after a few blocks), not the whole scope.
  const lead: Element[] = [];
  let total = 0;
  let passed = false;
  for (const el of scope.querySelectorAll('*')) {
    if (!passed) {
      passed = el === h1;
      continue;
    }
    if (h1.contains(el) || !LEAD_TAGS.has(el.nodeName) || hasBlockChild(el)) continue;
    const s = statsWithin(el, scope);
    if (s.text < MIN_LEAD_TEXT) continue;
    if (linkDensity(s) > MAX_LEAD_LINK_DENSITY || lead.some((l) => l.contains(el))) break;
    lead.push(el.cloneNode(true) as Element);
    total += s.text;
    if (lead.length >= MAX_LEAD_BLOCKS || total >= MAX_LEAD_TEXT) break;
  }
  return lead;
}

/**
 * Puts back the leading lead blocks the article does not hold (up to the first one it
 * does hold: from there on the article has the text), right after its title heading.
 */
export function restoreLead(article: Element, lead: readonly Element[]): void {
  if (lead.length === 0) return;
  const text = normalize(article.textContent ?? '');
  const body = firstParagraph(article);
  const missing: Element[] = [];
  for (const block of lead) {
    if (text.includes(normalize(block.textContent ?? ''))) break;
    // A block that holds the article's first paragraph wraps the body (a layout <div>
    // around <main>, an intro Readability cut off above it): only what precedes the body
    // is missing; the whole block would print the article twice.
    if (body && normalize(block.textContent ?? '').includes(body)) {
      if (cutAt(block, body)) missing.push(block);
      break;
    }
    missing.push(block);
  }
  if (missing.length === 0) return;
  const first = article.firstElementChild;
  const anchor = first?.nodeName === 'H1' ? first.nextSibling : article.firstChild;
  for (const block of missing) {
    const p = article.ownerDocument.createElement('p');
    while (block.firstChild) p.appendChild(block.firstChild);
    article.insertBefore(p, anchor);
  }
}

/**
 * The heading of the article: the <h1> whose words are mostly words of the page title
 * (titles carry the site name and headings a kicker, so neither contains the other), the
 * one sharing the most words when several do, or the page's only <h1>. A logo set in an
 * <h1> (the site's name, a link to its home page) is never the heading: its words are in
 * the title too, and what follows it is the site's tagline, not the article's lead.
 */
export function titleHeading(document: Document, title: string, pageUrl?: string): Element | undefined {
  const titleWords = new Set(words(title));
  const headings = elementsWhere(document.body, isH1).filter((h1) => !isLogoHeading(h1, pageUrl));
  let best: Element | undefined;
  let bestShared = 0;
  for (const h1 of headings) {
    const own = words(h1.textContent ?? '');
    if (own.length === 0) continue;
    const shared = own.filter((w) => titleWords.has(w)).length;
    if (shared / own.length >= MIN_TITLE_OVERLAP && shared > bestShared) {
      best = h1;
      bestShared = shared;
    }
  }
  if (best) return best;
  return headings.length === 1 && collapsedLength(headings[0]!.textContent ?? '') >= MIN_TITLE_TEXT ? headings[0] : undefined;
}

/**
 * A site's logo or name set in an <h1>: all its text is one link, and that link goes to the
 * home page (rel="home") or to a page above this one (the site's root or section, whose URL
 * starts this page's URL; a folder's index file, Sphinx's "../index.html", is the folder).
 * A headline that links goes to the article itself (its permalink).
 */
export function isLogoHeading(h1: Element, pageUrl: string | undefined): boolean {
  const links = h1.querySelectorAll('a');
  if (links.length !== 1) return false;
  const link = links[0]!;
  if (collapsedLength(link.textContent ?? '') !== collapsedLength(h1.textContent ?? '')) return false;
  if (/(^|\s)home(\s|$)/i.test(link.getAttribute('rel') ?? '')) return true;
  const href = withoutQuery(link.getAttribute('href') ?? '').replace(INDEX_FILE, '');
  if (!pageUrl || !/^https?:\/\//i.test(href)) return false;
  const page = withoutQuery(pageUrl).replace(INDEX_FILE, '');
  return page !== href && page.startsWith(`${href}/`);
}

/** A folder's index file at the end of a URL path: the URL of the folder itself. */
const INDEX_FILE = /\/index\.(html?|php|aspx?)$/i;

/** A URL without its query, fragment and trailing slash. */
function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/s, '').replace(/\/+$/, '');
}

/** Share of the heading's words that must be in the title. */
const MIN_TITLE_OVERLAP = 0.6;
/** An only <h1> shorter than this is a logo or a section name, not a headline. */
const MIN_TITLE_TEXT = 10;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function hasBlockChild(el: Element): boolean {
  for (const child of el.children) if (BLOCK_CHILDREN.has(child.nodeName)) return true;
  return false;
}

/** The article's first paragraph of prose, whole (a lead repeats its opening words; a wrapper holds all of it). */
const MIN_BODY_PARAGRAPH = 80;
function firstParagraph(article: Element): string | undefined {
  for (const p of article.querySelectorAll('p')) {
    const text = normalize(p.textContent ?? '');
    if (text.length >= MIN_BODY_PARAGRAPH) return text;
  }
  return undefined;
}

/**
 * Cuts `block` (in place) before its innermost element whose text starts with `body`: that
 * element and all that follows it go. Whether text is left.
 */
function cutAt(block: Element, body: string): boolean {
  let start: Element | undefined;
  for (const el of block.querySelectorAll('*')) if (normalize(el.textContent ?? '').startsWith(body)) start = el;
  if (!start) return false;
  for (let node: Element | null = start; node && node !== block; node = node.parentElement) {
    while (node.nextSibling) node.nextSibling.remove();
  }
  start.remove();
  return collapsedLength(block.textContent ?? '') >= MIN_LEAD_TEXT;
}

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** querySelectorAll('h1')'s test, for elementsWhere (a walk without a compiled selector). */
export function isH1(el: Element): boolean {
  return el.localName === 'h1';
}
