// metadata.pageType: what kind of page this is, from what the page declares (JSON-LD @type,
// og:type, a forum engine's generator tag) and then its URL and structure. The seven kinds
// are WCXB's (the benchmark the extractor is tuned on): article, documentation, service,
// forum, listing, product, collection. extract-page.ts uses it where the layout needs another
// root than one article: a forum thread keeps every post (the comment and author names that
// mark boilerplate on an article are its content), and listings keep their repeated cards.
import { cardPageType, namesPrice } from './card-page.js';
import { isDocsGenerator, isDocsHost, linksToSourceFile, looksLikeDocs } from './docs-page.js';
import { findPosts } from './forum.js';
import { collapsedLength as textLength } from './text.js';
import { namedPageFeatures, type RuleSignals } from './page-features.js';
import { guessPageType, shippedPageTypeModel, type PageTypeModel } from './page-type-model.js';

import type { PageType } from './page-kinds.js';
import { classOf } from './dom.js';
export { PAGE_TYPES, type PageType } from './page-kinds.js';
export type { PageTypeModel } from './page-type-model.js';

/** JSON-LD @types, strongest first: a product page often also declares its breadcrumb and its WebPage. */
const LD_TYPES: Array<[RegExp, PageType]> = [
  [/^(Product|ProductGroup|IndividualProduct|Car|Vehicle|SoftwareApplication|Book)$/, 'product'],
  [/^(DiscussionForumPosting|QAPage)$/, 'forum'],
  [/^(TechArticle|APIReference|HowTo)$/, 'documentation'],
  [/^(CollectionPage|SearchResultsPage|ItemList|OfferCatalog)$/, 'collection'],
  [/^(NewsArticle|BlogPosting|Article|Report|ScholarlyArticle|Recipe|Review|LiveBlogPosting|OpinionNewsArticle|AnalysisNewsArticle)$/, 'article'],
  [/^(Service|ProfessionalService|FinancialService|LegalService|MedicalBusiness|LocalBusiness|HomeAndConstructionBusiness)$/, 'service'],
];

/** Forum engines name themselves in <meta name="generator"> or in the body's classes. */
const FORUM_ENGINE = /\b(discourse|phpbb|vbulletin|xenforo|flarum|mybb|invision|nodebb|vanilla forums|simple machines|smf|bbpress|discuz)\b/i;

/**
 * A thread declared in microdata (question-and-answer sites mark the page a QAPage, forum
 * engines the thread a DiscussionForumPosting); the comments of an article are Comment, not these.
 */
const THREAD_MICRODATA = '[itemtype$="schema.org/QAPage"], [itemtype$="schema.org/DiscussionForumPosting"]';

/** URL paths by kind (a path segment, whole). */
const URL_HINTS: Array<[RegExp, PageType]> = [
  [/\/(forums?|threads?|discussions?|viewtopic\.php|showthread\.php)(\/|$|\?)|\/t\/[^/]+\/\d+/i, 'forum'],
  [/\/(docs?|documentation|api|reference|manual|guides?|tutorials?|handbook|kb|knowledge-?base|developers?|learn)(\/|$)/i, 'documentation'],
  [/\/(products?|p|pdp|item|dp|shop\/[^/]+\/[^/]+)(\/|$)/i, 'product'],
  [/\/(collections?|category|categories|catalog|shop|store|tags?)(\/|$)/i, 'collection'],
  // A blog's or a newsroom's own root is the index of its stories; a story has a path under it.
  [/\/(blog|news|articles|posts|stories)\/?$/i, 'listing'],
  [/\/(blog|news|articles?|posts?|stories|\d{4}\/\d{2})(\/|$)/i, 'article'],
  [/\/(services?|solutions?|pricing|features|about|contact|industries)(\/|$)/i, 'service'],
];

/**
 * A forum's own host: a name with "forum" in it (forum.example.org, examplesforum.com) or a
 * community subdomain (community., discuss., bbs., answers.). Read after the path, which may
 * say otherwise (a community site's /docs/).
 */
const FORUM_HOST = /forum|^(community|discuss|discussions?|discourse|bbs|answers|talk|boards)\./i;

export interface PageTypeInput {
  url: string;
  jsonLd: unknown[];
  ogType?: string | undefined;
  generator?: string | undefined;
}

/**
 * The page's kind: what the page declares, then its URL, then its structure. A page that
 * declares nothing is a listing when it has a run of like cards, a site's own page
 * ('service', WCXB's type for a company's pages) when little of its text is prose, and an
 * article (the extractor's default layout) otherwise. The hand rules alone: decidePageType
 * adds the learned classifier.
 */
