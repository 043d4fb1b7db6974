// The MCP tools. Each has two schemas from the same source, the API contract (shared/src/api):
// - `validate`: the contract. Everything the API takes except what a model cannot use
//   (custom headers, browser actions, screenshot options, webhooks), plus the paging fields
//   (`cursor`, `maxChars`, `waitSeconds`); unknown arguments are refused by it, so nothing
//   outside the listed schema reaches the API.
// - `listed`: what tools/list shows, sized for a model's context (issue 24: under 12 KB in
//   all): every property described in a line, the extraction schema in a paragraph with one
//   example instead of its 8 KB unrolled JSON Schema, and crawl's scrapeOptions and batch's
//   page options pointing at scrape's instead of repeating them. The property names and
//   required ones are validate's (a test holds them equal); bounds, enums and defaults stay.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  BatchScrapeRequestSchema, CrawlRequestSchema, MapRequestSchema, ScrapeOptionsSchema, ScrapeRequestSchema,
} from '../../shared/src/api/index.js';

export const PAGING = { defaultMaxChars: 20_000, maxMaxChars: 200_000, mapPageSize: 500 } as const;

export const SERVER_INSTRUCTIONS = [
  'Trawl reads web pages, rendered in a real browser, as clean markdown.',
  'A page you know: scrape. Finding pages: map (all URLs of a site) or search_site (URLs with given words).',
  'Many pages: batch_scrape (your list of URLs) or crawl_start (follows links), then crawl_status and crawl_results.',
  'Structured data: scrape with formats ["extract"] and an extract schema of CSS selectors.',
  'An answer longer than maxChars ends with a cursor: call the same tool with it to read on.',
  'Failures are tool errors that start with a code (INVALID_URL, PAGE_TIMEOUT, RATE_LIMITED...).',
].join(' ');

const Strict = { additionalProperties: false } as const;
const Cursor = Type.Optional(Type.String({ maxLength: 4096, description: 'From a truncated answer: read on from there' }));
const MaxChars = Type.Optional(Type.Integer({ minimum: 1000, maximum: PAGING.maxMaxChars, default: PAGING.defaultMaxChars, description: 'Longest text in one answer; the rest behind a cursor' }));
const WaitSeconds = (dflt: number): TSchema => Type.Optional(Type.Integer({ minimum: 0, maximum: 60, default: dflt, description: 'Wait this long for the job to end before answering' }));
const JobId = Type.String({ minLength: 1, maxLength: 64, description: 'The id the start tool answered' });

/**
 * Scrape options a model cannot use: custom headers, browser actions, screenshot options
 * (the MCP asks for base64); and `conditional`, whose default (a 304 reuses the key's last
 * result) is what a model wants, left out to keep tools/list within its budget.
 */
const MODEL_OMITS = ['headers', 'actions', 'screenshotOptions', 'conditional'] as const;
const PageOptions = Type.Omit(ScrapeOptionsSchema, [...MODEL_OMITS], Strict);

const EXTRACT_TEXT = 'Structured JSON picked out by CSS selectors, without an LLM (needs "extract" in formats). '
  + 'schema: {baseSelector?, maxItems?, fields}; a field is {selector?, type?, attribute?, list?, required?, default?, maxItems?, fields?}. '
  + 'type: text (default), html, attribute, url (absolute link), number, boolean (matched?) or object (its own fields). '
  + 'list: every match as an array. baseSelector: json is a list, one object per match. Example: '
  + '{"schema":{"baseSelector":".product","fields":{"name":{"selector":"h2"},"price":{"selector":".price","type":"number"},'
  + '"link":{"selector":"a","type":"url"},"tags":{"selector":".tag","list":true}}}}';

/** One line per page option, shown on scrape (crawl_start and batch_scrape point at it). */
const PAGE_OPTION_TEXT: Record<string, string> = {
  formats: 'What to return: markdown, html (cleaned), rawHtml, links, screenshot (an image), extract (json, see extract), changeTracking (diff with your last scrape of the URL)',
  onlyMainContent: 'Only the main content, without navigation, header and footer',
  includeTags: 'CSS selectors: keep only these elements',
  excludeTags: 'CSS selectors: drop these elements',
  viewport: 'Browser window in pixels',
  'viewport.width': 'Pixels',
  'viewport.height': 'Pixels',
  mobile: 'Render as a phone',
  device: 'Render as this kind of device',
  darkMode: 'Prefer a dark color scheme',
  waitFor: 'Before reading: wait this many ms, or until this CSS selector appears',
  timeout: 'Milliseconds before the page fails with PAGE_TIMEOUT',
  parsers: 'Documents turned into markdown (default both); false: only metadata and a link',
  maxPages: 'Documents: read at most this many pages',
  engine: 'browser: Chromium; http: one GET, fast, no screenshot/waitFor/darkMode/viewport; auto: http when it gives the same page',
  changeTrackingOptions: 'With the changeTracking format',
  'changeTrackingOptions.tag': 'Compare only with earlier scrapes that named this tag',
  acceptOutcomes: 'Take these page outcomes as content instead of failing (challenge, blocked, empty…)',
  consent: 'Click a cookie dialog\'s reject (or accept) button first',
};

