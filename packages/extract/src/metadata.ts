// Page metadata read from the head (and the few body elements that carry it), before any
// clean-up touches the document. Every field is cheap: one pass over <meta> and <link>.
//
// Fields (PageMetadata is open, so the extras travel with it):
// Each field falls back to the page's schema.org JSON-LD (json-ld.ts) when the <meta> tags
// do not have it, except title and description, which keep the meaning the spec gives them
// (JSON-LD only fills them when the page has neither a <title>/meta nor an <h1>).
//
//   title          <title>, else og:title, else twitter:title, else the first <h1>, else the
//                  JSON-LD headline; '' if none.
//                  A <title> that is just the site name (= og:site_name) gives way to og:title.
//   description    <meta name=description>, else og:description, else twitter:description,
//                  else the JSON-LD description; ''
//   language       <html lang>, else <meta http-equiv=content-language>, else og:locale (en_US -> en-US),
//                  else JSON-LD inLanguage
//   canonicalUrl   <link rel=canonical>, else og:url, else the JSON-LD url, absolute
//   sourceUrl      the URL the page was fetched from (after redirects)
//   statusCode     the HTTP status of the main document, when the fetcher knew it
//   siteName       og:site_name, else application-name, else the JSON-LD publisher or WebSite name
//   ogTitle, ogDescription   the Open Graph values when they exist (they often differ from <title>)
//   image          og:image, else twitter:image, absolute
//   author         <meta name=author>, else article:author when it is not a URL, else the
//                  JSON-LD author(s) ("A, B")
//   publishedTime  article:published_time, else og:published_time / date meta tags, else JSON-LD datePublished
//   modifiedTime   article:modified_time, else og:updated_time, else JSON-LD dateModified
//   keywords       <meta name=keywords>
//   robots         <meta name=robots>
//   favicon        <link rel=icon> (or shortcut icon / apple-touch-icon), absolute
//   type           og:type
//   dir            <html dir> (ltr / rtl)
import type { MetadataExtras, ExtractMetadata } from './types.js';
import { resolveHttpUrl } from './dom.js';
import { pageElements, type PageElements } from './page-elements.js';
import { readJsonLd } from './json-ld.js';

export interface MetadataContext {
  /** Page URL after redirects (reported as sourceUrl). */
  url: string;
  /** Base for relative URLs (<base href> or the page URL). */
  base: URL;
  statusCode?: number;
  /** The page's parsed JSON-LD blocks, when the caller already has them (json-ld.ts jsonLdBlocks). */
  jsonLd?: unknown[];
  /** The page's elements of each kind, when the caller already walked the page for them. */
  elements?: PageElements;
}

export function extractMetadata(document: Document, context: MetadataContext): ExtractMetadata {
  const { meta, links, title: titleText } = survey(context.elements ?? pageElements(document));
  const first = (...keys: string[]): string | undefined => {
    for (const key of keys) {
      const value = meta.get(key);
      if (value) return value;
    }
    return undefined;
  };
  const absolute = (value: string | undefined): string | undefined =>
    value ? resolveHttpUrl(value, context.base)?.href : undefined;

  const html = document.documentElement;
  const ld = readJsonLd(document, context.jsonLd);
  const ogTitle = first('og:title', 'twitter:title');
  // A <title> that is only the site's name says nothing about the page: og:title does.
  const titleIsSiteName = !!titleText && titleText.toLowerCase() === first('og:site_name', 'application-name')?.toLowerCase();
  const title = (titleIsSiteName && ogTitle) || titleText || ogTitle || clean(document.querySelector('h1')?.textContent) || ld.headline || '';
  const description = first('description', 'og:description', 'twitter:description') ?? ld.description ?? '';
  const language = clean(html?.getAttribute('lang')) || first('content-language') || localeToLanguageTag(first('og:locale')) || ld.language;
  const author = first('author') ?? nonUrl(first('article:author')) ?? ld.author;

  const result: ExtractMetadata = {
    title,
    description,
    sourceUrl: context.url,
    ...(context.statusCode !== undefined ? { statusCode: context.statusCode } : {}),
  };
  const extras: Required<{ [K in Exclude<keyof MetadataExtras, 'extractionFallbacks' | 'structured' | 'extractTruncated' | 'pageType'> | 'language' | 'canonicalUrl']: string | undefined }> = {
    language,
    canonicalUrl: absolute(links.get('canonical') ?? first('og:url') ?? ld.url),
    siteName: first('og:site_name', 'application-name') ?? ld.siteName ?? splitTitle(titleText).site,
    ogTitle: first('og:title'),
    ogDescription: first('og:description'),
    image: absolute(first('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src')),
    author,
    publishedTime: first('article:published_time', 'og:published_time', 'datepublished', 'date', 'dc.date', 'dc.date.issued', 'pubdate') ?? ld.publishedTime,
    modifiedTime: first('article:modified_time', 'og:updated_time', 'datemodified', 'last-modified') ?? ld.modifiedTime,
    keywords: first('keywords', 'news_keywords'),
    robots: first('robots'),
    favicon: absolute(links.get('icon') ?? links.get('shortcut icon') ?? links.get('apple-touch-icon')),
    type: first('og:type'),
    dir: clean(html?.getAttribute('dir')) || undefined,
  };
  // Absent fields are left out rather than set to undefined (the metadata is stored as JSON).
  for (const key of Object.keys(extras) as Array<keyof typeof extras>) {
    const value = extras[key];
    if (value) result[key] = value;
  }
  return result;
}

