// DOM clean-up shared by every content mode. It mutates the parsed document in place (the
// document is parsed once per transform and thrown away afterwards) and visits each element
// once: on a 100 KB page every extra querySelectorAll is a full walk of the tree.
import { placeStreamedSegments } from './streamed.js';
import { classOf, resolveHttpHref, selectAll } from './dom.js';
import { elementsWhere, linkDensity, statsWithin } from './text.js';

/** Elements that never carry readable content (iframes keep their element, not their fallback text). */
const JUNK = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'LINK', 'META', 'OBJECT', 'EMBED', 'APPLET', 'FRAME', 'FRAMESET']);

/** Per element name, the attributes holding one URL (made absolute so output never depends on the page URL). */
const URL_ATTRIBUTES: Record<string, readonly string[]> = {
  A: ['href'],
  AREA: ['href'],
  IMG: ['src'],
  VIDEO: ['src', 'poster'],
  AUDIO: ['src'],
  SOURCE: ['src'],
  TRACK: ['src'],
  IFRAME: ['src'],
  BLOCKQUOTE: ['cite'],
  Q: ['cite'],
};

/** Lazy-loading attributes that hold the real image when `src` is a placeholder. */
const LAZY_SRC_ATTRIBUTES = ['data-src', 'data-original', 'data-lazy-src', 'data-url', 'data-hi-res-src', 'data-orig-file'];

export interface PrepareOptions {
  /**
   * Keep what the page hides from a reader with scripts on: <noscript> content (unwrapped),
   * elements hidden by attributes or inline styles. For the fallback of a page whose
   * visible content came out empty: a static page that shows its text only once a script
   * has run (an anti-flicker "visibility:hidden" wrapper, a forum's crawler view in <noscript>).
   */
  revealHidden?: boolean;
  /**
   * Keep the hidden panels of a tab set: an element hidden by an inline style beside a
   * shown sibling of its kind (tag and first class). A product page's description,
   * specifications and reviews are such panels; only the first is shown before a click.
   */
  revealTabPanels?: boolean;
  /**
   * Keep the hidden panels of a WAI-ARIA tab set (role="tabpanel", hidden until its tab is
   * clicked): a docs page's code samples, one panel per language, of which one is shown.
   */
  revealAriaTabPanels?: boolean;
}

/**
 * One pass over the body:
 *   - accordions opened: a closed panel that a button inside a heading controls is shown,
 *     and the button gives way to its label (see accordionPanels);
 *   - URL attributes (href, src, srcset, poster, cite) resolved against the base URL.
 *     Fragment-only hrefs stay as they are (in-page anchors; markdown shows them as text),
 *     javascript:, mailto:, data: and the like are left alone (markdown drops javascript:);
 *   - lazy images get their real src (data-src and friends, srcset, or the <noscript> twin);
 *   - removed: script, style, noscript (the page was rendered with scripts on), template,
 *     link, meta, object, embed, closed <dialog>, iframes' fallback content, and elements
 *     hidden by the `hidden` attribute, aria-hidden="true" or an inline display:none /
 *     visibility:hidden. Elements hidden by stylesheets cannot be seen without computed styles;
 *   - MathJax containers lose their class (see below).
 */
