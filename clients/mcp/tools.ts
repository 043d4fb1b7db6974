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
  BatchScrapeRequestSchema, CrawlRequestSchema, MapRequestSchema, MonitorCreateBody, RecrawlBody, ScrapeOptionsSchema, ScrapeRequestSchema,
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
const MaxChars = Type.Optional(Type.Integer({ minimum: 1000, maximum: PAGING.maxMaxChars, default: PAGING.defaultMaxChars, description: 'Longest answer; the rest behind a cursor' }));
const WaitSeconds = (dflt: number): TSchema => Type.Optional(Type.Integer({ minimum: 0, maximum: 60, default: dflt, description: 'Seconds to wait for the job to end' }));
const JobId = Type.String({ minLength: 1, maxLength: 64, description: 'The id the start tool answered' });

/**
 * Scrape options a model cannot use: custom headers, browser actions, screenshot options
 * (the MCP asks for base64). Left out to keep tools/list within its budget: `conditional`,
 * whose default (a 304 reuses the key's last result) is what a model wants, and the
 * window's look (`viewport`, `darkMode`, and `mobile`, which `device` says too).
 */
const MODEL_OMITS = ['headers', 'actions', 'screenshotOptions', 'conditional', 'viewport', 'darkMode', 'mobile'] as const;
const PageOptions = Type.Omit(ScrapeOptionsSchema, [...MODEL_OMITS], Strict);

const EXTRACT_TEXT = 'JSON picked out by CSS selectors, no LLM (with "extract" in formats). '
  + 'schema: {baseSelector?, maxItems?, fields}; a field is {selector?, type?, attribute?, list?, required?, default?, maxItems?, fields?}. '
  + 'type: text (default), html, attribute, url, number, boolean (matched?) or object (own fields). '
  + 'list: all matches. baseSelector: a list, one object per match. Example: '
  + '{"schema":{"baseSelector":".product","fields":{"name":{"selector":"h2"},"price":{"selector":".price","type":"number"},'
  + '"link":{"selector":"a","type":"url"},"tags":{"selector":".tag","list":true}}}}';

/** One line per page option, shown on scrape (crawl_start and batch_scrape point at it). */
const PAGE_OPTION_TEXT: Record<string, string> = {
  formats: 'What to return; extract: see extract; changeTracking: the diff with your last scrape of the URL',
  onlyMainContent: 'Leave out navigation, header and footer',
  includeTags: 'CSS selectors: keep only these elements',
  excludeTags: 'CSS selectors: drop these elements',
  device: 'Render as this kind of device',
  waitFor: 'Wait this many ms, or for this CSS selector',
  timeout: 'Milliseconds before PAGE_TIMEOUT',
  parsers: 'Documents read as markdown; false: only metadata and a link',
  maxPages: 'Documents: pages read at most',
  engine: 'browser: Chromium; http: one GET, fast, no screenshot/waitFor; auto: http when it gives the same page',
  changeTrackingOptions: 'With the changeTracking format',
  'changeTrackingOptions.tag': 'Compare only with scrapes of this tag',
  acceptOutcomes: 'Outcomes taken as content, not failures',
  consent: 'Click a cookie dialog\'s reject (or accept) button first',
};

/** crawl_start's, batch_scrape's and monitor_create's page options are scrape's, described there once. */
const AS_IN_SCRAPE = {
  type: 'object',
  description: 'Scrape\'s options for every page (not url, cursor, maxChars), e.g. {"formats":["links"]}',
};

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
  Type.Pick(BatchScrapeRequestSchema, ['urls', 'ignoreInvalidUrls']),
  Type.Object({ scrapeOptions: Type.Optional(PageOptions), waitSeconds: WaitSeconds(30), maxChars: MaxChars }),
], Strict);
const resultsValidate = Type.Object({ id: JobId, cursor: Cursor, maxChars: MaxChars, waitSeconds: WaitSeconds(20) }, Strict);

const recrawlValidate = Type.Composite([
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, description: 'The finished crawl to run again' }) }),
  RecrawlBody,
  Type.Object({ report: Type.Optional(Type.Boolean({ default: false, description: 'true: id is a recrawl, read its report again' })) }),
], Strict);
const monitorValidate = Type.Composite([
  // The page formats go in scrapeOptions, as for crawl_start.
  Type.Omit(MonitorCreateBody, ['scrapeOptions', 'crawl', 'formats']),
  Type.Object({ crawl: Type.Optional(Type.Omit(CrawlRequestSchema, ['url', 'webhookUrl', 'scrapeOptions'], Strict)), scrapeOptions: Type.Optional(PageOptions) }),
], Strict);
const MonitorId = Type.String({ minLength: 1, maxLength: 64, description: 'A monitor\'s id' });

