// extractPage: rendered HTML -> markdown, cleaned html, links and metadata. Pure and
// synchronous; the transformer runs it in worker threads, the fetcher's verification in-process.
//
// One parse per page (linkedom, see dom.ts), then, in this order:
//   1. metadata (with metadata.structured, structured-data.ts), links and the extract
//      format's json (schema-extract.ts) from the untouched document (links cover the whole
//      page); the caller's onParsed hook reads the untouched document too (page outcome);
//   2. one pass over the body (clean.ts prepareBody): URLs made absolute (href, src, srcset,
//      poster) against <base href> or the page URL, lazy images given their real src, junk
//      removed (script, style, noscript, template, iframe fallback content, hidden elements:
//      [hidden], aria-hidden, inline display:none / visibility:hidden);
//   3. excludeTags removed (so an excluded element never comes back through includeTags);
//   4. the content root:
//        includeTags given -> only the matching elements, in page order. includeTags
//                             replaces onlyMainContent: the user said what the content is,
//                             and Readability could drop parts of it;
//        onlyMainContent   -> the main content (mainContent below): boilerplate named by
//                             class/id removed (boilerplate.ts), Readability's article (minus
//                             any <nav> it kept, h1 levels and the title heading restored, see
//                             main-content.ts) with the article's lead put back (lead.ts), then
//                             a final boilerplate pass (prune.ts). When the page does not look
//                             like an article (isProbablyReaderable) and Readability kept under
//                             a quarter of its text, or found nothing: the body without site
//                             chrome (header, footer, nav, aside and their ARIA roles), so
//                             listings and home pages keep their content. A candidate that
//                             throws gives way to the next (firstWorking), recorded in
//                             metadata.extractionFallbacks;
//        otherwise         -> the whole body;
//   5. html = the root's inner HTML without comments; markdown = turndown of the root (its
//      plain text if turndown throws, recorded the same way).
// Content formats not asked for are not computed (links and metadata always are).
import { InvalidUrlError } from '../../../shared/src/domain/errors.js';
import { collectIncluded, prepareBody, removeBoilerplate, removeComments, removeExcluded, removeNavigation } from './clean.js';
import { removeBoilerplateByName } from './boilerplate.js';
import { pruneBoilerplate } from './prune.js';
import { betterCandidate, proseContainer, semanticContainers } from './candidate.js';
import { collectLead, restoreLead } from './lead.js';
import { collectGrids, restoreGrids } from './grids.js';
import { documentBaseUrl, parseDocument } from './dom.js';
import { extractLinks } from './links.js';
import { extractMainContent } from './main-content.js';
import { toMarkdown } from './markdown.js';
import { extractMetadata, splitTitle } from './metadata.js';
import { extractJson } from './schema-extract.js';
import { jsonLdBlocks } from './json-ld.js';
import { pageElements } from './page-elements.js';
import { readStructuredData } from './structured-data.js';
import { decidePageType, type PageType, type PageTypeHooks } from './page-type.js';
import { frontPageType } from './front-page.js';
import type { ExtractInput, ExtractMetadata, ExtractOutput } from './types.js';
import { markBlocks, type Block } from './blocks.js';
import { SHIPPED_BLOCK_MODEL, type BlockModel } from './block-model.js';
import { classifiedContent, MODEL_PAGE_TYPES, removeBlockMarks } from './classify.js';
import { productLayout, removeReviews } from './product.js';
import { findPosts, keepPostBodies, trimToThread, withOpeningPost } from './forum.js';
import { openingPost } from './opening-post.js';
import { removeRepeatedPairs } from './member-facts.js';
import { removeLayoutCopies } from './card-duplicates.js';
import { readAssistiveMarkup } from './assistive-markup.js';
import { removeScrambledLabels } from './scrambled-labels.js';
import { probablyReaderable } from './readability-speed.js';
import { collapsedTextLength } from './text.js';
import { isSectionStackPage, sectionStackGain, sectionStacks } from './section-stack.js';

