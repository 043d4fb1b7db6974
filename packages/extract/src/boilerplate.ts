// Boilerplate by name: elements whose class or id says what they are (share bars, related
// links, newsletter boxes, comments, author boxes, captions...), removed before any
// candidate extraction runs. This is what trafilatura's discard expressions and
// Readability's "unlikely candidates" do; here the names are matched per word (class and id
// split at '-', '_', spaces and camelCase humps), so that "post-share-bar" and
// "socialShare" match "share" while "tagesschau" does not match "tag".
//
// Why each list is general: the words are the ones CMS themes and front-end frameworks use
// for these widgets (WordPress, Drupal, Joomla, Bootstrap, news CMSs), in English and in the
// languages of the big European web (de, fr, es, it, pl, nl, pt): a class named "share" is a
// share bar on every site, not one site's quirk.
import { linkDensity, textStats, walkElements, type TextStats } from './text.js';
import { classOf } from './dom.js';
import { isHeadingAnchor } from './heading-anchor.js';
import { isLinkInRunningText } from './running-text.js';

/** A word that starts with one of these names a boilerplate widget. */
const BOILERPLATE_PREFIXES = [
  // Sharing and social widgets.
  'share', 'sharing', 'shariff', 'social', 'sociable', 'teilen', 'partage', 'compartir', 'condivid', 'udostepn',
  // Related, recommended and most-read lists (the main precision loss of Readability).
  'related', 'relacionad', 'verwandt', 'aehnlich', 'correlat', 'powiazan', 'gerelateerd', 'recommend', 'empfehl',
  'popular', 'mostread', 'meistgelesen', 'trending', 'readmore', 'readalso', 'morestories', 'morearticles', 'moreposts', 'morenews',
  'outbrain', 'taboola', 'plista', 'ligatus',
  // Newsletters, subscriptions, paywall prompts, cookie and consent banners.
  'newsletter', 'subscri', 'signup', 'abonn', 'paywall', 'cookie', 'consent', 'gdpr',
  // Comments and replies ("commentary" is a genre of article, see NOT_BOILERPLATE).
  'comment', 'kommentar', 'commentaire', 'comentario', 'komentarz', 'commenti', 'reacties', 'disqus', 'reply', 'respond',
  // Author boxes and bylines, dates and meta lines (metadata carries them).
  'author', 'autor', 'auteur', 'byline', 'dateline', 'timestamp', 'postmeta', 'entrymeta', 'articlemeta',
  // Captions and photo credits.
  'caption', 'credit', 'bildunterschrift', 'legende', 'copyright', 'imagedesc', 'photodesc',
  // Legal small print and calls to action.
  'disclaimer',
  // Links to the next or previous post.
  'nextstory', 'nextpost', 'nextarticle', 'prevpost', 'previouspost', 'postnav',
  // Ads.
  'advert', 'sponsor', 'werbung', 'anzeige', 'publicidad', 'pubblicit', 'reklam', 'banner',
  // Site chrome: breadcrumbs, sidebars, widgets, pagination, toolbars, pop-ups.
  'breadcrumb', 'sidebar', 'widget', 'pagination', 'pager', 'toolbar', 'popup', 'modal', 'footer', 'navbar', 'navigation', 'menu',
  // Text only screen readers see (invisible on the page).
  'screenreader', 'sronly', 'visuallyhidden', 'offscreen',
];

/** BOILERPLATE_PREFIXES as one pattern: every word of every distinct name is tested against all of them. */
const BOILERPLATE_PREFIX = new RegExp(`^(?:${BOILERPLATE_PREFIXES.join('|')})`);

/**
 * Words that name boilerplate only as a whole word ("tags", not "tagesschau"; "ad", not "add"; "promo", not "promoted").
 * "navheader" and "navfooter" are DocBook XSL's prev / up / home / next tables over and under every page of a manual
 * (PostgreSQL's, FreeBSD's): one word, so "nav" does not see them.
 */
const BOILERPLATE_WORDS = new Set(['cta', 'toc', 'tags', 'taglist', 'tagcloud', 'keywords', 'schlagworte', 'meta', 'ad', 'ads', 'nav', 'navheader', 'navfooter', 'rating', 'skip', 'print', 'noprint', 'promo', 'promos', 'promotion']);

/** Words that start like boilerplate but are not: an opinion piece is a "commentary". */
const NOT_BOILERPLATE = /^(commentary|commentaries|printable)$/;