/**
 * batch_scrape's page options are scrape's, described there once: here each is only its
 * JSON type and a pointer (validate still checks them whole).
 */
const AS_IN_SCRAPE: Record<string, object> = Object.fromEntries(Object.entries(PageOptions.properties).map(([key, schema]) => {
  const type = (schema as { type?: unknown }).type;
  return [key, { ...(typeof type === 'string' ? { type } : {}), description: key === 'extract' ? 'As in scrape (with "extract" in formats)' : 'As in scrape' }];
}));

const EXTRACT_LISTED = {
  type: 'object', description: EXTRACT_TEXT, required: ['schema'],
  properties: { schema: { type: 'object', description: 'baseSelector?, maxItems?, fields: {name: field}' } },
};

export interface ToolSpec {
  title: string;
  description: string;
  annotations: ToolAnnotations;
  /** The arguments the tool takes: unknown ones are refused (see the file's head). */
  validate: TObject;
  /** The schema shown in tools/list. */
  listed: Record<string, unknown> & { type: 'object' };
}

/** Keywords tools/list leaves out: closed objects, lengths and formats are enforced by `validate` (list bounds are in the descriptions where they matter). */
const UNLISTED = ['additionalProperties', 'format', 'minLength', 'maxLength', 'uniqueItems', 'minItems', 'maxItems'];

/**
 * The schema as tools/list shows it: plain JSON without TypeBox's symbols or the UNLISTED
 * keywords, each property's description from `text` (by dotted path) where given, and
 * `replace`d properties swapped whole.
 */
export function listedSchema(schema: TSchema, text: Record<string, string> = {}, replace: Record<string, object> = {}): ToolSpec['listed'] {
  const walk = (node: Record<string, unknown>, at: string): void => {
    for (const key of UNLISTED) delete node[key];
    for (const sub of [node.items, ...(Array.isArray(node.anyOf) ? node.anyOf : [])]) {
      if (sub && typeof sub === 'object') walk(sub as Record<string, unknown>, at);
    }
    const props = node.properties as Record<string, Record<string, unknown>> | undefined;
    for (const [key, value] of Object.entries(props ?? {})) {
      const p = at ? `${at}.${key}` : key;
      if (replace[p]) { props![key] = structuredClone(replace[p]) as Record<string, unknown>; continue; }
      if (text[p]) value.description = text[p];
      walk(value, p);
    }
  };
  const json = JSON.parse(JSON.stringify(schema)) as ToolSpec['listed'];
  walk(json, '');
  return json;
}

const READ_WEB: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
const READ_JOB: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

const scrapeValidate = Type.Composite([Type.Omit(ScrapeRequestSchema, [...MODEL_OMITS]), Type.Object({ cursor: Cursor, maxChars: MaxChars })], Strict);
const mapValidate = Type.Composite([MapRequestSchema, Type.Object({ cursor: Cursor })], Strict);
const searchValidate = Type.Composite([
  Type.Pick(MapRequestSchema, ['url', 'includeSubdomains', 'ignoreSitemap']),
  Type.Object({
    search: Type.String({ minLength: 1, maxLength: 1000, description: 'Words the URL must contain (case-insensitive)' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 20, description: 'How many matches to return' })),
  }),
], Strict);
const crawlValidate = Type.Composite([
  Type.Omit(CrawlRequestSchema, ['webhookUrl', 'scrapeOptions']),
  Type.Object({ scrapeOptions: Type.Optional(PageOptions) }),
], Strict);
const batchValidate = Type.Composite([
  Type.Omit(BatchScrapeRequestSchema, [...MODEL_OMITS, 'webhookUrl']),
  Type.Object({ waitSeconds: WaitSeconds(30), maxChars: MaxChars }),
], Strict);
const resultsValidate = Type.Object({ id: JobId, cursor: Cursor, maxChars: MaxChars, waitSeconds: WaitSeconds(20) }, Strict);

