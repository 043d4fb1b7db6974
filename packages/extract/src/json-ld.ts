// Schema.org JSON-LD (<script type="application/ld+json">): the structured data news and blog
// CMSs publish for search engines. It fills the metadata fields that <meta> and OpenGraph
// leave empty (author, dates and language most often). Read before the clean-up removes scripts.
import { pageElements, type PageElements } from './page-elements.js';

export interface JsonLdFacts {
  headline?: string;
  description?: string;
  author?: string;
  publishedTime?: string;
  modifiedTime?: string;
  language?: string;
  url?: string;
  siteName?: string;
}

/** Types of the node that describes the page itself (the article), best first. */
const PAGE_TYPES = ['NewsArticle', 'ReportageNewsArticle', 'AnalysisNewsArticle', 'OpinionNewsArticle', 'Article', 'BlogPosting', 'SocialMediaPosting', 'TechArticle', 'ScholarlyArticle', 'Report', 'Recipe', 'Review', 'Product', 'Event', 'WebPage', 'ItemPage', 'AboutPage', 'FAQPage', 'QAPage'];

/** Facts from the page's JSON-LD; a block that is not valid JSON is skipped (pages ship broken ones). */
export function readJsonLd(document: Document, blocks: unknown[] = jsonLdBlocks(document)): JsonLdFacts {
  const nodes: Record<string, unknown>[] = [];
  for (const block of blocks) collect(block, nodes, 0);
  const page = pickPageNode(nodes);
  if (!page) return {};
  const publisher = asObject(page.publisher);
  return prune({
    headline: text(page.headline) ?? text(page.name),
    description: text(page.description),
    author: names(page.author) ?? names(page.creator),
    publishedTime: text(page.datePublished) ?? text(page.dateCreated) ?? text(page.uploadDate),
    modifiedTime: text(page.dateModified),
    language: text(page.inLanguage) ?? text(asObject(page.inLanguage)?.alternateName),
    url: text(page.url) ?? text(asObject(page.mainEntityOfPage)?.['@id']) ?? text(page.mainEntityOfPage),
    siteName: text(publisher?.name) ?? nodes.map((n) => (hasType(n, 'WebSite') ? text(n.name) : undefined)).find(Boolean),
  });
}

/**
 * The page's JSON-LD blocks, parsed, in page order (metadata.structured.jsonLd and the
 * facts above). A block that is not valid JSON is skipped (pages ship broken ones).
 */
export function jsonLdBlocks(document: Document, elements: PageElements = pageElements(document)): unknown[] {
  const blocks: unknown[] = [];
  for (const script of elements.jsonLd) {
    try {
      blocks.push(JSON.parse(script.textContent ?? ''));
    } catch {
      // Invalid JSON-LD: ignored, as search engines do.
    }
  }
  return blocks;
}

const MAX_DEPTH = 4;

/** Every node of the blocks (arrays and @graph containers flattened), in page order. */
export function jsonLdNodes(blocks: unknown[]): Record<string, unknown>[] {
  const nodes: Record<string, unknown>[] = [];
  for (const block of blocks) collect(block, nodes, 0);
  return nodes;
}

/** Flattens arrays and @graph containers into a list of nodes. */
function collect(value: unknown, out: Record<string, unknown>[], depth: number): void {
  if (depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const item of value) collect(item, out, depth + 1);
    return;
  }
  const node = asObject(value);
  if (!node) return;
  out.push(node);
  if (node['@graph']) collect(node['@graph'], out, depth + 1);
}

function pickPageNode(nodes: Record<string, unknown>[]): Record<string, unknown> | undefined {
  for (const type of PAGE_TYPES) {
    const node = nodes.find((n) => hasType(n, type));
    if (node) return node;
  }
  return undefined;
}

function hasType(node: Record<string, unknown>, type: string): boolean {
  const value = node['@type'];
  return Array.isArray(value) ? value.includes(type) : value === type;
}

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const clean = value.replace(/\s+/g, ' ').trim();
  return clean || undefined;
}

/** Author as "A, B": a string, a Person/Organization node, or a list of them. URLs are not names. */
function names(value: unknown): string | undefined {
  const list = (Array.isArray(value) ? value : [value])
    .map((v) => text(v) ?? text(asObject(v)?.name))
    .filter((v): v is string => !!v && !/^https?:\/\//i.test(v));
  return list.length ? [...new Set(list)].join(', ') : undefined;
}

function prune(facts: JsonLdFacts): JsonLdFacts {
  return Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== undefined)) as JsonLdFacts;
}
