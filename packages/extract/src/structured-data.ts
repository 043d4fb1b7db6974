// metadata.structured: the structured data a page publishes for machines, read from the
// whole rendered document (not the main content) before any clean-up removes scripts.
//
//   {
//     jsonLd:    [ ...each <script type="application/ld+json"> block, parsed; a block that
//                  is a top-level array gives its elements ],
//     openGraph: { "og:title": "...", "og:image": ["a.jpg", "b.jpg"], "article:author": ... },
//     twitter:   { "twitter:card": "summary_large_image", ... },
//     microdata: [ { type: [...], id?, properties: { name: [values] } } ]   (microdata.ts)
//     truncated?: true
//   }
//
// Decisions (docs/api.md "metadata.structured"):
//   - present only when the page has at least one of the four; then all four keys are there
//     (empty [] / {}), so clients index without checking;
//   - Open Graph and Twitter keys are the property names as published (lower-cased), which
//     keeps the og:, article:, product:, book:, profile:, music:, video: and fb: namespaces
//     apart; a property given once is a string, repeated (og:image) an array in page order;
//     relative og:image / og:url / twitter:image values are made absolute;
//   - metadata rides on page_completed events (NATS messages of at most 1 MiB), so the whole
//     object is bounded to MAX_STRUCTURED_BYTES of JSON: past it, JSON-LD blocks and then
//     microdata items are kept in page order while they fit (see bound), and
//     `truncated: true` says so (the full data is still in rawHtml).
import { jsonLdBlocks } from './json-ld.js';
import { readMicrodata, type MicrodataItem } from './microdata.js';
import { resolveHttpUrl } from './dom.js';
import { pageElements, type PageElements } from './page-elements.js';

export interface StructuredData {
  jsonLd: unknown[];
  openGraph: Record<string, string | string[]>;
  twitter: Record<string, string | string[]>;
  microdata: MicrodataItem[];
  truncated?: true;
}

export const MAX_STRUCTURED_BYTES = 64 * 1024;
/** Per value of a meta tag: a longer one is cut (no real og:description comes close). */
const MAX_META_CHARS = 2000;
const MAX_META_PROPERTIES = 200;

const OG_NAMESPACES = /^(og|article|product|book|profile|music|video|fb|place|business|restaurant):/;
const URL_PROPERTIES = new Set(['og:url', 'og:image', 'og:image:url', 'og:image:secure_url', 'og:video', 'og:video:url', 'og:video:secure_url', 'og:audio', 'og:audio:url', 'og:audio:secure_url', 'twitter:image', 'twitter:image:src', 'twitter:player']);

export function readStructuredData(document: Document, base: URL, jsonLd: unknown[] = jsonLdBlocks(document), elements: PageElements = pageElements(document)): StructuredData | undefined {
  const { openGraph, twitter } = readMetaProperties(elements, base);
  const data: StructuredData = {
    jsonLd: jsonLd.flatMap((block) => (Array.isArray(block) ? block : [block])),
    openGraph,
    twitter,
    microdata: readMicrodata(document, base, elements),
  };
  const empty = data.jsonLd.length === 0 && data.microdata.length === 0 && Object.keys(openGraph).length === 0 && Object.keys(twitter).length === 0;
  return empty ? undefined : bound(data, MAX_STRUCTURED_BYTES);
}

function readMetaProperties(elements: PageElements, base: URL) {
  const openGraph: Record<string, string | string[]> = {};
  const twitter: Record<string, string | string[]> = {};
  let count = 0;
  for (const meta of elements.head) {
    if (meta.localName !== 'meta' || !(meta.hasAttribute('property') || meta.hasAttribute('name'))) continue;
    // Open Graph is specified with `property`, Twitter with `name`; pages mix both up.
    const key = (meta.getAttribute('property') || meta.getAttribute('name') || '').trim().toLowerCase();
    const target = OG_NAMESPACES.test(key) ? openGraph : key.startsWith('twitter:') ? twitter : undefined;
    const raw = meta.getAttribute('content')?.replace(/\s+/g, ' ').trim();
    if (!target || !raw || ++count > MAX_META_PROPERTIES) continue;
    const value = URL_PROPERTIES.has(key) ? (resolveHttpUrl(raw, base)?.href ?? raw) : raw.slice(0, MAX_META_CHARS);
    const existing = target[key];
    if (existing === undefined) target[key] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else if (existing !== value) target[key] = [existing, value];
  }
  return { openGraph, twitter };
}

function size(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * The data cut to `maxBytes` of JSON: JSON-LD blocks, then microdata items, are kept in page
 * order while they fit (one huge block gives way, the small ones after it stay); Open Graph
 * and Twitter go too only if they alone do not fit.
 */
export function bound(data: StructuredData, maxBytes: number): StructuredData {
  if (size(data) <= maxBytes) return data;
  const out: StructuredData = { jsonLd: [], openGraph: data.openGraph, twitter: data.twitter, microdata: [], truncated: true };
  let total = size(out);
  if (total > maxBytes) {
    out.openGraph = {};
    out.twitter = {};
    total = size(out);
  }
  const keep = <T>(from: T[], into: T[]): void => {
    for (const item of from) {
      const bytes = size(item) + 1;
      if (total + bytes > maxBytes) continue;
      into.push(item);
      total += bytes;
    }
  };
  keep(data.jsonLd, out.jsonLd);
  keep(data.microdata, out.microdata);
  return out;
}