const CRAWL_TEXT: Record<string, string> = {
  url: 'Where the crawl starts, an http(s) URL',
  maxDepth: 'Links followed from the start page at most',
  limit: 'Pages scraped at most, the start page included',
  includePaths: 'Only URLs whose path matches one of these regular expressions',
  excludePaths: 'No URL whose path matches one of these regular expressions',
  allowExternalLinks: 'Follow links to other sites too',
  ignoreRobots: 'Crawl pages that robots.txt disallows',
};

export const TOOLS = {
  scrape: {
    title: 'Scrape a page',
    description: 'Read one web page you have the URL of: its content as markdown by default, or other formats (links, html, a screenshot, '
      + 'structured JSON by CSS selectors, changes since your last scrape). A long answer is cut; call again with its cursor to read on.',
    annotations: READ_WEB,
    validate: scrapeValidate,
    listed: listedSchema(scrapeValidate, { url: 'The page, an http(s) URL', ...PAGE_OPTION_TEXT }, { extract: EXTRACT_LISTED }),
  },
  map: {
    title: 'List the URLs of a site',
    description: "List a website's URLs (from its sitemaps, else a short crawl), to choose pages to scrape. Paged by a cursor.",
    annotations: READ_WEB,
    validate: mapValidate,
    listed: listedSchema(mapValidate),
  },
  search_site: {
    title: 'Find pages of a site',
    description: "Find a website's pages whose URL contains every word of search, best first. Use it instead of map when you look for one topic.",
    annotations: READ_WEB,
    validate: searchValidate,
    listed: listedSchema(searchValidate),
  },
  crawl_start: {
    title: 'Start a crawl',
    description: 'Start crawling a website from a URL, following its links breadth first (up to limit pages, maxDepth links deep), for when '
      + 'you need many pages of one site. Answers the crawl id at once: follow it with crawl_status, read the pages with crawl_results.',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    validate: crawlValidate,
    listed: listedSchema(crawlValidate, CRAWL_TEXT, {
      scrapeOptions: {
        type: 'object',
        description: 'Options for every page: the scrape tool\'s arguments except url, cursor and maxChars, e.g. {"formats":["markdown","links"],"onlyMainContent":false}',
      },
    }),
  },
  crawl_status: {
    title: 'Crawl progress',
    description: "A crawl's progress (pages done, failed, in all); waits up to waitSeconds for it to finish.",
    annotations: READ_JOB,
    validate: Type.Object({ id: JobId, waitSeconds: WaitSeconds(20) }, Strict),
    listed: listedSchema(Type.Object({ id: JobId, waitSeconds: WaitSeconds(20) })),
  },
  crawl_results: {
    title: 'Crawl pages',
    description: "A crawl's pages as markdown, paged by a cursor; waits up to waitSeconds for it to finish first.",
    annotations: READ_JOB,
    validate: resultsValidate,
    listed: listedSchema(resultsValidate),
  },
  crawl_cancel: {
    title: 'Cancel a crawl',
    description: 'Stop a running crawl; the pages done so far stay readable with crawl_results.',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    validate: Type.Object({ id: JobId }, Strict),
    listed: listedSchema(Type.Object({ id: JobId })),
  },
  batch_scrape: {
    title: 'Scrape a list of URLs',
    description: 'Scrape 1-100 URLs you have, with the same options as scrape. Waits up to waitSeconds, then answers the pages (paged by a '
      + 'cursor), or the progress and the batch id for batch_results.',
    annotations: READ_WEB,
    validate: batchValidate,
    listed: listedSchema(batchValidate, {}, AS_IN_SCRAPE),
  },
  batch_results: {
    title: 'Batch pages',
    description: "A batch's pages as markdown, paged by a cursor; waits up to waitSeconds for it to finish.",
    annotations: READ_JOB,
    validate: resultsValidate,
    listed: listedSchema(resultsValidate),
  },
} satisfies Record<string, ToolSpec>;

export type ToolName = keyof typeof TOOLS;

/** Whether a tool has that name: own properties only, so `__proto__` or `toString` is no tool. */
export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);

/** tools/list's answer. */
export const listTools = (): { name: string; title: string; description: string; annotations: ToolAnnotations; inputSchema: ToolSpec['listed'] }[] =>
  Object.entries(TOOLS as Record<string, ToolSpec>).map(([name, t]) => ({ name, title: t.title, description: t.description, annotations: t.annotations, inputSchema: t.listed }));