export interface ExtractHooks extends PageTypeHooks {
  /** Called once with the parsed, untouched document and its metadata, before any clean-up. */
  onParsed?: (document: Document, metadata: ExtractMetadata) => void;
  /** The block model for onlyMainContent (default: the shipped one; null: the rules alone). Training passes null. */
  blockModel?: BlockModel | null;
  /** Called with the page's blocks and their features (onlyMainContent only): the training set. */
  onBlocks?: (blocks: Block[]) => void;
}

export interface ExtractResult extends ExtractOutput {
  /** Text length of the main content, when onlyMainContent chose it (no includeTags). */
  mainTextLength?: number;
}

export function extractPage(input: ExtractInput, hooks: ExtractHooks = {}): ExtractResult {
  const pageUrl = parsePageUrl(input.url);
  const document = parseDocument(input.html);
  const base = documentBaseUrl(document, pageUrl);
  const elements = pageElements(document);
  const jsonLd = jsonLdBlocks(document, elements);
  const metadata = extractMetadata(document, { url: input.url, base, statusCode: input.statusCode, jsonLd, elements });
  const structured = readStructuredData(document, base, jsonLd, elements);
  if (structured) metadata.structured = structured;
  const typeInput = { url: input.url, jsonLd, ogType: metadata.type, generator: elements.head.find(isGenerator)?.getAttribute('content') ?? undefined };
  const { type, declared: declaredType } = decidePageType(document, typeInput, hooks);
  metadata.pageType = frontPageType(type, input.url);
  const links = extractLinks(document, base, elements);
  hooks.onParsed?.(document, metadata);
  const output: ExtractResult = { links, metadata };
  if (input.options.formats.includes('extract') && input.options.extract) {
    const { json, truncated } = extractJson(document, input.options.extract.schema, base);
    output.json = json;
    if (truncated) metadata.extractTruncated = true;
  }

  const wantMarkdown = input.options.formats.includes('markdown');
  const wantHtml = input.options.formats.includes('html');
  if (!wantMarkdown && !wantHtml) return output;

  const fallbacks: string[] = [];
  const root = contentRoot(document, base, input, { title: metadata.ogTitle ?? metadata.title, siteName: metadata.siteName, pageType: metadata.pageType, declaredType }, fallbacks, hooks);
  removeBlockMarks(root);
  if (metadata.pageType === 'forum' && input.options.onlyMainContent && input.options.includeTags.length === 0) {
    openingPost(root, [metadata.description, metadata.ogDescription], fallbacks, MIN_CONTENT_TEXT);
    removeRepeatedPairs(root, root.ownerDocument.body ?? root);
  }
  if (metadata.pageType === 'product' && input.options.onlyMainContent && input.options.includeTags.length === 0) {
    productLayout(root, jsonLd, input.url);
  }
  if (input.options.onlyMainContent && input.options.includeTags.length === 0) removeLayoutCopies(root, metadata.pageType);
  if (input.options.onlyMainContent && input.options.includeTags.length === 0) output.mainTextLength = textLength(root);
  if (wantHtml) {
    removeComments(root);
    output.html = root.innerHTML.trim();
  }
  if (wantMarkdown) {
    output.markdown = firstWorking(
      [
        { name: 'markdown', run: () => toMarkdown(root) },
        { name: 'plain text', run: () => plainText(root) },
      ],
      fallbacks,
    );
  }
  if (fallbacks.length > 0) metadata.extractionFallbacks = fallbacks;
  return output;
}

/** The page's title (og:title, else <title>) and its site's name: where the markdown's heading comes from. */
interface PageTitle {
  title: string;
  siteName?: string | undefined;
  pageType?: PageType;
  /** The kind the page declares (JSON-LD, og:type, URL), if any: see GRID_PAGES. */
  declaredType?: PageType | undefined;
}

