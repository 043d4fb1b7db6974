// DOM clean-up steps shared by every content mode. Each mutates the parsed document in
// place: the document is parsed once per transform and thrown away afterwards.
import { resolveHttpUrl, selectAll } from './dom.js';

/** Elements that never carry readable content (iframes keep their element, not their fallback text). */
const JUNK_SELECTOR = 'script, style, noscript, template, link, meta, object, embed, applet, frame, frameset, dialog:not([open])';

/** Attributes holding one URL, made absolute so the markdown and html never depend on the page URL. */
const URL_ATTRIBUTES: ReadonlyArray<readonly [string, string]> = [
  ['a[href]', 'href'],
  ['area[href]', 'href'],
  ['img[src]', 'src'],
  ['video[src]', 'src'],
  ['video[poster]', 'poster'],
  ['audio[src]', 'src'],
  ['source[src]', 'src'],
  ['track[src]', 'src'],
  ['iframe[src]', 'src'],
  ['blockquote[cite]', 'cite'],
  ['q[cite]', 'cite'],
];

/** Lazy-loading attributes that hold the real image when `src` is a placeholder. */
const LAZY_SRC_ATTRIBUTES = ['data-src', 'data-original', 'data-lazy-src', 'data-url', 'data-hi-res-src', 'data-orig-file'];

/**
 * Rewrites URL attributes (href, src, srcset, poster, cite) against the base URL. Hrefs that
 * are only a fragment stay as they are (in-page anchors); javascript: and other schemes are
 * left for the markdown step, which drops them.
 */
export function absolutizeUrls(root: ParentNode, base: URL): void {
  for (const [selector, attribute] of URL_ATTRIBUTES) {
    for (const el of root.querySelectorAll(selector)) {
      const value = el.getAttribute(attribute) ?? '';
      if (value.startsWith('#') || /^\s*(javascript|mailto|tel|data|blob):/i.test(value)) continue;
      const url = resolveHttpUrl(value, base);
      if (url) el.setAttribute(attribute, url.href);
    }
  }
  for (const el of root.querySelectorAll('img[srcset], source[srcset]')) {
    el.setAttribute('srcset', absolutizeSrcset(el.getAttribute('srcset') ?? '', base));
  }
  for (const img of root.querySelectorAll('img')) fixLazyImage(img, base);
}

function absolutizeSrcset(srcset: string, base: URL): string {
  return srcset
    .split(/,\s+/)
    .map((candidate) => {
      const [url = '', ...descriptor] = candidate.trim().split(/\s+/);
      const resolved = resolveHttpUrl(url, base);
      return [resolved?.href ?? url, ...descriptor].join(' ');
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
  const src = img.getAttribute('src')?.trim() ?? '';
  if (src && !src.startsWith('data:')) return;
  for (const attribute of LAZY_SRC_ATTRIBUTES) {
    const url = resolveHttpUrl(img.getAttribute(attribute) ?? '', base);
    if (url) {
      img.setAttribute('src', url.href);
      return;
    }
  }
  const fromSrcset = bestSrcsetUrl(img.getAttribute('srcset') ?? img.getAttribute('data-srcset') ?? '');
  const url = fromSrcset ? resolveHttpUrl(fromSrcset, base) : undefined;
  if (url) img.setAttribute('src', url.href);
}

/**
 * Lazy-loading pages often put a placeholder <img> (no src, or a data: pixel) next to a
 * <noscript> holding the real one. noscript is removed as junk, so first the real image
 * takes the placeholder's place (what Readability does too).
 */
export function unwrapNoscriptImages(root: ParentNode): void {
  for (const noscript of [...root.querySelectorAll('noscript')]) {
    const images = noscript.querySelectorAll('img');
    if (images.length !== 1 || (noscript.textContent ?? '').trim()) continue;
    const previous = noscript.previousElementSibling;
    const placeholder = previous?.nodeName === 'IMG' ? previous : previous?.querySelectorAll('img').length === 1 && !(previous.textContent ?? '').trim() ? previous.querySelector('img') : null;
    if (!placeholder || isRealSrc(placeholder.getAttribute('src'))) continue;
    placeholder.replaceWith(images[0]!);
  }
}

function isRealSrc(src: string | null): boolean {
  return !!src && !src.trim().startsWith('data:');
}

/**
 * Removes what never reads as content: scripts, styles, noscript (the page was rendered
 * with scripts on), templates, iframes' fallback children, and elements hidden by the
 * `hidden` attribute, `aria-hidden="true"` or an inline display:none / visibility:hidden.
 * Elements hidden by stylesheets cannot be seen here without computed styles.
 */
export function removeJunk(root: ParentNode): void {
  for (const el of root.querySelectorAll(JUNK_SELECTOR)) el.remove();
  for (const frame of root.querySelectorAll('iframe')) frame.replaceChildren();
  for (const el of root.querySelectorAll('[hidden], [aria-hidden="true"], [style*="none"], [style*="hidden"]')) {
    if (isHidden(el)) el.remove();
  }
  // Comments are invisible; dropping them also keeps the html output small.
  removeComments(root);
}

function isHidden(el: Element): boolean {
  if (el.hasAttribute('hidden')) return true;
  // Same exception as Readability: some sites mark the real image aria-hidden behind a fallback.
  if (el.getAttribute('aria-hidden') === 'true' && !(el.getAttribute('class') ?? '').includes('fallback-image')) return true;
  const style = (el.getAttribute('style') ?? '').toLowerCase().replace(/\s+/g, '');
  return /(^|;)display:none/.test(style) || /(^|;)visibility:hidden/.test(style);
}

function removeComments(root: ParentNode): void {
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
    for (const el of selectAll(document, selector, 'includeTags')) matched.add(el);
  }
  const container = document.createElement('div');
  const inPageOrder = [...document.body.querySelectorAll('*')].filter((el) => matched.has(el));
  const taken: Element[] = [];
  for (const el of inPageOrder) {
    if (taken.some((outer) => outer.contains(el))) continue;
    taken.push(el);
  }
  for (const el of taken) container.appendChild(el);
  return container;
}

/** Boilerplate landmarks dropped when Readability finds no article and the body is used instead. */
const BOILERPLATE_SELECTOR =
  'header, footer, nav, aside, [role="navigation"], [role="banner"], [role="contentinfo"], [role="complementary"], [role="search"]';

export function removeBoilerplate(root: ParentNode): void {
  for (const el of root.querySelectorAll(BOILERPLATE_SELECTOR)) {
    // An <article>'s own header/footer (title, byline) is content, not site chrome.
    if (el.parentElement?.closest('article, main, [role="main"]') && (el.nodeName === 'HEADER' || el.nodeName === 'FOOTER')) continue;
    el.remove();
  }
}
