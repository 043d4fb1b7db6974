// Page metadata read from the head (and the few body elements that carry it), before any
// clean-up touches the document. Every field is cheap: one pass over <meta> and <link>.
//
// Fields (PageMetadata is open, so the extras travel with it):
//   title          <title>, else og:title, else twitter:title, else the first <h1>; '' if none
//   description    <meta name=description>, else og:description, else twitter:description; ''
//   language       <html lang>, else <meta http-equiv=content-language>, else og:locale (en_US -> en-US)
//   canonicalUrl   <link rel=canonical>, absolute
//   sourceUrl      the URL the page was fetched from (after redirects)
//   statusCode     the HTTP status of the main document, when the fetcher knew it
//   siteName       og:site_name, else application-name
//   ogTitle, ogDescription   the Open Graph values when they exist (they often differ from <title>)
//   image          og:image, else twitter:image, absolute
//   author         <meta name=author>, else article:author when it is not a URL
//   publishedTime  article:published_time, else og:published_time / date meta tags
//   modifiedTime   article:modified_time, else og:updated_time
//   keywords       <meta name=keywords>
//   robots         <meta name=robots>
//   favicon        <link rel=icon> (or shortcut icon / apple-touch-icon), absolute
//   type           og:type
//   dir            <html dir> (ltr / rtl)
import type { PageMetadata } from '../../../shared/src/events/common.js';
import { resolveHttpUrl } from './dom.js';

export interface MetadataContext {
  /** Page URL after redirects (reported as sourceUrl). */
  url: string;
  /** Base for relative URLs (<base href> or the page URL). */
  base: URL;
  statusCode?: number;
}

export function extractMetadata(document: Document, context: MetadataContext): PageMetadata {
  const meta = readMetaTags(document);
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
  const titleElement = document.querySelector('head > title') ?? document.querySelector('title:not(svg title)');
  const title =
    clean(titleElement?.textContent) || first('og:title', 'twitter:title') || clean(document.querySelector('h1')?.textContent) || '';
  const description = first('description', 'og:description', 'twitter:description') ?? '';
  const language = clean(html?.getAttribute('lang')) || first('content-language') || localeToLanguageTag(first('og:locale'));
  const author = first('author') ?? nonUrl(first('article:author'));

  const result: PageMetadata = {
    title,
    description,
    sourceUrl: context.url,
    ...(context.statusCode !== undefined ? { statusCode: context.statusCode } : {}),
  };
  const extras: Record<string, string | undefined> = {
    language,
    canonicalUrl: absolute(linkHref(document, 'canonical')),
    siteName: first('og:site_name', 'application-name'),
    ogTitle: first('og:title'),
    ogDescription: first('og:description'),
    image: absolute(first('og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src')),
    author,
    publishedTime: first('article:published_time', 'og:published_time', 'datepublished', 'date', 'dc.date', 'pubdate'),
    modifiedTime: first('article:modified_time', 'og:updated_time', 'datemodified', 'last-modified'),
    keywords: first('keywords', 'news_keywords'),
    robots: first('robots'),
    favicon: absolute(linkHref(document, 'icon') ?? linkHref(document, 'shortcut icon') ?? linkHref(document, 'apple-touch-icon')),
    type: first('og:type'),
    dir: clean(html?.getAttribute('dir')) || undefined,
  };
  for (const [key, value] of Object.entries(extras)) {
    if (value) (result as Record<string, unknown>)[key] = value;
  }
  return result;
}

/** name / property / http-equiv / itemprop (lower-cased) -> content; the first occurrence wins. */
function readMetaTags(document: Document): Map<string, string> {
  const tags = new Map<string, string>();
  for (const el of document.querySelectorAll('meta[content]')) {
    const content = clean(el.getAttribute('content'));
    if (!content) continue;
    for (const attribute of ['name', 'property', 'http-equiv', 'itemprop']) {
      const key = el.getAttribute(attribute)?.trim().toLowerCase();
      if (key && !tags.has(key)) tags.set(key, content);
    }
  }
  return tags;
}

/** href of the first <link> whose rel list contains `rel` (a multi-word rel must match exactly). */
function linkHref(document: Document, rel: string): string | undefined {
  for (const el of document.querySelectorAll('link[rel][href]')) {
    const rels = (el.getAttribute('rel') ?? '').toLowerCase().trim();
    if (rel.includes(' ') ? rels === rel : rels.split(/\s+/).includes(rel)) return el.getAttribute('href') ?? undefined;
  }
  return undefined;
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
