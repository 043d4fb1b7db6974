// The MCP tools: their input schemas come from the gateway's TypeBox schemas (the same
// source as the API's validation and OpenAPI), with the few fields a model pages with
// (`cursor`, `maxChars`, `waitSeconds`) added, and the ones it cannot use (custom headers,
// browser actions) left out.
import { Type, type TSchema } from '@sinclair/typebox';
import { BatchScrapeRequestSchema } from '../../shared/src/batch-options.js';
import { CrawlRequestSchema } from '../../shared/src/crawl-options.js';
import { ScrapeRequestSchema } from '../../shared/src/scrape-options.js';
import { MapRequestSchema } from '../../services/gateway/src/map/service.js';

export const PAGING = { defaultMaxChars: 20_000, maxMaxChars: 200_000, mapPageSize: 500 } as const;

const Cursor = Type.Optional(Type.String({ description: 'From a previous answer that said it was truncated: continues where it stopped' }));
const MaxChars = Type.Optional(Type.Integer({ minimum: 1000, maximum: PAGING.maxMaxChars, default: PAGING.defaultMaxChars, description: 'Longest text answered at once; the rest is behind a cursor' }));
const WaitSeconds = (dflt: number): TSchema => Type.Optional(Type.Integer({ minimum: 0, maximum: 60, default: dflt, description: 'How long to wait for the job to finish before answering with its progress' }));
const JobId = Type.String({ minLength: 1, maxLength: 64, description: 'The id a start tool answered' });

/** Scrape options a model can set (no custom headers or browser actions). */
const MODEL_OMITS = ['headers', 'actions', 'screenshotOptions'] as const;

export const TOOLS = {
  scrape: {
    description: 'Scrape one web page and return its content as clean markdown (or html, rawHtml, links; json picked out by a CSS-selector schema with the extract format and option; a screenshot as an image). Long pages are truncated with a cursor.',
    inputSchema: Type.Composite([Type.Omit(ScrapeRequestSchema, [...MODEL_OMITS]), Type.Object({ cursor: Cursor, maxChars: MaxChars })]),
  },
  map: {
    description: "List the URLs of a website (from its sitemaps, else a short crawl), in discovery order, paged by a cursor.",
    inputSchema: Type.Composite([MapRequestSchema, Type.Object({ cursor: Cursor })]),
  },
  search_site: {
    description: 'Find the pages of a website whose URL contains every word of `search`, best matches first.',
    inputSchema: Type.Composite([
      Type.Pick(MapRequestSchema, ['url', 'includeSubdomains', 'ignoreSitemap']),
      Type.Object({
        search: Type.String({ minLength: 1, maxLength: 1000, description: 'Words the URL must contain (case-insensitive)' }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 20, description: 'How many matches to return' })),
      }),
    ]),
  },
  crawl_start: {
    description: 'Start crawling a website from a URL (breadth first, within limit and maxDepth). Answers the crawl id at once; follow it with crawl_status and read pages with crawl_results.',
    inputSchema: Type.Omit(CrawlRequestSchema, ['webhookUrl']),
  },
  crawl_status: {
    description: 'Progress of a crawl (pages done, failed, total); waits up to waitSeconds for it to finish.',
    inputSchema: Type.Object({ id: JobId, waitSeconds: WaitSeconds(20) }),
  },
  crawl_results: {
    description: "A finished crawl's pages as markdown, paged by a cursor. Waits up to waitSeconds for the crawl to finish.",
    inputSchema: Type.Object({ id: JobId, cursor: Cursor, maxChars: MaxChars, waitSeconds: WaitSeconds(20) }),
  },
  crawl_cancel: {
    description: 'Cancel a running crawl; pages done so far stay readable with crawl_results.',
    inputSchema: Type.Object({ id: JobId }),
  },
  batch_scrape: {
    description: 'Scrape a list of 1-100 URLs at once. Waits up to waitSeconds, then answers the pages done (markdown, paged by a cursor) or the progress and the batch id for batch_results.',
    inputSchema: Type.Composite([
      Type.Omit(BatchScrapeRequestSchema, [...MODEL_OMITS, 'webhookUrl']),
      Type.Object({ waitSeconds: WaitSeconds(30), maxChars: MaxChars }),
    ]),
  },
  batch_results: {
    description: "A batch's pages as markdown, paged by a cursor; waits up to waitSeconds for it to finish.",
    inputSchema: Type.Object({ id: JobId, cursor: Cursor, maxChars: MaxChars, waitSeconds: WaitSeconds(20) }),
  },
} as const;

export type ToolName = keyof typeof TOOLS;

/** A schema as plain JSON (TypeBox's symbols dropped), as MCP lists it. */
export const jsonSchema = (schema: TSchema): Record<string, unknown> & { type: 'object' } =>
  JSON.parse(JSON.stringify(schema)) as Record<string, unknown> & { type: 'object' };