export function detectPageType(document: Document, input: PageTypeInput): PageType {
  return declaredPageType(document, input) ?? structuralPageType(document);
}

/** The hand rules' answers: the firm declaration, the hint, and their kind for the page (training reads them). */
export interface RuleTypes {
  firm: PageType | undefined;
  hinted: PageType | undefined;
  rules: PageType;
}

/** extractPage's hooks for the classifier. */
export interface PageTypeHooks {
  /** The page-type classifier (default: DEFAULT_PAGE_TYPE_MODEL; null: the hand rules alone). Training passes null. */
  pageTypeModel?: PageTypeModel | null;
  /** Called with the classifier's features (page-features.ts) and the rules' answers: its training set. */
  onPageFeatures?: (x: number[], rules: RuleTypes) => void;
}

export interface PageTypeDecision {
  type: PageType;
  /** What the page says it is (JSON-LD, engine, og:type, URL, host), as declaredPageType. */
  declared: PageType | undefined;
}

/**
 * The page's kind, with the learned classifier (page-type-model.ts) where the page does not
 * say it firmly: a JSON-LD type, a forum engine, thread microdata, a docs generator or a
 * product og:type stay authoritative (a site says so on purpose). The model reads only the
 * pages the rules call an article, their default: when a URL path or og:type=article
 * suggested it, the model's kind wins when it is at least model.overrideProbability sure;
 * when nothing did, at model.undeclaredProbability. The rules' other kinds stay: the
 * layouts were tuned on what they find (cards, sections, threads), and on WCXB dev, pages
 * the model moved between listing, collection and service lost F1 on both folds even where
 * its kind was the true one (bench/probe/page-type-changes.ts); those it moved away from
 * 'article' (a company's pages that read as prose) gained on both.
 * Without a model, detectPageType's answer. `onFeatures` receives the features (training).
 */
export function decidePageType(document: Document, input: PageTypeInput, hooks: PageTypeHooks = {}): PageTypeDecision {
  const model = hooks.pageTypeModel === undefined ? DEFAULT_PAGE_TYPE_MODEL : hooks.pageTypeModel;
  const onFeatures = hooks.onPageFeatures;
  const ldTypes = jsonLdTypes(input.jsonLd);
  const host = urlParts(input.url).host;
  const firm = firmPageType(document, input, ldTypes, host);
  if (firm && !onFeatures) return { type: firm, declared: firm };
  const hinted = firm ?? hintedPageType(document, input, host);
  const rules = hinted ?? structuralPageType(document);
  if (!onFeatures && (!model || rules !== 'article')) return { type: rules, declared: hinted };
  const body = document.body;
  // A page that suggests nothing and came out an article has been through every structural
  // rule (and looksLikeDocs): none fired, so none runs again.
  const passed = !hinted && rules === 'article';
  const x = namedPageFeatures(document, {
    url: input.url,
    ldTypes,
    ldType: ldKind(ldTypes),
    ogType: input.ogType ?? '',
    generator: input.generator ?? '',
    urlHint: urlHint(urlParts(input.url).path),
    declared: hinted,
    thread: !passed && !!body && looksLikeThread(body),
    listing: !passed && looksLikeListing(document),
    sections: !passed && !!body && looksLikeSections(body),
    cards: passed ? undefined : cardPageType(body),
    docs: !passed && looksLikeDocs(document, input.generator),
  }).map(([, v]) => v);
  onFeatures?.(x, { firm, hinted, rules });
  if (firm || !model || rules !== 'article') return { type: rules, declared: hinted };
  const guess = guessPageType(model, x);
  const needed = hinted ? model.overrideProbability : model.undeclaredProbability;
  return { type: guess.probability >= needed ? guess.type : rules, declared: hinted };
}

/** The names of the classifier's features, in order (a model trained on others is refused). */
export const PAGE_FEATURE_NAMES: readonly string[] = (() => {
  const none: RuleSignals = { url: '', ldTypes: new Set(), ldType: undefined, ogType: '', generator: '', urlHint: undefined, declared: undefined, thread: false, listing: false, sections: false, cards: undefined, docs: false };
  return namedPageFeatures({ body: null } as unknown as Document, none).map(([name]) => name);
})();
export const SHIPPED_PAGE_TYPE_MODEL = shippedPageTypeModel(PAGE_FEATURE_NAMES);
/**
 * The model extractPage uses unless told: none for now. Judged end-to-end with fold-only
 * models (docs/benchmarks.md, eighteenth session), it left WCXB dev's F1 where the rules had
 * it on both folds (its floors keep it to few pages) for about 4 ms of CPU per page; pass
 * SHIPPED_PAGE_TYPE_MODEL (hooks.pageTypeModel) to use it.
 */
