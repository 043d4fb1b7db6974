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
// <main> only where the caller asks (pages that declare no kind, or docs, read as prose, a
// site's own page or docs): on news pages <main> brought in more boilerplate (teasers,
// galleries) than text; a service or docs page spreads its text over several sections of
// <main>, of which Readability keeps one. A page with many <article>s is a listing.
import { removeBoilerplate, removeNavigation } from './clean.js';
import { pruneBoilerplate, type PruneOptions } from './prune.js';
import { textStats } from './text.js';
import { classOf } from './dom.js';

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
 * None on a listing (more than MAX_ARTICLES). With `main`, the page's one outermost <main>
 * (or role=main) comes last: on a news page it holds the article and the page's galleries,
 * teasers and forms, so the caller asks for it only on pages that are no declared article.
 */
export function semanticContainers(body: Element, options: { main?: boolean } = {}): Element[] {
  const articles = [...body.querySelectorAll('article')].filter((a) => !a.parentElement?.closest('article'));
  if (articles.length > MAX_ARTICLES) return [];
  const containers = articles.map((a) => a.cloneNode(true) as Element);
  if (!options.main) return containers;
  const mains = [...body.querySelectorAll('main, [role="main"]')].filter((m) => !m.parentElement?.closest('main, [role="main"]'));
  if (mains.length === 1) containers.push(mains[0]!.cloneNode(true) as Element);
  return containers;
}

/**
 * The better of Readability's (already cleaned) article and the semantic container: the
 * container, cleaned the same way, when it holds the article's prose and at least
 * `minGain` (default MIN_CONTAINER_GAIN) times its text with few links; otherwise the article.
 */
export function betterCandidate(article: Element, containers: readonly Element[], prune?: PruneOptions, minGain = MIN_CONTAINER_GAIN): Element {
  const probe = firstProse(article);
  if (!probe) return article;
  // The containers Readability's article came from (those holding its first prose), innermost first.
  for (const container of containers) {
    if (!collapsed(container.textContent).includes(probe)) continue;
    const better = cleanedContainer(container, article, probe, prune, minGain);
    if (better) return better;
  }
  return article;
}

/** The container cleaned, when it is the better candidate (see betterCandidate); else undefined. */
function cleanedContainer(container: Element, article: Element, probe: string, prune: PruneOptions | undefined, minGain: number): Element | undefined {
  // The passes below only remove: a container too short for the gain before them stays so.
  const articleLength = collapsed(article.textContent).length;
  if ((textStats(container).get(container)?.text ?? 0) < minGain * articleLength) return undefined;
  removeNavigation(container);
  removeBoilerplate(container);
  pruneBoilerplate(container, prune);
  const stats = textStats(container);
  const c = stats.get(container);
  if (!c || c.text === 0 || c.link / c.text > MAX_CONTAINER_LINK_DENSITY) return undefined;
  if (c.text < minGain * articleLength) return undefined;
  if (!collapsed(container.textContent).includes(probe)) return undefined;
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

/** A block counts as prose for proseContainer when it holds this much text with few links. */
const MIN_PROSE_BLOCK = 30;
const MAX_PROSE_BLOCK_LINK_DENSITY = 0.3;
/** proseContainer: the deepest element holding this share of the page's prose. */
const PROSE_CONTAINER_SHARE = 0.8;
const PROSE_LEAVES = new Set(['P', 'LI', 'TD', 'DD', 'BLOCKQUOTE', 'PRE', 'DIV', 'SPAN', 'SECTION', 'ARTICLE']);

/**
 * The deepest element that holds most (PROSE_CONTAINER_SHARE) of the page's prose, counted
 * over blocks with text and few links: on a thread of many posts it is the thread, where
 * Readability keeps one post, and it leaves the sidebars and menus around it out.
 */
export function proseContainer(body: Element): Element {
  const stats = textStats(body);
  const prose = new Map<Element, number>();
  let total = 0;
  for (const el of body.querySelectorAll('*')) {
    if (!PROSE_LEAVES.has(el.nodeName)) continue;
    const s = stats.get(el);
    if (!s || s.text < MIN_PROSE_BLOCK || s.link / s.text > MAX_PROSE_BLOCK_LINK_DENSITY) continue;
    // Only the innermost such block counts (its ancestors get it through the walk below).
    if ([...el.children].some((c) => PROSE_LEAVES.has(c.nodeName) && (stats.get(c)?.text ?? 0) >= MIN_PROSE_BLOCK)) continue;
    total += s.text;
    for (let a: Element | null = el; a && a !== body; a = a.parentElement) prose.set(a, (prose.get(a) ?? 0) + s.text);
  }
  if (total === 0) return body;
  let best = body;
  for (const [el, n] of prose) if (n >= PROSE_CONTAINER_SHARE * total && body.contains(el) && best.contains(el)) best = el;
  // One long post can hold most of the prose: the thread is the parent of it and its like
  // (siblings of the same tag and class that hold prose too).
  while (best !== body && best.parentElement && best.parentElement !== body && hasTwin(best, prose)) best = best.parentElement;
  return best;
}

function hasTwin(el: Element, prose: ReadonlyMap<Element, number>): boolean {
  const cls = classOf(el);
  for (const sibling of el.parentElement!.children) {
    if (sibling !== el && sibling.nodeName === el.nodeName && classOf(sibling) === cls && (prose.get(sibling) ?? 0) > 0) return true;
  }
  return false;
}