interface Survey {
  /** name / property / http-equiv / itemprop (lower-cased) -> content; the first occurrence wins. */
  meta: Map<string, string>;
  /** rel value (lower-cased; also each word of a multi-word rel) -> href; the first wins. */
  links: Map<string, string>;
  /** The document's <title> (not an SVG <title>), whitespace collapsed. */
  title: string;
}

/** One walk over <meta>, <link> and <title> (pages put them in the body too). */
function survey(elements: PageElements): Survey {
  const meta = new Map<string, string>();
  const links = new Map<string, string>();
  let title = '';
  for (const el of elements.head) {
    if (el.nodeName === 'TITLE') {
      if (!title && !el.closest('svg')) title = clean(el.textContent);
    } else if (el.nodeName === 'META') {
      const content = clean(el.getAttribute('content'));
      if (!content) continue;
      for (const attribute of ['name', 'property', 'http-equiv', 'itemprop']) {
        const key = el.getAttribute(attribute)?.trim().toLowerCase();
        if (key && !meta.has(key)) meta.set(key, content);
      }
    } else {
      const rel = el.getAttribute('rel')?.trim().toLowerCase().replace(/\s+/g, ' ');
      const href = el.getAttribute('href')?.trim();
      if (!rel || !href) continue;
      for (const key of new Set([rel, ...rel.split(' ')])) if (!links.has(key)) links.set(key, href);
    }
  }
  return { meta, links, title };
}

function clean(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

function nonUrl(value: string | undefined): string | undefined {
  return value && !/^https?:\/\//i.test(value) ? value : undefined;
}

function localeToLanguageTag(locale: string | undefined): string | undefined {
  return locale ? locale.replace('_', '-') : undefined;
}

/**
 * Separators between a page's headline and its site's name in a <title>. Only the
 * unambiguous ones: a dash is as often part of a headline ("Brexit - what next") and is
 * split only when the site's name is known.
 */
const SITE_SEPARATOR = /\s+(?:\||::|·|»|\/\/)\s+/;
const ANY_SEPARATOR = /\s+(?:\||::|·|»|\/\/|-|–|—)\s+/;
/** A site name is a few words. */
const MAX_SITE_NAME = 40;

/**
 * A <title> split into the page's own headline and the site's name: "Introduction | Acme"
 * -> { heading: "Introduction", site: "Acme" }. With the site's name known (og:site_name),
 * it is cut from either end after any separator, dashes included; without it, the part
 * after the last '|', '::', '·' or '»' is the site when it is short. A title with no
 * separator is all heading.
 */
export function splitTitle(title: string, siteName?: string): { heading: string; site?: string } {
  const text = title.replace(/\s+/g, ' ').trim();
  const name = siteName?.replace(/\s+/g, ' ').trim().toLowerCase();
  if (name) {
    const parts = text.split(ANY_SEPARATOR);
    if (parts.length > 1 && parts[parts.length - 1]!.toLowerCase() === name) return { heading: rejoin(text, parts.length - 1, 'end'), site: parts[parts.length - 1]! };
    if (parts.length > 1 && parts[0]!.toLowerCase() === name) return { heading: rejoin(text, 1, 'start'), site: parts[0]! };
  }
  const match = [...text.matchAll(new RegExp(SITE_SEPARATOR.source, 'g'))].pop();
  if (!match || match.index === undefined) return { heading: text };
  const heading = text.slice(0, match.index).trim();
  const site = text.slice(match.index + match[0].length).trim();
  if (!heading || !site || site.length > MAX_SITE_NAME) return { heading: text };
  return { heading, site };
}

/** `text` without its first `n` separated parts ('start') or with only its first `n` ('end'). */
function rejoin(text: string, n: number, from: 'start' | 'end'): string {
  const seps = [...text.matchAll(new RegExp(ANY_SEPARATOR.source, 'g'))];
  if (from === 'end') return text.slice(0, seps[n - 1]!.index).trim();
  const sep = seps[n - 1]!;
  return text.slice(sep.index! + sep[0].length).trim();
}