export function prepareBody(body: Element, base: URL, options: PrepareOptions = {}): void {
  placeStreamedSegments(body);
  const panels = accordionPanels(body);
  // A snapshot: removing an element leaves its (detached) descendants in the list, harmless.
  for (const el of body.querySelectorAll('*')) {
    const name = el.nodeName;
    if (JUNK.has(name)) {
      if (name === 'NOSCRIPT') {
        releaseAfterNestedNoscript(el);
        if (options.revealHidden) {
          // Its content follows in the snapshot and is prepared like the rest.
          el.replaceWith(...el.childNodes);
          continue;
        }
        unwrapNoscriptImage(el);
      }
      el.remove();
      continue;
    }
    // Most elements (p, li, span, em) have no attribute at all: nothing to reveal, hide or resolve.
    const attributed = el.hasAttributes();
    if (options.revealHidden) {
      if (attributed) {
        // Readability skips hidden nodes too: the marks go.
        el.removeAttribute('aria-hidden');
        el.removeAttribute('hidden');
        if (/(display\s*:\s*none|visibility\s*:\s*hidden)/i.test(el.getAttribute('style') ?? '')) el.removeAttribute('style');
      }
    } else if ((name === 'DIALOG' && !el.hasAttribute('open')) || (attributed && isHidden(el))) {
      if (panels.has(el.id)) {
        el.removeAttribute('hidden');
        el.removeAttribute('aria-hidden');
        el.removeAttribute('style');
      } else if (options.revealAriaTabPanels && el.getAttribute('role') === 'tabpanel') {
        el.removeAttribute('hidden');
        el.removeAttribute('aria-hidden');
      } else if (!(options.revealTabPanels && isTabPanel(el))) {
        el.remove();
        continue;
      }
      el.removeAttribute('style');
    }
    if (name === 'BUTTON' && el.parentElement?.closest(HEADINGS)) {
      // An accordion's heading holds its label in a button (the WAI-ARIA pattern); buttons
      // are controls, dropped by Readability and the markdown, but this one is the heading's text.
      el.replaceWith(...el.childNodes);
      continue;
    }
    if (!attributed) {
      if (name === 'IFRAME') el.replaceChildren();
      continue;
    }
    if (name === 'A' && isInertControl(el)) {
      el.remove();
      continue;
    }
    const attributes = URL_ATTRIBUTES[name];
    if (attributes) for (const attribute of attributes) absolutizeAttribute(el, attribute, base);
    if (name === 'IMG' || name === 'SOURCE') {
      const srcset = el.getAttribute('srcset');
      if (srcset) el.setAttribute('srcset', absolutizeSrcset(srcset, base));
      if (name === 'IMG') fixLazyImage(el, base);
    } else if (name === 'IFRAME') {
      el.replaceChildren();
    } else if (name === 'MJX-CONTAINER') {
      // MathJax 3 marks formulas "CtxtMenu_Attached_0": Readability's unlikely-candidate
      // pattern (/menu/) would remove them.
      el.removeAttribute('class');
    }
  }
}

/**
 * A link that is a button and goes nowhere: role="button", no href, and nothing it opens or
 * toggles (no aria-controls, aria-expanded or aria-haspopup): a script's control ("Click to
 * expand..." under a quoted post, "Show more"), whose text is an instruction to the reader,
 * not part of the page. In a heading it is the heading's text (an accordion's label), and stays.
 */
function isInertControl(el: Element): boolean {
  return (
    el.getAttribute('role') === 'button' &&
    !el.hasAttribute('href') &&
    !el.hasAttribute('aria-controls') &&
    !el.hasAttribute('aria-expanded') &&
    !el.hasAttribute('aria-haspopup') &&
    !el.closest(HEADINGS)
  );
}

function absolutizeAttribute(el: Element, attribute: string, base: URL): void {
  const value = el.getAttribute(attribute);
  if (!value || value.startsWith('#') || /^\s*(javascript|mailto|tel|data|blob):/i.test(value)) return;
  const href = resolveHttpHref(value, base);
  if (href) el.setAttribute(attribute, href);
}

function absolutizeSrcset(srcset: string, base: URL): string {
  return srcset
    .split(/,\s+/)
    .map((candidate) => {
      const [url = '', ...descriptor] = candidate.trim().split(/\s+/);
      return [resolveHttpHref(url, base) ?? url, ...descriptor].join(' ');
    })
    .join(', ');
}

/** The widest candidate of a srcset (by its `w` or `x` descriptor). */
function bestSrcsetUrl(srcset: string): string | undefined {
  let best: { url: string; size: number } | undefined;
  for (const candidate of srcset.split(/,\s+/)) {
    const [url, descriptor = '1x'] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const size = Number.parseFloat(descriptor) || 1;
    if (!best || size > best.size) best = { url, size };
  }
  return best?.url;
}

