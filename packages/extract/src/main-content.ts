// onlyMainContent: Mozilla Readability picks the article. It runs on the already cleaned,
// URL-resolved document (and mutates it, so it comes after metadata and links).
import { Readability } from '@mozilla/readability';
import { isH1, isLogoHeading, titleHeading } from './lead.js';
import { elementsWhere, linkDensity, statsWithin } from './text.js';
import { splitTitle } from './metadata.js';
import { isPermalink } from './permalinks.js';

const H1_MARK = 'data-trawl-h1';

/**
 * The main content element, or null when Readability finds no text at all (the caller
 * then falls back to the body without site chrome, see extract-page.ts).
 *
 * Two Readability habits are undone for Markdown: it demotes every <h1> to <h2> (they are
 * restored), and it drops the heading that repeats the article title, so an article
 * without an <h1> gets its heading back: the page's own <h1> when it has one (the
 * headline as the page shows it), else the <title> without the site's name ("Introduction",
 * not "Introduction | Acme"; the name is metadata.siteName).
 */
export function extractMainContent(document: Document, page: { title: string; siteName?: string | undefined; url?: string }): Element | null {
  const ownHeading = pageHeading(document, page.title, page.url);
  for (const h1 of elementsWhere(document.body, isH1)) h1.setAttribute(H1_MARK, '');
  shieldSectionHeads(document.body);
  const article = new Readability<Element>(document, {
    // Classes carry the code language (language-x); the html output keeps them too.
    keepClasses: true,
    serializer: (node) => node as Element,
  }).parse();
  // Readability moved the article's nodes out of the body: both trees get their names back.
  unshieldSectionHeads(document.body);
  if (article?.content) unshieldSectionHeads(article.content);
  if (!article?.content || !(article.textContent ?? '').trim()) return null;
  // Readability wraps the article in <div id="readability-page-1" class="page">: drop the wrapper.
  const wrapper = article.content;
  const only = wrapper.children.length === 1 ? wrapper.firstElementChild : null;
  const content = only?.id === 'readability-page-1' ? only : wrapper;

  let hasH1 = false;
  for (const heading of [...content.querySelectorAll(`[${H1_MARK}]`)]) {
    heading.removeAttribute(H1_MARK);
    if (heading.nodeName === 'H1') {
      hasH1 = true;
      continue;
    }
    if (heading.nodeName !== 'H2') continue;
    const h1 = document.createElement('h1');
    for (const { name, value } of [...heading.attributes]) h1.setAttribute(name, value);
    while (heading.firstChild) h1.appendChild(heading.firstChild);
    heading.replaceWith(h1);
    hasH1 = true;
  }
  const title = ownHeading || splitTitle(article.title?.trim() || page.title, page.siteName).heading;
  if (!hasH1 && title) {
    const h1 = document.createElement('h1');
    h1.textContent = title;
    content.prepend(h1);
  }
  return content;
}

/** The text of the page's own headline: the <h1> that matches the title, else the first <h1> with text that is not the site's logo. */
function pageHeading(document: Document, title: string, pageUrl: string | undefined): string | undefined {
  const h1 = titleHeading(document, title, pageUrl) ?? elementsWhere(document.body, isH1).find((h) => (h.textContent ?? '').trim() && !isLogoHeading(h, pageUrl));
  if (!h1) return undefined;
  let text = h1.textContent ?? '';
  for (const a of h1.querySelectorAll('a[href*="#"]')) if (isPermalink(a, h1)) text = text.replace(a.textContent ?? '', '');
  return text.replace(/\s+/g, ' ').trim() || undefined;
}

/** Readability's "unlikely candidate" test (0.6.0, REGEXPS.unlikelyCandidates and okMaybeItsACandidate), read on class and id. */
const UNLIKELY = /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|shadow/i;
const HEADER_WORD = /header/gi;
const HAS_HEADER_WORD = /header/i;
const SHIELD_MARK = 'data-trawl-names';
/** A section's head is a heading and a line or two of prose, not a menu. */
const MAX_SECTION_HEAD_LINK_DENSITY = 0.5;

/**
 * Readability drops, before it scores anything, every element whose class or id holds
 * "header" (its unlikely candidates): the page's masthead, but also the head of each
 * section inside the content (a "section-header" or a <header> around a section's <h2> and
 * its intro line, a Jimdo "j-header" module around each <h2>, Substack's "header-anchor-post"
 * headings). After the page's headline, a header-named element that holds a sub-heading, no menu and
 * no <h1>, and is followed by prose, heads a section of the content: its names are hidden from Readability ("header" read as "head")
 * for the pass and given back after it (unshieldSectionHeads). Elements that another word
 * marks as unlikely (a "footer-header", a "comment-header") stay unlikely.
 */
function shieldSectionHeads(body: Element): void {
  let afterHeadline = false;
  for (const el of body.querySelectorAll('*')) {
    if (!afterHeadline) {
      afterHeadline = el.localName === 'h1' && !!(el.textContent ?? '').trim();
      continue;
    }
    const cls = el.getAttribute('class') ?? '';
    const id = el.getAttribute('id') ?? '';
    const names = `${cls} ${id}`;
    if (!HAS_HEADER_WORD.test(names) || MAYBE_CANDIDATE.test(names) || UNLIKELY.test(names.replace(HEADER_WORD, 'head'))) continue;
    if (el.localName === 'a' || el.localName === 'h1' || el.querySelector('h1, nav, form, [role="navigation"]')) continue;
    if (!SUBHEADING.has(el.localName) && !el.querySelector('h2, h3, h4, h5, h6')) continue;
    const s = statsWithin(el, body);
    if (s.text === 0 || linkDensity(s) > MAX_SECTION_HEAD_LINK_DENSITY || !headsProse(el, body)) continue;
    el.setAttribute(SHIELD_MARK, JSON.stringify([cls, id]));
    if (cls) el.setAttribute('class', cls.replace(HEADER_WORD, 'head'));
    if (id) el.setAttribute('id', id.replace(HEADER_WORD, 'head'));
  }
}

const SUBHEADING = new Set(['h2', 'h3', 'h4', 'h5', 'h6']);
/** What a section's head heads: a block of this much text with few links right after it. */
const MIN_SECTION_TEXT = 80;
const MAX_SECTION_LINK_DENSITY = 0.3;

/** Whether the block right after `el` (after its closest ancestor that has one) is prose: a head over a gallery, links or nothing heads no text. */
function headsProse(el: Element, body: Element): boolean {
  let at: Element | null = el;
  while (at && at !== body && !at.nextElementSibling) at = at.parentElement;
  const next = at && at !== body ? at.nextElementSibling : null;
  if (!next) return false;
  const s = statsWithin(next, body);
  return s.text >= MIN_SECTION_TEXT && linkDensity(s) <= MAX_SECTION_LINK_DENSITY;
}

/** Gives the shielded elements under `root` their class and id back. */
function unshieldSectionHeads(root: Element): void {
  for (const el of [...root.querySelectorAll(`[${SHIELD_MARK}]`)]) {
    const [cls, id] = JSON.parse(el.getAttribute(SHIELD_MARK)!) as [string, string];
    el.removeAttribute(SHIELD_MARK);
    if (cls) el.setAttribute('class', cls);
    if (id) el.setAttribute('id', id);
  }
}