const CRAWL_TEXT: Record<string, string> = {
  url: 'Where the crawl starts, an http(s) URL',
  maxDepth: 'Links deep from the start page at most',
  limit: 'Pages at most, the start page included',
  includePaths: 'Only paths matching one of these regexes',
  excludePaths: 'No path matching one of these regexes',
  allowExternalLinks: 'Follow links to other sites too',
  ignoreRobots: 'Crawl pages that robots.txt disallows',
};

export const TOOLS = {
  scrape: {
    title: 'Scrape a page',
    description: 'Read one web page you have the URL of: markdown by default, or links, html, a screenshot, JSON by CSS selectors, '
      + 'changes since your last scrape. A long answer is cut; call again with its cursor to read on.',
    annotations: READ_WEB,
    validate: scrapeValidate,
    listed: listedSchema(scrapeValidate, { url: 'The page, an http(s) URL', ...PAGE_OPTION_TEXT }, { extract: EXTRACT_LISTED }),
  },
  map: {
    title: 'List the URLs of a site',
    description: "List a website's URLs (from its sitemaps, else a short crawl), to choose pages to scrape. Paged by a cursor.",
    annotations: READ_WEB,
    validate: mapValidate,
    listed: listedSchema(mapValidate, { search: 'Only URLs with every word, best first' }),
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
    description: 'Crawl a website from a URL, following its links breadth first, for many pages of one site. '
      + 'Answers the crawl id at once: follow it with crawl_status, read the pages with crawl_results.',
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    validate: crawlValidate,
    listed: listedSchema(crawlValidate, CRAWL_TEXT, { scrapeOptions: AS_IN_SCRAPE }),
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
    description: 'Scrape 1-100 URLs you have. Waits up to waitSeconds, then answers the pages (paged by a '
      + 'cursor), or the progress and the batch id for batch_results.',
    annotations: READ_WEB,
    validate: batchValidate,
    listed: listedSchema(batchValidate, { ignoreInvalidUrls: 'List invalid URLs instead of refusing them all' }, { scrapeOptions: AS_IN_SCRAPE }),
  },
  batch_results: {
    title: 'Batch pages',
    description: "A batch's pages as markdown, paged by a cursor; waits up to waitSeconds for it to finish.",
    annotations: READ_JOB,
    validate: resultsValidate,
    listed: listedSchema(resultsValidate),
  },
  recrawl: {
    title: 'Recrawl a site',
    description: 'Run a finished crawl again, cheap for unchanged pages; waits up to 30 s and reports its pages new, changed or removed.',
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    validate: recrawlValidate,
    listed: listedSchema(recrawlValidate, { revalidate: 'Also load pages whose sitemap lastmod says unchanged' }),
  },
  monitor_create: {
    title: 'Watch a page or site',
    description: 'Scrape url (or crawl from it) on a schedule; pages that changed, with diffs, are POSTed to webhookUrl. Runs use the page quota.',
    annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    validate: monitorValidate,
    listed: listedSchema(monitorValidate, { url: 'The page, or where each crawl starts', webhookUrl: 'Receives monitor.changed', notifyUnchanged: 'Also when nothing changed' }, {
      schedule: { type: 'object', description: '{"intervalSeconds":3600} (at least 60) or {"cron":"0 8 * * 1","timezone":"Europe/Paris"}' },
      crawl: { type: 'object', description: 'Crawl from url with crawl_start\'s options but url, e.g. {"limit":50}' },
      scrapeOptions: { type: 'object', description: 'As in crawl_start (changeTracking is always added to formats)' },
    }),
  },
  monitor_list: {
    title: 'Monitors',
    description: 'Your monitors; with id, that one with its next run and its last run\'s changed pages.',
    annotations: READ_JOB,
    validate: Type.Object({ id: Type.Optional(MonitorId) }, Strict),
    listed: listedSchema(Type.Object({ id: Type.Optional(MonitorId) })),
  },
  monitor_delete: {
    title: 'Stop a monitor',
    description: 'Delete a monitor: no run starts after it (a run in progress still notifies).',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    validate: Type.Object({ id: MonitorId }, Strict),
    listed: listedSchema(Type.Object({ id: MonitorId })),
  },
} satisfies Record<string, ToolSpec>;

export type ToolName = keyof typeof TOOLS;

/** Whether a tool has that name: own properties only, so `__proto__` or `toString` is no tool. */
export const isToolName = (name: string): name is ToolName => Object.hasOwn(TOOLS, name);

/** tools/list's answer. */
export const listTools = (): { name: string; title: string; description: string; annotations: ToolAnnotations; inputSchema: ToolSpec['listed'] }[] =>
  Object.entries(TOOLS as Record<string, ToolSpec>).map(([name, t]) => ({ name, title: t.title, description: t.description, annotations: t.annotations, inputSchema: t.listed }));
