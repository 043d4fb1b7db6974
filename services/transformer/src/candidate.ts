// A second candidate beside Readability's article, and the comparison between them (the
// idea of trafilatura's compare_extraction: run more than one extractor and keep the better
// one when the first one is clearly too short).
//
// Readability scores paragraphs and keeps one top container plus the siblings that score
// close to it. Templates that split an article over several columns or blocks (page-builder
// rows, a description column beside an ingredients table, a "teaser" block above the body)
// make it keep one block and drop the rest. The page's own semantic container (<article>,
// <main>, role=main, schema.org articleBody) says where the whole article is, whatever the
// markup inside. Taken alone it was not better (it also holds galleries, related links and
// comment forms), so it is only a fallback: cleaned with the same passes as the article, and
// taken only when it holds Readability's article and clearly more prose than it.
// <article> only: on the dev set <main> brought in more boilerplate (teasers, galleries)
// than text, and a page with many <article>s is a listing.
import { removeBoilerplate, removeNavigation } from './clean.js';
import { pruneBoilerplate } from './prune.js';
import { textStats } from './text.js';

/**
 * The container is taken when its text is at least this many times the article's: a bit
 * longer is just furniture the passes left; several times longer is a body Readability cut.
 */
const MIN_CONTAINER_GAIN = 1.5;
/** A container that is mostly link text is a listing or a menu, not an article body. */
const MAX_CONTAINER_LINK_DENSITY = 0.25;
/** Readability's article must appear in the container: its first prose this long is looked for. */
const PROBE_LENGTH = 80;

/** A page with more <article> elements than this is a listing of teasers, not one article. */
const MAX_ARTICLES = 4;

/**
 * Clones of the page's <article> elements (the outermost ones), the HTML element whose
 * meaning is "one self-contained composition": the semantic container of an article.
 * None on a listing (more than MAX_ARTICLES). <main> is not used: it holds the article and
 * the page's galleries, teasers and forms, and taking it cost more boilerplate than it won.
 */
export function semanticContainers(body: Element): Element[] {
  const articles = [...body.querySelectorAll('article')].filter((a) => !a.parentElement?.closest('article'));
  if (articles.length > MAX_ARTICLES) return [];
  return articles.map((a) => a.cloneNode(true) as Element);
}

/**
 * The better of Readability's (already cleaned) article and the semantic container: the
 * container, cleaned the same way, when it holds the article's prose and at least
 * MIN_CONTAINER_GAIN times its text with few links; otherwise the article.
 */
export function betterCandidate(article: Element, containers: readonly Element[]): Element {
  const probe = firstProse(article);
  // The container Readability's article came from: the one holding its first prose.
  const container = probe && containers.find((c) => collapsed(c.textContent).includes(probe));
  if (!container) return article;
  removeNavigation(container);
  removeBoilerplate(container);
  pruneBoilerplate(container);
  const stats = textStats(container);
  const c = stats.get(container);
  if (!c || c.text === 0 || c.link / c.text > MAX_CONTAINER_LINK_DENSITY) return article;
  if (c.text < MIN_CONTAINER_GAIN * collapsed(article.textContent).length) return article;
  if (!collapsed(container.textContent).includes(probe)) return article;
  if (!container.querySelector('h1')) {
    const h1 = article.querySelector('h1');
    if (h1) container.prepend(h1.cloneNode(true));
  }
  return container;
}

/** The start of the article's first paragraph-sized block: what the container must hold too. */
function firstProse(article: Element): string | undefined {
  // Paragraphs first: Readability rewrites some divs and line breaks, never a <p>'s text.
  for (const selector of ['p', 'li, td, div']) {
    for (const block of article.querySelectorAll(selector)) {
      const text = collapsed(block.textContent);
      if (text.length >= PROBE_LENGTH) return text.slice(0, PROBE_LENGTH);
    }
  }
  return undefined;
}

function collapsed(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}