/**
 * Pages whose lost card grids come back (grids.ts): those that declare no kind or one made
 * of items. An article's, a product's or a thread's grids are more stories, related
 * products and similar topics, and declared articles with a short text lost more to them
 * than listings won. Declared articles get back only the grids whose heading the article
 * kept over less text than the cards (a category page that calls itself an article:
 * grids.ts isCutSection).
 */
const GRID_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>([undefined, 'listing', 'collection', 'service', 'documentation']);

/**
 * Pages whose "more stories" grids go (prune.ts, teasers.ts): on a listing or a collection
 * the cards are the content (forum threads take another path).
 */
const TEASER_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>([undefined, 'article', 'service', 'documentation']);

/**
 * Pages whose <main> may replace Readability's article (candidate.ts), when they declare no
 * kind or declare docs: a site's own page or a docs page spreads its text over several
 * sections of <main>, of which Readability keeps one. Not declared articles (their <main>
 * holds galleries and teasers), nor listings and collections (tool panels and filters).
 */
const MAIN_PAGES: ReadonlySet<PageType | undefined> = new Set<PageType | undefined>(['article', 'service', 'documentation']);

export interface Candidate<T> {
  name: string;
  run: () => T;
}

/**
 * The first candidate that does not throw. A transform must never fail on odd markup: a
 * candidate extractor (or converter) that throws gives way to the next one, and the failure
 * is recorded ("<name> failed: <message>") in `fallbacks`, which ends up in
 * metadata.extractionFallbacks. The last candidate's error propagates (it must not throw).
 */