/** A missing or placeholder (data:) src is replaced by the lazy-loading attribute's URL or srcset. */
function fixLazyImage(img: Element, base: URL): void {
  if (isRealSrc(img.getAttribute('src'))) return;
  for (const attribute of LAZY_SRC_ATTRIBUTES) {
    const url = resolveHttpHref(img.getAttribute(attribute) ?? '', base);
    if (url) {
      img.setAttribute('src', url);
      return;
    }
  }
  const fromSrcset = bestSrcsetUrl(img.getAttribute('srcset') ?? img.getAttribute('data-srcset') ?? '');
  const url = fromSrcset ? resolveHttpHref(fromSrcset, base) : undefined;
  if (url) img.setAttribute('src', url);
}

function isRealSrc(src: string | null): boolean {
  return !!src && !src.trim().startsWith('data:');
}

/**
 * Lazy-loading pages often put a placeholder <img> (no src, or a data: pixel) next to a
 * <noscript> holding the real one: the real image takes the placeholder's place before the
 * noscript goes (Readability does the same).
 */
/**
 * A <noscript> nested in another ends the outer one, as a browser with scripts on reads it:
 * the outer's content is raw text up to the first </noscript>. Chromium serializes it that
 * way, and an HTML parser that reads <noscript> as markup (linkedom) then leaves the outer
 * one open, so the rest of the page ends up inside it (a tag manager's <noscript> around
 * another is common). What follows the inner one is moved out, after the outer one.
 */
function releaseAfterNestedNoscript(noscript: Element): void {
  const inner = noscript.querySelector('noscript');
  if (!inner) return;
  const released: Node[] = [];
  for (let node: Node | null = inner; node && node !== noscript; node = node.parentNode) {
    for (let next = node.nextSibling; next; next = next.nextSibling) released.push(next);
  }
  noscript.after(...released);
}

function unwrapNoscriptImage(noscript: Element): void {
  const images = noscript.querySelectorAll('img');
  if (images.length !== 1 || (noscript.textContent ?? '').trim()) return;
  const previous = noscript.previousElementSibling;
  const placeholder =
    previous?.nodeName === 'IMG'
      ? previous
      : previous && !(previous.textContent ?? '').trim() && previous.querySelectorAll('img').length === 1
        ? previous.querySelector('img')
        : null;
  if (placeholder && !isRealSrc(placeholder.getAttribute('src'))) placeholder.replaceWith(images[0]!);
}

const HEADINGS = 'h1, h2, h3, h4, h5, h6, [role="heading"]';

/**
 * The ids of accordion panels: what a button inside a heading opens (aria-controls), the
 * WAI-ARIA accordion pattern (a FAQ, a product's details, an expert-advice list). A closed
 * panel is hidden until a click, but it is the section's text, as a tab panel is. A menu's
 * toggle is no heading, and tabs (role="tab") show one panel of several. A "Read more"
 * disclosure's prose panel is opened too (isReadMorePanel).
 */
function accordionPanels(body: Element): Set<string> {
  const ids = new Set<string>();
  for (const control of elementsWhere(body, (el) => el.hasAttribute('aria-controls'))) {
    if (control.getAttribute('role') === 'tab') continue;
    const inHeading = control.closest(HEADINGS) !== null;
    for (const id of (control.getAttribute('aria-controls') ?? '').split(/\s+/)) if (id && (inHeading || isReadMorePanel(control, id))) ids.add(id);
  }
  return ids;
}

/** Link text above this share of a panel's text makes it a menu, not the rest of a text. */
const READ_MORE_MAX_LINK_DENSITY = 0.3;

/**
 * A "Read more" disclosure (the WAI-ARIA pattern: a closed button, aria-expanded="false",
 * controlling the element right after it) whose panel is prose: the rest of a description
 * or a bio, hidden until a click, as an accordion's panel is. A menu's toggle controls a
 * list of links, which stays hidden; so does a panel elsewhere on the page (a drawer, a modal).
 */
