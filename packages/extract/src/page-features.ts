// The features of a whole page that the learned page-type classifier (page-type-model.ts)
// reads: what the URL and the host hint, what the page declares (JSON-LD types, og:type,
// generator), what the hand rules of page-type.ts say, and the page's shape counted in one
// walk over the untouched body (prose, headings, sections, lists, forms, prices, code,
// tables, dates, authors, links), outside the site chrome. Counts go in as log(1 + n) and
// lengths as shares, so that a long page and a short one of one kind read alike.
import { PAGE_TYPES as TYPES, type PageType } from './page-kinds.js';
import { isFrontPage } from './front-page.js';
import { namesPrice } from './card-page.js';
import { collapsedLength } from './text.js';
import { classOf } from './dom.js';

/** What the page's declarations and the hand rules said, computed by page-type.ts. */
export interface RuleSignals {
  url: string;
  /** Every JSON-LD @type on the page (its @graph and mainEntity too). */
  ldTypes: ReadonlySet<string>;
  /** The kind the JSON-LD names (page-type.ts LD_TYPES), if any. */
  ldType: PageType | undefined;
  ogType: string;
  generator: string;
  /** The kind of the URL path hint (page-type.ts URL_HINTS), if any. */
  urlHint: PageType | undefined;
  /** What the page says it is after JSON-LD, engines, og:type, URL and host (declaredPageType). */
  declared: PageType | undefined;
  /** The structural rules, each on its own. */
  thread: boolean;
  listing: boolean;
  sections: boolean;
  cards: 'listing' | 'collection' | undefined;
  docs: boolean;
}

const oneHot = (prefix: string, value: string | undefined): Array<[string, number]> => [...TYPES, 'none'].map((t) => [`${prefix}_${t}`, (value ?? 'none') === t ? 1 : 0]);

/** Path words by kind: a segment, or a word of one (split on - _ . and digits). */
const PATH_WORDS: Array<[string, RegExp]> = [
  ['story', /^(blog|blogs|news|article|articles|post|posts|story|stories|press|insights?|magazine|opinion|features)$/],
  ['docs', /^(docs?|documentation|api|reference|manual|guides?|tutorials?|kb|help|support|learn|wiki|faq|howto|library|sdk)$/],
  ['product', /^(products?|p|item|dp|pdp|sku|buy)$/],
  ['shop', /^(shop|store|collections?|category|categories|catalog|c|department|brands?|sale|deals)$/],
  ['forum', /^(forums?|threads?|topics?|t|discussions?|community|questions?|viewtopic|showthread|board|answers)$/],
  ['service', /^(services?|solutions?|pricing|plans?|features?|about|contact|industries|company|team|careers?|platform|why|customers?|partners?|enterprise)$/],
  ['index', /^(tags?|authors?|archives?|search|page|list|all|index|events|jobs|results)$/],
];
const HOST_WORDS: Array<[string, RegExp]> = [
  ['docs', /^(docs?|developers?|developer|help|support|learn|wiki|api|devdocs)$/],
  ['forum', /forum|^(community|discuss|discourse|bbs|answers|talk|boards)$/],
  ['shop', /^(shop|store)$|shop|store/],
  ['story', /^(blog|news|press|magazine)$/],
];
/** Class and id words of elements, by what they mark. */
const NAME_MARKS: Array<[string, RegExp]> = [
  ['author', /author|byline/i],
  ['comment', /comment/i],
  ['cart', /cart|basket|checkout|add-?to/i],
  ['breadcrumb', /breadcrumb/i],
  ['toc', /\btoc\b|table-of-contents|sidebar/i],
  ['post', /\b(post|entry|article)\b/i],
  ['thread', /thread|topic|reply|message/i],
  ['card', /card|tile|teaser|grid/i],
  ['hero', /hero|banner|cta|jumbotron/i],
];