/**
 * Words that name the content itself, in the same languages. A class such as
 * "article-content" beside "sticky-sidebar" on one element says it is the article.
 */
const CONTENT_WORD = /^(content|contenido|contenu|contenuto|conteudo|inhalt|tresc|article|articulo|artikel|articolo|paragraph|beitrag|noticia|nota|post|entry|body|story|texto|texte)$/;

/**
 * "text" names content as the head of a name ("article-text", "body-text") but is a
 * typography utility as its first word ("text-center", "text-xs", "text--align-left").
 */
function namesContent(words: readonly string[]): boolean {
  return words.some((w, i) => CONTENT_WORD.test(w) || (w === 'text' && i === words.length - 1));
}

/**
 * Page builders (Elementor, WPBakery / Visual Composer, Divi, Beaver Builder, Thrive, Avada)
 * call every block of a page a "widget" or "module" under their own prefix: their classes
 * say nothing about the role of the block.
 */
const PAGE_BUILDERS = ['elementor', 'wpb', 'vc', 'et', 'fl', 'tve', 'thrv', 'siteorigin', 'so', 'fusion', 'avia', 'wp'];

/**
 * A class "hide-from-X" (or "hidden-from-X", "exclude-from-X") says what the element is left
 * out of, not what it is: a docs heading marked "hide-from-toc" is a heading kept out of
 * the table of contents. ("hidden-print", hidden when printed, still names chrome.)
 */
const LEFT_OUT_OF = /^(hide|hidden|exclude|excluded)$/;

/**
 * A class that starts with one of these words describes state or taxonomy, not the role of
 * the element: WordPress writes "tag-<slug>" and "category-<slug>" on a post, themes write
 * "has-ads", "with-sidebar", "non-paywall". Such classes are not read as names.
 */
const MODIFIER_HEADS = new Set(['category', 'tag', 'term', 'has', 'with', 'is', 'no', 'non', 'not', 'format', 'status', 'type', ...PAGE_BUILDERS]);

/**
 * Names of an element: its id, each class and its microdata property (schema.org's names for
 * the role of a part: itemprop="author" is the author box, "articleBody" the article), each
 * split into lower-case words ("postShare-bar" -> post share bar).
 */
export function nameTokens(el: Element): ReadonlyArray<readonly string[]> {
  const raw = `${namingId(el)} ${classOf(el)} ${el.getAttribute('itemprop') ?? ''}`;
  let tokens = tokensByName.get(raw);
  if (!tokens) {
    if (tokensByName.size >= MAX_REMEMBERED_NAMES) tokensByName.clear();
    tokensByName.set(raw, (tokens = splitNames(raw)));
  }
  return tokens;
}

/**
 * nameTokens by the names' string, shared by every element that carries it: a page repeats
 * a few class names on thousands of elements, and the name pass, the block features and
 * the product pass each ask for every element's words. The arrays
 * are shared: callers read them only. Bounded (cleared when full): the names of a page run
 * to a few thousand.
 */
const tokensByName = new Map<string, ReadonlyArray<readonly string[]>>();
const MAX_REMEMBERED_NAMES = 20_000;
const NO_NAMES: ReadonlyArray<readonly string[]> = [];

