// onlyMainContent: Mozilla Readability picks the article. It runs on the already cleaned,
// URL-resolved document (and mutates it, so it comes after metadata and links).
import { Readability } from '@mozilla/readability';
import { isH1, isLogoHeading, titleHeading } from './lead.js';
import { elementsWhere } from './text.js';
import { splitTitle } from './metadata.js';
import { isPermalink } from './permalinks.js';
import { speedUpReadability } from './readability-speed.js';
import { hideHeadingAnchors } from './heading-anchor.js';

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
  const restoreAnchors = hideHeadingAnchors(document.body);
  const article = speedUpReadability(
    new Readability<Element>(document, {
      // Classes carry the code language (language-x); the html output keeps them too.
      keepClasses: true,
      serializer: (node) => node as Element,
    }),
  ).parse();
  restoreAnchors();
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