const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'complementary']);
const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg']);
/** A paragraph of prose holds this many characters at least (page-type.ts's measure). */
const PROSE_CHARS = 150;
const COUNTED_TAGS = ['h1', 'h2', 'h3', 'h4', 'section', 'article', 'ul', 'ol', 'li', 'form', 'input', 'button', 'select', 'pre', 'code', 'table', 'time', 'img', 'dl', 'blockquote', 'iframe', 'video'] as const;

/** The shape of the body outside the site chrome, in one walk. */
interface Shape {
  text: number;
  chromeText: number;
  linkText: number;
  paragraphs: number;
  paragraphText: number;
  prose: number;
  proseText: number;
  liText: number;
  tags: Map<string, number>;
  marks: Map<string, number>;
  prices: number;
}

function measureShape(body: Element | null): Shape {
  const s: Shape = { text: 0, chromeText: 0, linkText: 0, paragraphs: 0, paragraphText: 0, prose: 0, proseText: 0, liText: 0, tags: new Map(), marks: new Map(), prices: 0 };
  // The walk carries the open paragraph and list item, whose text it sums.
  const walk = (el: Element, chrome: boolean, link: boolean, inP: boolean, inLi: boolean): number => {
    let own = 0;
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === 3) {
        const n = collapsedLength((child as Text).data);
        own += n;
        if (chrome) s.chromeText += n;
        else {
          s.text += n;
          if (link) s.linkText += n;
          if (inLi) s.liText += n;
        }
        continue;
      }
      if (child.nodeType !== 1) continue;
      const c = child as Element;
      const tag = c.localName;
      if (NOT_TEXT.has(tag)) continue;
      const isChrome = chrome || CHROME_TAGS.has(tag) || CHROME_ROLES.has(c.getAttribute('role') ?? '');
      if (!isChrome) {
        if (COUNTED_TAGS.includes(tag as (typeof COUNTED_TAGS)[number])) s.tags.set(tag, (s.tags.get(tag) ?? 0) + 1);
        const names = `${classOf(c)} ${c.id}`;
        if (names.length > 1) {
          for (const [mark, re] of NAME_MARKS) if (re.test(names)) s.marks.set(mark, (s.marks.get(mark) ?? 0) + 1);
          if (namesPrice(`${names} ${c.getAttribute('itemprop') ?? ''}`)) s.prices++;
        }
        if (c.getAttribute('rel') === 'author' || c.getAttribute('itemprop') === 'author') s.marks.set('author', (s.marks.get('author') ?? 0) + 1);
      }
      const n = walk(c, isChrome, link || tag === 'a', inP || tag === 'p', inLi || tag === 'li');
      own += n;
      if (tag === 'p' && !isChrome && !inP) {
        s.paragraphs++;
        s.paragraphText += n;
        if (n >= PROSE_CHARS) {
          s.prose++;
          s.proseText += n;
        }
      }
    }
    return own;
  };
  if (body) walk(body, false, false, false, false);
  return s;
}

function pathFeatures(url: string): Array<[string, number]> {
  let path = '';
  let host = '';
  let query = false;
  try {
    const u = new URL(url);
    path = decodeURIComponent(u.pathname).toLowerCase();
    host = u.hostname.toLowerCase().replace(/^www\./, '');
    query = u.search.length > 1;
  } catch {
    // no URL: its features stay 0
  }
  const segments = path.split('/').filter(Boolean);
  const last = segments.at(-1) ?? '';
  const words = new Set(segments.flatMap((seg) => [seg, ...seg.split(/[-_.\d]+/)]).filter(Boolean));
  const hostLabels = host.split('.');
  const out: Array<[string, number]> = [
    ['urlDepth', Math.min(segments.length, 8)],
    ['urlLastWords', Math.min(last.split(/[-_]+/).filter(Boolean).length, 20)],
    ['urlLastChars', Math.min(last.length, 120)],
    ['urlNumeric', segments.some((seg) => /\d{3,}/.test(seg)) ? 1 : 0],
    ['urlDate', /\/(19|20)\d{2}\/\d{1,2}(\/|$)|(19|20)\d{2}-\d{2}-\d{2}/.test(path) ? 1 : 0],
    ['urlHtml', /\.(s?html?|php|aspx?)$/.test(last) ? 1 : 0],
    ['urlQuery', query ? 1 : 0],
    ['urlFront', isFrontPage(url) ? 1 : 0],
    ['urlTrailingSlash', path.length > 1 && path.endsWith('/') ? 1 : 0],
    ['hostLabels', Math.min(hostLabels.length, 5)],
  ];
  for (const [name, re] of PATH_WORDS) out.push([`path_${name}`, [...words].some((w) => re.test(w)) ? 1 : 0]);
  for (const [name, re] of HOST_WORDS) out.push([`host_${name}`, hostLabels.slice(0, -1).some((l) => re.test(l)) ? 1 : 0]);
  return out;
}