function splitNames(raw: string): ReadonlyArray<readonly string[]> {
  if (!raw.trim()) return NO_NAMES;
  const tokens: string[][] = [];
  for (const token of raw.split(/\s+/)) {
    // A utility class under a variant ("print:break-inside-avoid", "md:hover:opacity-100") styles, it names no role.
    if (token.includes(':')) continue;
    const words = token
      .replace(/([a-z])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
    if (words.length && !(words.length > 1 && MODIFIER_HEADS.has(words[0]!)) && !(LEFT_OUT_OF.test(words[0]!) && words[1] === 'from')) tokens.push(words);
  }
  return tokens;
}

/** el's id, unless it is its heading's anchor (heading-anchor.ts): then it names a topic, not a role. */
function namingId(el: Element): string {
  const id = el.getAttribute('id') ?? '';
  return id && isHeadingAnchor(el, id) ? '' : id;
}

/** Whether one name (a class or the id, as words) names a boilerplate widget. */
export function isBoilerplateToken(words: readonly string[]): boolean {
  for (const word of words) {
    if (NOT_BOILERPLATE.test(word)) continue;
    if (BOILERPLATE_WORDS.has(word) || BOILERPLATE_PREFIX.test(word)) return true;
  }
  // Compound names also count joined ("read-more" -> readmore, "post-meta" -> postmeta).
  for (let i = 1; i < words.length; i++) {
    const [first, second] = [words[i - 1]!, words[i]!];
    if (NOT_BOILERPLATE.test(first) || NOT_BOILERPLATE.test(second)) continue;
    if (BOILERPLATE_WORDS.has(first + second) || namesAcrossJoint(first, second)) return true;
  }
  return false;
}

/** A joined name's prefix reaches at least this far into its second word (or all of a shorter one). */
const MIN_JOINT_REACH = 3;

/**
 * Whether a boilerplate prefix names the two words joined, reaching well into the second:
 * "screen-reader" is a screenreader and "image-desc" an imagedesc, but "auto-repeat" (a
 * CSS grid's utility class) is no "autor" because the prefix takes one letter of "repeat".
 */
function namesAcrossJoint(first: string, second: string): boolean {
  const joined = first + second;
  const reach = first.length + Math.min(MIN_JOINT_REACH, second.length);
  return BOILERPLATE_PREFIXES.some((prefix) => prefix.length >= reach && joined.startsWith(prefix));
}

export type NameVerdict = 'content' | 'boilerplate' | 'mixed' | 'none';

/**
 * What an element's names say: 'boilerplate' when one is boilerplate and none mentions
 * content ("related-posts"), 'content' when a name is content only ("article-content
 * sticky-sidebar"), 'mixed' when one name says both ("content-behind-paywall": the text
 * decides, see removeBoilerplateByName), unless it ends in the widget ("entry-author",
 * "article-tags": namesOwnedWidget).
 */
export function judgeName(tokens: ReadonlyArray<readonly string[]>): NameVerdict {
  let boilerplate = false;
  let mixed = false;
  let owned = false;
  for (const words of tokens) {
    const content = namesContent(words);
    if (isBoilerplateToken(words)) {
      boilerplate = true;
      if (content && namesOwnedWidget(words)) owned = true;
      else if (content) mixed = true;
    } else if (content) return 'content';
  }
  return owned ? 'boilerplate' : mixed ? 'mixed' : boilerplate ? 'boilerplate' : 'none';
}

/**
 * A compound name is read head last, as CSS names are written (BEM's block__element, and
 * "entry-author", "post-comments", "article-share"): when its last word names a widget and
 * every content word stands before it, the content word only says whose widget it is (the
 * entry's author box), so the name is boilerplate, not 'mixed'. "sidebar-content" ends in no
 * widget word and "content-behind-paywall" is no compound: they stay 'mixed' (their text decides).
 */
function namesOwnedWidget(words: readonly string[]): boolean {
  const last = words[words.length - 1]!;
  return words.length > 1 && !words.some((w) => LINKING_WORD.has(w)) && !namesContent([last]) && isBoilerplateToken([last]);
}

/** A preposition puts the head first ("content-behind-paywall" is content): such a name is no compound read head last. */
const LINKING_WORD = new Set(['behind', 'with', 'without', 'under', 'over', 'for', 'of', 'after', 'before', 'below', 'above', 'in', 'on']);

/** Comment threads are boilerplate however much text they hold (the other names are widgets, which are short). */
const COMMENT_NAME = /^(comment|kommentar|commentaire|comentario|komentarz|commenti|reacties|disqus)/;

/** Elements that are chrome or captions by their tag: navigation, complementary content, footers, figure captions. */
const CHROME_TAGS = new Set(['NAV', 'ASIDE', 'FOOTER', 'FIGCAPTION']);

/** An element holding this share of the page's text is never removed when it holds the article body. */
const BIG_SHARE = 0.35;
/**
 * Widgets (share bars, tag lists, related links, bylines) are short or made of links: a
 * named element with this share of the page's text and little link text is a content
 * block whose wrapper happens to carry such a name ("left-navigation-page-wrapper").
 */
const TEXT_BLOCK_SHARE = 0.25;
const TEXT_BLOCK_MAX_LINK_DENSITY = 0.3;
/** A 'mixed' name ("content-behind-paywall") is content once it holds this much prose. */
const MIXED_MIN_TEXT = 200;
const MIXED_MAX_LINK_DENSITY = 0.5;

/** Elements never judged by name: the document's skeleton and the title. */
const NEVER = new Set(['HTML', 'BODY', 'MAIN', 'ARTICLE', 'H1']);

interface NameJudgement {
  verdict: NameVerdict;
  /** A name of a comment thread (removed however much text it holds). */
  comments: boolean;
  /** The names that read as boilerplate, joined: elements alike in these are one kind of widget (or building block). */
  culprits: string;
}
const UNNAMED: NameJudgement = { verdict: 'none', comments: false, culprits: '' };

/**
 * What an element's names say, judged once per distinct id, class and itemprop: a page repeats a
 * few class names on thousands of elements, and each judgement splits the names into words
 * and tests every word against every boilerplate prefix.
 */
function judgeElement(el: Element, judged: Map<string, NameJudgement>): NameJudgement {
  const key = nameKey(el);
  if (!key) return UNNAMED;
  let judgement = judged.get(key);
  if (!judgement) {
    const tokens = nameTokens(el);
    judgement = {
      verdict: judgeName(tokens),
      comments: tokens.some((words) => words.some((w) => COMMENT_NAME.test(w) && !NOT_BOILERPLATE.test(w))),
      culprits: tokens
        .filter(isBoilerplateToken)
        .map((words) => words.join('-'))
        .join(' '),
    };
    judged.set(key, judgement);
  }
  return judgement;
}

/**
 * The names without their variants: a BEM modifier ("c-product-widget--big", read as
 * c-product-widget-big) names a variant of a block whose name stands beside it, so a big
 * widget and a plain one are one kind of element. Only on articles (sectionKey): on service
 * pages the variants of a band are told apart as before.
 */
function withoutVariants(names: readonly string[]): string[] {
  return [...new Set(names)].filter((name) => !names.some((other) => other !== name && name.startsWith(`${other}-`)));
}

/** The key an element's boilerplate names group it under: on articles (sectionsOnly), without their variants. */
function sectionKey(culprits: string, sectionsOnly: boolean): string {
  return sectionsOnly ? withoutVariants(culprits.split(' ')).join(' ') : culprits;
}

/** An element's id, class and itemprop as one key ('' when it has none): what its judgement depends on. */
function nameKey(el: Element): string {
  const id = namingId(el);
  const cls = classOf(el);
  const prop = el.getAttribute('itemprop');
  return id || cls || prop ? `${id ?? ''} ${cls ?? ''} ${prop ?? ''}` : '';
}

/** A page's building block is repeated: at least this many elements share its name. */
const MIN_BLOCK_REPEATS = 3;

/**
 * The boilerplate-reading names (NameJudgement.culprits) that the page builds its text from, though they read as boilerplate: a
 * name carried by MIN_BLOCK_REPEATS elements or more that hold together TEXT_BLOCK_SHARE of
 * the page's text with little link text. A widget (a share bar, a byline, a newsletter box)
 * stands once or twice on a page and is short; a CMS that calls each band of a service page
 * a "meta-block-section" or each feature a "modal-link" repeats that name down the page, and
 * its bands are the page. Only on pages built of sections (the caller's keepBuildingBlocks:
 * services, docs): on an article the repeated names that hold much text are its sidebar's
 * widgets and its small print, which are boilerplate. Comment threads never are building blocks.
 */
function buildingBlocks(root: Element, stats: Map<Element, TextStats>, total: number, judged: Map<string, NameJudgement>, sectionsOnly = false): Set<string> {
  const groups = new Map<string, { count: number; text: number; link: number; members: Element[]; last?: Element }>();
  for (const el of walkElements(root)) {
    const { verdict, comments, culprits } = judgeElement(el, judged);
    if (comments || (verdict !== 'boilerplate' && verdict !== 'mixed')) continue;
    const key = sectionKey(culprits, sectionsOnly);
    const s = stats.get(el);
    const group = groups.get(key) ?? { count: 0, text: 0, link: 0, members: [] };
    // Counted once: an element inside one of the same name (the walk is in document order).
    if (group.last?.contains(el)) continue;
    group.last = el;
    group.count++;
    if (sectionsOnly) group.members.push(el);
    group.text += s?.text ?? 0;
    group.link += s?.link ?? 0;
    groups.set(key, group);
  }
  const blocks = new Set<string>();
  for (const [key, g] of groups) {
    if (!(g.count >= MIN_BLOCK_REPEATS && total && g.text / total >= TEXT_BLOCK_SHARE && linkDensity(g) < TEXT_BLOCK_MAX_LINK_DENSITY)) continue;
    // Asked last, and only of the few groups that hold the text (nothing has moved since the walk): three selector walks per element.
    if (sectionsOnly && g.members.filter(isProseSection).length < PROSE_SECTIONS_SHARE * g.count) continue;
    blocks.add(key);
  }
  return blocks;
}

/**
 * On an article, a repeated name holding much text is a building block only when its
 * elements are sections of the article: at least this share of them holds a heading and a
 * paragraph (a review list's product sections, a guide's chapters). The article's sidebar
 * widgets and small print, which repeat their names too, are lists of links or lines
 * without headings.
 */
const PROSE_SECTIONS_SHARE = 0.5;
const SECTION_HEADINGS = 'h2, h3, h4, h5, h6';

/**
 * A heading and a paragraph of prose under it: a section of the text, not a widget. A
 * heading that is a link heads a teaser of another page (a "next post" card with its
 * excerpt), not a section of this one.
 */
function isProseSection(el: Element): boolean {
  const heading = el.querySelector(SECTION_HEADINGS);
  return heading !== null && heading.querySelector('a') === null && heading.closest('a') === null && el.querySelector('p') !== null;
}

/** judgeElement's judgements, kept from page to page (a judgement depends on the names alone; a site's pages share them). */
const judgedNames = new Map<string, NameJudgement>();

export interface BoilerplateRemoval {
  /** How many elements were removed. */
  removed: number;
}

/**
 * Removes boilerplate by name and by tag from `root`. A big element (over BIG_SHARE of the
 * text) survives when its name also says content or it holds the page's <h1> or article
 * body: a wrapper called "page has-sidebar" is the page, not a sidebar. With
 * keepBuildingBlocks, so does every element of a repeated name the page is built of (buildingBlocks).
 */
export function removeBoilerplateByName(root: Element, options: { keepBuildingBlocks?: boolean | 'sections' } = {}): BoilerplateRemoval {
  const stats = textStats(root);
  const total = stats.get(root)?.text ?? 0;
  let removed = 0;
  if (judgedNames.size >= MAX_REMEMBERED_NAMES) judgedNames.clear();
  const judged = judgedNames;
  const sectionsOnly = options.keepBuildingBlocks === 'sections';
  const blocks = options.keepBuildingBlocks ? buildingBlocks(root, stats, total, judged, sectionsOnly) : new Set<string>();
  /** The last section kept as a building block (sections only), and its name: its parts are kept with it. */
  let kept: { el: Element; name: string } | undefined;
  // A removed element's subtree is not visited (walkElements skips detached elements).
  for (const el of walkElements(root)) {
    if (NEVER.has(el.nodeName)) continue;
    const judgement = judgeElement(el, judged);
    const { verdict, comments } = judgement;
    const byTag = CHROME_TAGS.has(el.nodeName);
    if (verdict === 'content' || (!byTag && verdict === 'none')) continue;
    if (isLinkInRunningText(el)) continue;
    const s = stats.get(el);
    const share = total && s ? s.text / total : 0;
    const density = linkDensity(s);
    if (verdict === 'mixed' && (s?.text ?? 0) >= MIXED_MIN_TEXT && density < MIXED_MAX_LINK_DENSITY) continue;
    if (!comments && share >= TEXT_BLOCK_SHARE && density < TEXT_BLOCK_MAX_LINK_DENSITY) continue;
    const culprits = sectionKey(judgement.culprits, sectionsOnly);
    if (!comments && blocks.has(culprits)) {
      if (sectionsOnly) kept = { el, name: culprits };
      continue;
    }
    // A section's own parts (BEM's block__element: "c-product-widget__content" in "c-product-widget") are the section.
    if (kept?.el.contains(el) && culprits.split(' ').every((name) => name.startsWith(`${kept!.name}-`))) continue;
    // The page's title heading is never inside a widget: a wrapper holding an <h1> ("title-rating-wrapper",
    // a breadcrumb ending in the headline) is misnamed, and taking it would take the title and its lead.
    if (el.querySelector('h1')) continue;
    if (share > BIG_SHARE && el.querySelector('[itemprop="articleBody"], article, main')) continue;
    el.remove();
    removed++;
  }
  return { removed };
}