const DEFAULT_PAGE_TYPE_MODEL: PageTypeModel | null = null;

/** The kind of a page that declares none, by its structure (see detectPageType). */
export function structuralPageType(document: Document): PageType {
  if (document.body && looksLikeThread(document.body)) return 'forum';
  if (looksLikeListing(document)) return 'listing';
  if (document.body && looksLikeSections(document.body)) return 'service';
  return cardPageType(document.body) ?? 'article';
}

/** What the page says it is: its JSON-LD @type, a forum engine's mark, its og:type, its URL path; undefined when it says nothing. */
export function declaredPageType(document: Document, input: PageTypeInput): PageType | undefined {
  const host = urlParts(input.url).host;
  return firmPageType(document, input, jsonLdTypes(input.jsonLd), host) ?? hintedPageType(document, input, host);
}

function urlParts(url: string): { path: string; host: string } {
  try {
    const { pathname, hostname } = new URL(url);
    return { path: pathname, host: hostname };
  } catch {
    return { path: '', host: '' };
  }
}

function urlHint(path: string): PageType | undefined {
  return URL_HINTS.find(([re]) => re.test(path))?.[1];
}

/** What the page says of itself on purpose: JSON-LD, a forum engine, thread microdata, a docs generator, a product og:type. */
function firmPageType(document: Document, input: PageTypeInput, ldTypes: ReadonlySet<string>, host: string): PageType | undefined {
  const declared = ldKind(ldTypes);
  // A forum engine's SEO plugin may call a thread an Article: on a forum's own host it is a thread.
  if (declared && !(declared === 'article' && FORUM_HOST.test(host))) return declared;
  if (FORUM_ENGINE.test(input.generator ?? '') || FORUM_ENGINE.test(document.body?.getAttribute('class') ?? '')) return 'forum';
  if (document.querySelector(THREAD_MICRODATA)) return 'forum';
  if (isDocsGenerator(input.generator)) return 'documentation';
  const og = (input.ogType ?? '').toLowerCase();
  // product.group (Facebook's type for a group of products) is a category page.
  if (og === 'product.group' || og === 'product:group') return 'collection';
  if (og === 'product' || og.startsWith('product.') || og === 'og:product') return 'product';
  return undefined;
}

/** What the URL path, the host, the docs marks and og:type=article suggest. */
function hintedPageType(document: Document, input: PageTypeInput, host: string): PageType | undefined {
  const byUrl = urlHint(urlParts(input.url).path);
  // Software and service sites call their offerings "products" too (/products/functions):
  // a shop's product page names its price.
  if (byUrl && (byUrl !== 'product' || hasPriceMark(document))) return byUrl;
  if (FORUM_HOST.test(host)) return 'forum';
  if (isDocsHost(host) || linksToSourceFile(document) || looksLikeDocs(document, input.generator)) return 'documentation';
  // Shops and news homes say og:type=article on every page: a page made of cards is their index.
  if ((input.ogType ?? '').toLowerCase() === 'article') return cardPageType(document.body) ?? 'article';
  return undefined;
}

/** An element whose class, id or itemprop names a price (a word of it: "price", "product-price", "priceValue"). */
function hasPriceMark(document: Document): boolean {
  for (const el of document.querySelectorAll('[class*="price" i], [id*="price" i], [itemprop="price"]')) {
    if (namesPrice(`${classOf(el)} ${el.id} ${el.getAttribute('itemprop') ?? ''}`)) return true;
  }
  return false;
}

/**
 * An article is mostly prose: paragraphs of PROSE_CHARS or more hold at least this share of
 * the text outside the site chrome. A page that declares no kind, falls short and is cut into
 * sections (MIN_SECTIONS headings or <section>s) is a site's own page: headings, short blurbs,
 * lists of features and calls to action.
 */
const MIN_ARTICLE_PROSE_SHARE = 0.2;
const MIN_SECTIONS = 2;
const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary']);
const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg']);

