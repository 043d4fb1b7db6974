// transformPage: rendered HTML -> markdown, cleaned html, links and metadata. Pure and
// synchronous; the service runs it in worker threads (transform-pool.ts).
//
// One parse per page (linkedom, see dom.ts), then, in this order:
//   1. metadata and links from the untouched document (links cover the whole page);
//   2. one pass over the body (clean.ts prepareBody): URLs made absolute (href, src, srcset,
//      poster) against <base href> or the page URL, lazy images given their real src, junk
//      removed (script, style, noscript, template, iframe fallback content, hidden elements:
//      [hidden], aria-hidden, inline display:none / visibility:hidden);
//   3. excludeTags removed (so an excluded element never comes back through includeTags);
//   4. the content root:
//        includeTags given -> only the matching elements, in page order. includeTags
//                             replaces onlyMainContent: the user said what the content is,
//                             and Readability could drop parts of it;
//        onlyMainContent   -> Readability's article (minus any <nav> it kept, h1 levels and
//                             the title heading restored, see main-content.ts). When the page
//                             does not look like an article (isProbablyReaderable) and
//                             Readability kept under a quarter of its text, or found nothing:
//                             the body without site chrome (header, footer, nav, aside and
//                             their ARIA roles), so listings and home pages keep their content;
//        otherwise         -> the whole body;
//   5. html = the root's inner HTML without comments; markdown = turndown of the root.
// Content formats not asked for are not computed (links and metadata always are).
import { isProbablyReaderable } from '@mozilla/readability';
import { InvalidUrlError } from '../../../shared/src/errors.js';
import { collectIncluded, prepareBody, removeBoilerplate, removeComments, removeExcluded, removeNavigation } from './clean.js';
import { removeBoilerplateByName } from './boilerplate.js';
import { pruneBoilerplate } from './prune.js';
import { collectLead, restoreLead } from './lead.js';
import { documentBaseUrl, parseDocument } from './dom.js';
import { extractLinks } from './links.js';
import { extractMainContent } from './main-content.js';
import { toMarkdown } from './markdown.js';
import { extractMetadata } from './metadata.js';
import type { TransformInput, TransformOutput } from './types.js';

export function transformPage(input: TransformInput): TransformOutput {
  const pageUrl = parsePageUrl(input.url);
  const document = parseDocument(input.html);
  const base = documentBaseUrl(document, pageUrl);
  const metadata = extractMetadata(document, { url: input.url, base, statusCode: input.statusCode });
  const links = extractLinks(document, base);
  const output: TransformOutput = { links, metadata };

  const wantMarkdown = input.options.formats.includes('markdown');
  const wantHtml = input.options.formats.includes('html');
  if (!wantMarkdown && !wantHtml) return output;

  const root = contentRoot(document, base, input, metadata.ogTitle ?? metadata.title);
  if (wantHtml) {
    removeComments(root);
    output.html = root.innerHTML.trim();
  }
  if (wantMarkdown) output.markdown = toMarkdown(root);
  return output;
}

function contentRoot(document: Document, base: URL, input: TransformInput, title: string): Element {
  const { includeTags, excludeTags, onlyMainContent } = input.options;
  prepare(document, base, excludeTags);
  if (includeTags.length > 0) return collectIncluded(document, includeTags);
  if (!onlyMainContent) return document.body;
  // Judged before Readability, which mutates the document: a page that may not be an
  // article keeps a copy of its prepared body for the fallback.
  const readerable = isProbablyReaderable(document);
  removeBoilerplateByName(document.body);
  const backup = readerable ? undefined : (document.body.cloneNode(true) as Element);
  const lead = collectLead(document, title);
  const article = extractMainContent(document);
  if (article && (readerable || textLength(article) >= MIN_ARTICLE_SHARE * textLength(backup!))) {
    removeNavigation(article);
    restoreLead(article, lead);
    pruneBoilerplate(article);
    return article;
  }
  // No article (a home page, a listing): the body without site chrome.
  let body = backup;
  if (!body) {
    // Readability found no text on a page that looked readable (rare): start again.
    const fresh = parseDocument(input.html);
    prepare(fresh, base, excludeTags);
    body = fresh.body;
  }
  removeBoilerplate(body);
  pruneBoilerplate(body);
  return body;
}

/**
 * A page Readability does not consider an article keeps its article only when it holds at
 * least this share of the page's text; otherwise Readability has most likely picked one
 * teaser of a listing and the whole page (minus chrome) is the better answer.
 */
const MIN_ARTICLE_SHARE = 0.25;

function textLength(el: Element): number {
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

function prepare(document: Document, base: URL, excludeTags: readonly string[]): void {
  prepareBody(document.body, base);
  removeExcluded(document.body, excludeTags);
}

function parsePageUrl(url: string): URL {
  try {
    const parsed = new URL(url);
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed;
  } catch {
    // reported below
  }
  throw new InvalidUrlError(`transform: page URL is not an absolute http(s) URL: ${url}`);
}