function isReadMorePanel(control: Element, id: string): boolean {
  if (control.getAttribute('aria-expanded') !== 'false') return false;
  const next = control.nextElementSibling ?? control.parentElement?.nextElementSibling;
  if (!next || next.id !== id) return false;
  const stats = statsWithin(next, next);
  return stats.text > 0 && linkDensity(stats) <= READ_MORE_MAX_LINK_DENSITY;
}

/** Hidden by an inline style only, with a shown sibling of its kind (tag and first class): a tab panel. */
function isTabPanel(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true' || el.nodeName === 'DIALOG') return false;
  const kind = panelKind(el);
  if (!kind) return false;
  for (const sibling of el.parentElement?.children ?? []) if (sibling !== el && panelKind(sibling) === kind && !isHidden(sibling)) return true;
  return false;
}

function panelKind(el: Element): string | undefined {
  const first = classOf(el).split(/\s+/).find(Boolean);
  return first ? `${el.localName}.${first}` : undefined;
}

function isHidden(el: Element): boolean {
  if (el.hasAttribute('hidden')) return true;
  if (el.getAttribute('aria-hidden') === 'true') {
    // Modal libraries hide the whole app from screen readers while a dialog (a cookie
    // banner in a rendered page) is open: that is the content, so it stays, and loses the
    // attribute so that Readability keeps it too.
    if (el.querySelector('main, article, h1')) {
      el.removeAttribute('aria-hidden');
      return false;
    }
    // Same exception as Readability: some sites mark the real image aria-hidden behind a fallback.
    if (!classOf(el).includes('fallback-image')) return true;
  }
  const style = el.getAttribute('style');
  if (!style || !/none|hidden/i.test(style)) return false;
  const compact = style.toLowerCase().replace(/\s+/g, '');
  return /(^|;)display:none/.test(compact) || /(^|;)visibility:hidden/.test(compact);
}

/** Comments are invisible: dropped from the html output (markdown ignores them anyway). */
export function removeComments(root: Node): void {
  const stack: Node[] = [...root.childNodes];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.nodeType === 8) node.parentNode?.removeChild(node);
    else if (node.nodeType === 1) for (const child of node.childNodes) stack.push(child);
  }
}

/** excludeTags: every element matching one of the selectors is removed, with its subtree. */
export function removeExcluded(root: ParentNode, selectors: readonly string[]): void {
  for (const selector of selectors) {
    for (const el of selectAll(root, selector, 'excludeTags')) el.remove();
  }
}

/**
 * includeTags: a new container holding the matching elements in page order. An element
 * inside another match is taken once, with its ancestor. Nothing matching gives an empty
 * container (empty content, not an error: the selectors are hints, not assertions).
 */
export function collectIncluded(document: Document, selectors: readonly string[]): Element {
  const matched = new Set<Element>();
  for (const selector of selectors) {
    for (const el of selectAll(document.body, selector, 'includeTags')) matched.add(el);
  }
  const container = document.createElement('div');
  if (matched.size === 0) return container;
  // Document order; a match inside the previous pick comes right after it (pre-order walk).
  const picks: Element[] = [];
  let last: Element | undefined;
  for (const el of document.body.querySelectorAll('*')) {
    if (!matched.has(el) || last?.contains(el)) continue;
    picks.push(el);
    last = el;
  }
  for (const el of picks) container.appendChild(el);
  return container;
}

/** Boilerplate landmarks dropped when the body stands in for a missing article. */
const BOILERPLATE_SELECTOR =
  'header, footer, nav, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"]';

/**
 * Navigation Readability sometimes keeps (when the whole body wins). Only navigation: an
 * article's own header, footer and asides (byline, notes, pull quotes) are content.
 */
export function removeNavigation(root: ParentNode): void {
  for (const el of root.querySelectorAll('nav, [role="navigation"], [role="search"]')) el.remove();
}

export function removeBoilerplate(root: ParentNode): void {
  for (const el of root.querySelectorAll(BOILERPLATE_SELECTOR)) {
    // An <article>'s own header/footer (title, byline) is content, not site chrome.
    if (el.parentElement?.closest('article, main, [role="main"]') && (el.nodeName === 'HEADER' || el.nodeName === 'FOOTER')) continue;
    el.remove();
  }
}