/** Under MIN_ARTICLE_PROSE_SHARE of the text outside the site chrome in prose, and in sections. */
function looksLikeSections(body: Element): boolean {
  let text = 0;
  let prose = 0;
  let headings = 0;
  let sections = 0;
  const walk = (el: Element): void => {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        text += collapsedLength(child.textContent);
        continue;
      }
      if (child.nodeType !== 1) continue;
      const c = child as Element;
      if (NOT_TEXT.has(c.localName) || CHROME_TAGS.has(c.localName) || CHROME_ROLES.has(c.getAttribute('role') ?? '')) continue;
      if (c.localName === 'h2' || c.localName === 'h3') headings++;
      else if (c.localName === 'section') sections++;
      if (c.localName === 'p') {
        const n = collapsedLength(c.textContent);
        text += n;
        if (n >= PROSE_CHARS) prose += n;
      } else walk(c);
    }
  };
  walk(body);
  return prose < MIN_ARTICLE_PROSE_SHARE * text && (headings >= MIN_SECTIONS || sections >= MIN_SECTIONS);
}

function collapsedLength(s: string | null): number {
  return (s ?? '').replace(/\s+/g, ' ').trim().length;
}

/**
 * A thread that declares nothing: a run of MIN_THREAD_POSTS posts or more (forum.ts: like
 * elements, each with an author line and a time line) whose message bodies hold at least
 * MIN_THREAD_BODY_SHARE of the page's text. An article's comments are posts too, but under
 * the article's own prose they hold a small part of the text (and a lone exchange of two
 * comments is no thread).
 */
const MIN_THREAD_POSTS = 3;
const MIN_THREAD_BODY_SHARE = 0.3;

function looksLikeThread(body: Element): boolean {
  const thread = findPosts(body);
  if (!thread || thread.posts.length < MIN_THREAD_POSTS) return false;
  let bodies = 0;
  for (const els of thread.bodies) for (const el of els) bodies += textLength(el.textContent ?? '');
  return bodies >= MIN_THREAD_BODY_SHARE * visibleText(body);
}

/** Text length of `body` without scripts, styles and templates (detection runs on the untouched page). */
function visibleText(body: Element): number {
  let n = 0;
  const walk = (el: Element): void => {
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) n += textLength((child as Text).data);
      else if (child.nodeType === 1 && !NOT_TEXT.has((child as Element).localName)) walk(child as Element);
    }
  };
  walk(body);
  return n;
}

/** An article has this many paragraphs of prose at least; a listing has fewer. */
const MAX_LISTING_PROSE = 2;
const PROSE_CHARS = 150;
/** Cards: this many like siblings (same tag and class), each with a link and some text of its own. */
const MIN_CARDS = 6;
const MIN_CARD_CHARS = 40;

/**
 * A page that declares nothing and whose URL says nothing: a listing when it has little
 * prose and a run of like cards (outside the site chrome), each a link with a line of
 * text: a search result, a category page, a blog index.
 */
function looksLikeListing(document: Document): boolean {
  const body = document.body;
  if (!body) return false;
  let prose = 0;
  for (const p of body.querySelectorAll('p')) if ((p.textContent ?? '').trim().length >= PROSE_CHARS && ++prose > MAX_LISTING_PROSE) return false;
  for (const parent of body.querySelectorAll('ul, ol, div, section, main, tbody')) {
    if (parent.closest('nav, header, footer, aside')) continue;
    const groups = new Map<string, number>();
    for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
      if ((c.textContent ?? '').trim().length < MIN_CARD_CHARS || !c.querySelector('a[href]')) continue;
      const key = `${c.localName}.${classOf(c)}`;
      const n = (groups.get(key) ?? 0) + 1;
      if (n >= MIN_CARDS) return true;
      groups.set(key, n);
    }
  }
  return false;
}

/** Every JSON-LD @type on the page, its @graph's and mainEntity's too. */
function jsonLdTypes(blocks: unknown[]): Set<string> {
  const types = new Set<string>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 4 || !value || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
      return;
    }
    const node = value as Record<string, unknown>;
    const t = node['@type'];
    for (const name of Array.isArray(t) ? t : [t]) if (typeof name === 'string') types.add(name);
    if (node['@graph']) visit(node['@graph'], depth + 1);
    if (node['mainEntity']) visit(node['mainEntity'], depth + 1);
  };
  visit(blocks, 0);
  return types;
}

function ldKind(types: ReadonlySet<string>): PageType | undefined {
  for (const [re, kind] of LD_TYPES) for (const t of types) if (re.test(t)) return kind;
  return undefined;
}