export function firstWorking<T>(candidates: readonly Candidate<T>[], fallbacks: string[]): T {
  for (const [i, candidate] of candidates.entries()) {
    if (i === candidates.length - 1) return candidate.run();
    try {
      return candidate.run();
    } catch (err) {
      fallbacks.push(`${candidate.name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new Error('firstWorking: no candidates');
}

function contentRoot(document: Document, base: URL, input: ExtractInput, title: PageTitle, fallbacks: string[], hooks: ExtractHooks): Element {
  const { includeTags, excludeTags, onlyMainContent } = input.options;
  prepare(document, base, excludeTags, false, { revealTabPanels: onlyMainContent && title.pageType === 'product', revealAriaTabPanels: onlyMainContent && title.pageType === 'documentation' });
  if (onlyMainContent && includeTags.length === 0 && title.pageType === 'product') removeReviews(document.body);
  if (includeTags.length > 0) return collectIncluded(document, includeTags);
  if (!onlyMainContent) return nonEmpty(document.body, [{ name: 'page body with hidden content revealed', run: () => freshDocument(input, base, true).body, hidden: true }], fallbacks, input, base);
  const model = hooks.blockModel === undefined ? SHIPPED_BLOCK_MODEL : hooks.blockModel;
  const full = hooks.onBlocks || (model && MODEL_PAGE_TYPES.has(title.pageType)) ? markedCopy(document.body) : undefined;
  const root = firstWorking(
    [
      { name: 'main-content extraction', run: () => layoutContent(document, base, input, title) },
      { name: 'page body without site chrome', run: () => chromeless(freshBody(input, base)) },
      { name: 'page body', run: () => freshBody(input, base) },
    ],
    fallbacks,
  );
  const chosen = nonEmpty(
    root,
    [
      { name: 'page body without site chrome', run: () => chromeless(freshBody(input, base)) },
      { name: 'main content with hidden content revealed', run: () => layoutContent(freshDocument(input, base, true), base, input, title), hidden: true },
      { name: 'page body with hidden content revealed, without site chrome', run: () => chromeless(freshDocument(input, base, true).body), hidden: true },
    ],
    fallbacks,
    input,
    base,
  );
  return full ? classifiedContent(full, chosen, title.pageType, MODEL_PAGE_TYPES.has(title.pageType) ? model : null, hooks.onBlocks) : chosen;
}

/**
 * The main content in the page type's layout: a thread keeps its posts (thread), any other
 * page goes through mainContent. The same for the page with its hidden content revealed: a
 * forum engine's crawler view sits in <noscript>, and is a thread too.
 */
function layoutContent(document: Document, base: URL, input: ExtractInput, title: PageTitle): Element {
  return title.pageType === 'forum' ? thread(document, title) : mainContent(document, base, input, title);
}

/** The body with its blocks marked, and a copy of it taken before the extractors move and cut its nodes. */
function markedCopy(body: Element): Element {
  markBlocks(body);
  return body.cloneNode(true) as Element;
}

/**
 * Content under this much text (a title, a stray line) is no result for a page that has
 * more: the fallbacks are tried.
 */
const MIN_CONTENT_TEXT = 100;
/**
 * Hidden content is shown only when it is a page's worth: a page that hides a few lines
 * (a "secret" paragraph, a no-JS notice) keeps them hidden. A page that shows no text at
 * all has nothing else to give: there it is shown from MIN_REVEALED_ON_BLANK_TEXT (a short
 * forum topic in <noscript>); the page outcome still calls a shell whose <noscript> only
 * asks for JavaScript empty (services/transformer/src/outcome).
 */
const MIN_REVEALED_TEXT = 500;
const MIN_REVEALED_ON_BLANK_TEXT = 200;

/**
 * The content, or when it came out empty or tiny (under MIN_CONTENT_TEXT), the first
 * fallback that has that much text (the longest when none has): the body without site
 * chrome (a page the extractor misread), then the page with what scripts would reveal (a
 * forum's crawler view in <noscript>, an anti-flicker hidden wrapper), when that is at
 * least MIN_REVEALED_TEXT (MIN_REVEALED_ON_BLANK_TEXT when the page shows no text). The
 * step taken is recorded in metadata.extractionFallbacks ("empty main content: <name>"). A
 * fallback that throws is skipped.
 */
function nonEmpty(root: Element, candidates: ReadonlyArray<Candidate<Element> & { hidden?: boolean }>, fallbacks: string[], input: ExtractInput, base: URL): Element {
  let best = root;
  let bestLength = textLength(root);
  if (bestLength >= MIN_CONTENT_TEXT) return root;
  // Whether the page shows no text at all, read (once, and only for hidden content under
  // MIN_REVEALED_TEXT) from a fresh body: the main content may hold only the title the
  // extraction put over it, and Readability has cut the document.
  let blank: boolean | undefined;
  const showsNothing = (): boolean => (blank ??= textLength(freshBody(input, base)) === 0);
  let taken: string | undefined;
  for (const candidate of candidates) {
    let el: Element;
    try {
      el = candidate.run();
    } catch (err) {
      fallbacks.push(`${candidate.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    const length = textLength(el);
    if (candidate.hidden && length < MIN_REVEALED_TEXT && (length < MIN_REVEALED_ON_BLANK_TEXT || !showsNothing())) continue;
    if (length > bestLength) {
      best = el;
      bestLength = length;
      taken = candidate.name;
    }
    if (length >= MIN_CONTENT_TEXT) break;
  }
  if (taken) fallbacks.push(`empty main content: ${taken}`);
  return best;
}

/**
 * onlyMainContent: boilerplate named as such removed first (boilerplate.ts), the lead
 * noted (lead.ts), then Readability's article with its lead restored, and the final
 * boilerplate pass (prune.ts). A page that does not look like an article and where
 * Readability kept under a quarter of the text gets the body without site chrome instead.
 */
function mainContent(document: Document, base: URL, input: ExtractInput, title: PageTitle): Element {
  // Judged before Readability mutates the document: a page that may not be an article keeps its prepared body for the fallback.
  const readerable = probablyReaderable(document);
  removeBoilerplateByName(document.body, { keepBuildingBlocks: isSectionStackPage(title.pageType) || (title.pageType === 'article' && 'sections') });
  const backup = readerable ? undefined : (document.body.cloneNode(true) as Element);
  const lead = collectLead(document, title.title, input.url);
  const containers = [...semanticContainers(document.body, { main: MAIN_PAGES.has(title.pageType) && (title.declaredType === undefined || title.declaredType === 'documentation') }), ...sectionStacks(document.body, title.pageType, title.declaredType)];
  const grids = GRID_PAGES.has(title.declaredType) || title.declaredType === 'article' ? collectGrids(document.body) : [];
  const article = extractMainContent(document, { ...title, url: input.url });
  if (article && (readerable || textLength(article) >= MIN_ARTICLE_SHARE * textLength(backup!))) {
    removeNavigation(article);
    restoreLead(article, lead);
    const prune = { linkDensity: true, teaserRuns: TEASER_PAGES.has(title.pageType) };
    pruneBoilerplate(article, prune);
    const chosen = betterCandidate(article, containers, prune, sectionStackGain(title.pageType));
    restoreGrids(chosen, grids, { cutSectionsOnly: !GRID_PAGES.has(title.declaredType) });
    return chosen;
  }
  // No article (a home page, a listing): the body without site chrome. Readability found
  // no text on a page that looked readable (rare): start again from the page.
  return chromeless(backup ?? freshBody(input, base));
}

/**
 * A forum thread: every post, with its author line. Readability keeps one post, and the
 * comment, reply and author names that mark boilerplate on an article are the content
 * here, so neither runs: the container of most of the page's prose (the thread), without
 * site chrome and link-dense blocks, with the page's heading on top.
 */
function thread(document: Document, title: PageTitle): Element {
  const h1 = document.body.querySelector('h1');
  const posts = findPosts(document.body, { timestampLines: true });
  const root = withOpeningPost(proseContainer(document.body), posts);
  trimToThread(root, posts);
  removeBoilerplate(root);
  // Link density on: a thread's menus, tag lists and "similar topics" are links, its posts are not.
  pruneBoilerplate(root);
  // After the final pass, which reads a post's author and time lines as an article's byline.
  if (posts) keepPostBodies(root, posts);
  if (!root.querySelector('h1')) {
    const heading = document.createElement('h1');
    heading.textContent = (h1?.textContent ?? '').replace(/\s+/g, ' ').trim() || splitTitle(title.title, title.siteName).heading;
    root.prepend(heading);
  }
  return root;
}

/** A page that is not an article: the body without site chrome; its links are its content. */
function chromeless(body: Element): Element {
  removeBoilerplate(body);
  pruneBoilerplate(body, { linkDensity: false });
  return body;
}

/** The page parsed and prepared again (the first document was changed by an extractor). */
function freshBody(input: ExtractInput, base: URL): Element {
  return freshDocument(input, base, false).body;
}

function freshDocument(input: ExtractInput, base: URL, revealHidden: boolean): Document {
  const fresh = parseDocument(input.html);
  prepare(fresh, base, input.options.excludeTags, revealHidden);
  return fresh;
}

/** Text of the content with one block per line: the markdown of last resort. */
function plainText(root: Element): string {
  return (root.textContent ?? '')
    .split(/\n+/)
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

/**
 * A page Readability does not consider an article keeps its article only when it holds at
 * least this share of the page's text; otherwise Readability has most likely picked one
 * teaser of a listing and the whole page (minus chrome) is the better answer.
 */
const MIN_ARTICLE_SHARE = 0.25;

/** The length of el's text, whitespace runs as one, trimmed (counted without building the string). */
const textLength = collapsedTextLength;

function prepare(document: Document, base: URL, excludeTags: readonly string[], revealHidden = false, panels: { revealTabPanels?: boolean; revealAriaTabPanels?: boolean } = {}): void {
  readAssistiveMarkup(document.body);
  removeScrambledLabels(document.body);
  prepareBody(document.body, base, { revealHidden, ...panels });
  removeExcluded(document.body, excludeTags);
}

/** meta[name="generator" i]: the CMS or forum engine that made the page. */
function isGenerator(el: Element): boolean {
  return el.localName === 'meta' && (el.getAttribute('name') ?? '').toLowerCase() === 'generator';
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