/** The named features of a page, in a fixed order (FEATURE_NAMES). */
export function namedPageFeatures(document: Document, rules: RuleSignals): Array<[string, number]> {
  const s = measureShape(document.body);
  const tag = (t: string): number => Math.log1p(s.tags.get(t) ?? 0);
  const mark = (m: string): number => Math.log1p(s.marks.get(m) ?? 0);
  const text = s.text || 1;
  const og = rules.ogType.toLowerCase();
  const ld = (re: RegExp): number => ([...rules.ldTypes].some((t) => re.test(t)) ? 1 : 0);
  return [
    ...pathFeatures(rules.url),
    ...oneHot('ld', rules.ldType),
    ['ldOrganization', ld(/^(Organization|Corporation|LocalBusiness|WebSite)$/)],
    ['ldWebPage', ld(/^(WebPage|AboutPage|ContactPage)$/)],
    ['ldBreadcrumb', ld(/^BreadcrumbList$/)],
    ['ldFaq', ld(/^FAQPage$/)],
    ['ldPerson', ld(/^Person$/)],
    ['ldOffer', ld(/^(Offer|AggregateOffer|AggregateRating)$/)],
    ['ldAny', rules.ldTypes.size > 0 ? 1 : 0],
    ['ogArticle', og === 'article' ? 1 : 0],
    ['ogProduct', og.startsWith('product') ? 1 : 0],
    ['ogWebsite', og === 'website' ? 1 : 0],
    ['ogNone', og === '' ? 1 : 0],
    ['genWordpress', /wordpress/i.test(rules.generator) ? 1 : 0],
    ['genAny', rules.generator ? 1 : 0],
    ...oneHot('hint', rules.urlHint),
    ...oneHot('declared', rules.declared),
    ['ruleThread', rules.thread ? 1 : 0],
    ['ruleListing', rules.listing ? 1 : 0],
    ['ruleSections', rules.sections ? 1 : 0],
    ['ruleCards', rules.cards === 'collection' ? 2 : rules.cards === 'listing' ? 1 : 0],
    ['ruleDocs', rules.docs ? 1 : 0],
    ['logText', Math.log1p(s.text)],
    ['chromeShare', s.chromeText / (s.chromeText + s.text || 1)],
    ['linkDensity', s.linkText / text],
    ['paragraphs', Math.log1p(s.paragraphs)],
    ['paragraphShare', s.paragraphText / text],
    ['prose', Math.log1p(s.prose)],
    ['proseShare', s.proseText / text],
    ['meanParagraph', Math.log1p(s.paragraphs ? s.paragraphText / s.paragraphs : 0)],
    ['listItemShare', s.liText / text],
    ['headingsPerKChar', (1000 * ((s.tags.get('h2') ?? 0) + (s.tags.get('h3') ?? 0))) / text],
    ...COUNTED_TAGS.map((t): [string, number] => [`tag_${t}`, tag(t)]),
    ['prices', Math.log1p(s.prices)],
    ...NAME_MARKS.map(([m]): [string, number] => [`mark_${m}`, mark(m)]),
  ];
}

