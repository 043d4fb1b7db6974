// `trawl mcp`: Trawl's tools for agents over MCP stdio (the official SDK's low-level server,
// so each tool's JSON schema is the one tools.ts derives from the API's TypeBox schemas).
// Answers are text sized for a model's context: at most `maxChars` at once, the rest behind
// an opaque cursor. Nothing a client sends ends the process (issue 20): stdio.ts refuses
// over-long or malformed lines with a JSON-RPC error, arguments are checked against the
// tool's contract before any call, and error text is scrubbed of credentials (redact.ts).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Trawl } from '../sdk/client.js';
import { TrawlError } from '../sdk/errors.js';
import type { BatchHandle, CrawlHandle } from '../sdk/job-handle.js';
import type { MonitorRequest, ScrapeJob } from '../sdk/types.js';
import { monitorListText, monitorText, recrawlText } from './freshness-text.js';
import { isFinalStatus } from '../../shared/src/api/lifecycle.js';
import { validatorCompiler } from '../../shared/src/api/validation.js';
import { Redactor } from './redact.js';
import { BoundedStdioTransport } from './stdio.js';
import { isToolName, listTools, PAGING, SERVER_INSTRUCTIONS, TOOLS, type ToolName } from './tools.js';

type Args = Record<string, unknown>;

/** How long the recrawl tool waits for the recrawl to end before answering the report so far. */
const RECRAWL_WAIT_MS = 30_000;
type Content = CallToolResult['content'];

interface CursorState { id?: string; o: number }
const encodeCursor = (c: CursorState): string => Buffer.from(JSON.stringify(c)).toString('base64url');
function decodeCursor(value: unknown): CursorState | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  try {
    const c = JSON.parse(Buffer.from(value, 'base64url').toString()) as CursorState;
    if (Number.isInteger(c.o) && c.o >= 0) return c;
  } catch { /* below */ }
  throw new TrawlError('cursor: not a cursor this server gave', { code: 'VALIDATION_ERROR', status: 400 });
}

/** Text from offset `o`, at most maxChars, with a note naming the cursor for the rest. */
function paged(text: string, o: number, maxChars: number, tool: string, id?: string): string {
  const part = text.slice(o, o + maxChars);
  const rest = text.length - (o + part.length);
  if (rest <= 0) return part;
  return `${part}\n\n[truncated: ${rest} more characters; call ${tool} with cursor "${encodeCursor({ ...(id ? { id } : {}), o: o + part.length })}"${id ? ` and id "${id}"` : ''}]`;
}

function pick(args: Args, drop: string[]): Args {
  return Object.fromEntries(Object.entries(args).filter(([k, v]) => !drop.includes(k) && v !== undefined));
}

function pageText(p: { url: string; status?: string; markdown?: string; html?: string; rawHtml?: string; links?: string[]; json?: unknown; changeTracking?: ChangeReport; metadata?: { title?: string; statusCode?: unknown }; error?: { code: string; message: string } }): string {
  const head = `## ${p.metadata?.title || p.url}\nURL: ${p.url}${p.metadata?.statusCode !== undefined ? ` (HTTP ${String(p.metadata.statusCode)})` : ''}`;
  if (p.error) return `${head}\nFAILED ${p.error.code}: ${p.error.message}\n`;
  const parts = [head];
  if (p.markdown !== undefined) parts.push(p.markdown);
  if (p.html !== undefined) parts.push(`HTML:\n${p.html}`);
  if (p.rawHtml !== undefined) parts.push(`Raw HTML:\n${p.rawHtml}`);
  if (p.json !== undefined) parts.push(`Extracted JSON:\n${JSON.stringify(p.json, null, 2)}`);
  if (p.changeTracking) parts.push(changeText(p.changeTracking));
  if (p.links !== undefined && p.markdown === undefined) parts.push(`Links:\n${p.links.join('\n')}`);
  return `${parts.join('\n\n')}\n`;
}

type ChangeReport = NonNullable<ScrapeJob['changeTracking']>;

/** The changeTracking report as a model reads it: the status, since when, and the diff. */
function changeText(c: ChangeReport): string {
  const since = c.previousScrapeAt ? ` since the scrape of ${c.previousScrapeAt}` : '';
  if (!c.observed) return `Change tracking: not an observation (HTTP ${String(c.statusCode)}); the last scrape${since ? ` (${c.previousScrapeAt})` : ''} stays the baseline.`;
  const diff = c.diff !== undefined ? `\n${c.diff}` : c.diffUnavailable ? ` (no diff: ${c.diffUnavailable})` : '';
  return `Change tracking: ${c.changeStatus}${since}.${diff}`;
}

export class TrawlTools {
  constructor(private readonly trawl: Trawl) {}

  async call(name: ToolName, args: Args): Promise<Content> {
    const maxChars = typeof args.maxChars === 'number' ? args.maxChars : PAGING.defaultMaxChars;
    const text = (t: string): Content => [{ type: 'text', text: t }];
    switch (name) {
      case 'scrape': {
        const cursor = decodeCursor(args.cursor);
        const job = cursor?.id ? await this.trawl.getScrape(cursor.id) : await this.scrape(args);
        const content: Content = text(paged(pageText(job), cursor?.o ?? 0, maxChars, 'scrape', job.id));
        const shot = job.screenshot?.data;
        if (shot && !cursor) content.push({ type: 'image', data: shot.slice(shot.indexOf(',') + 1), mimeType: `image/${job.screenshot!.format}` });
        return content;
      }
      case 'map': {
        const cursor = decodeCursor(args.cursor);
        const { links } = await this.trawl.map(String(args.url), pick(args, ['url', 'cursor']));
        const from = cursor?.o ?? 0;
        const shown = links.slice(from, from + PAGING.mapPageSize);
        const more = from + shown.length < links.length
          ? `\n[${links.length - from - shown.length} more URLs; call map with the same arguments and cursor "${encodeCursor({ o: from + shown.length })}"]` : '';
        return text(`${links.length} URLs${links.length > shown.length ? ` (${from + 1}-${from + shown.length} here)` : ''}:\n${shown.join('\n')}${more}`);
      }
      case 'search_site': {
        const { links } = await this.trawl.map(String(args.url), { ...pick(args, ['url']), limit: typeof args.limit === 'number' ? args.limit : 20 });
        return text(links.length ? `${links.length} matching URLs, best first:\n${links.join('\n')}` : `no URL of ${String(args.url)} matches "${String(args.search)}"`);
      }
      case 'crawl_start': {
        const crawl = await this.trawl.crawl(String(args.url), pick(args, ['url']));
        return text(`Crawl ${crawl.id} started. Follow it with crawl_status {"id": "${crawl.id}"}; read its pages with crawl_results once it has finished.`);
      }
      case 'crawl_status': {
        const view = await this.trawl.crawlJob(String(args.id)).status({ waitMs: this.waitMs(args, 20) });
        return text(JSON.stringify(pick(view as unknown as Args, ['data', 'next'])));
      }
      case 'crawl_cancel': {
        const done = await this.trawl.crawlJob(String(args.id)).cancel();
        return text(`Crawl ${done.id} is ${done.status}.`);
      }
      case 'crawl_results':
        return text(await this.results(this.trawl.crawlJob(String(args.id)), 'crawl_results', args, maxChars));
      case 'batch_scrape': {
        // Page options come in scrapeOptions, as for crawl_start; the API takes them flat.
        const batch = await this.trawl.batchScrape(args.urls as string[], { ...(args.scrapeOptions as Args | undefined), ...pick(args, ['urls', 'waitSeconds', 'maxChars', 'scrapeOptions']) });
        const skipped = batch.invalidUrls.length ? `Skipped invalid URLs: ${batch.invalidUrls.join(', ')}\n` : '';
        return text(`${skipped}${await this.results(batch, 'batch_results', { ...args, waitSeconds: args.waitSeconds ?? 30 }, maxChars)}`);
      }
      case 'batch_results':
        return text(await this.results(this.trawl.batchJob(String(args.id)), 'batch_results', args, maxChars));
      case 'recrawl': {
        const id = args.report === true ? String(args.id) : (await this.trawl.recrawls.start(String(args.id), pick(args, ['id', 'report']))).id;
        await this.trawl.crawlJob(id).status({ waitMs: RECRAWL_WAIT_MS });
        return text(recrawlText(await this.trawl.recrawls.report(id)));
      }
      case 'monitor_create': {
        const { scrapeOptions, ...rest } = args;
        return text(monitorText(await this.trawl.monitors.create({ ...(rest as unknown as MonitorRequest), ...(scrapeOptions ? { scrapeOptions: scrapeOptions as MonitorRequest['scrapeOptions'] } : {}) })));
      }
      case 'monitor_list':
        return text(typeof args.id === 'string' ? monitorText(await this.trawl.monitors.get(args.id)) : monitorListText(await this.trawl.monitors.list()));
      case 'monitor_delete': {
        const done = await this.trawl.monitors.delete(String(args.id));
        return text(`Monitor ${done.id} is ${done.status}: no run starts after this.`);
      }
    }
  }

  private waitMs(args: Args, dfltSeconds: number): number {
    return (typeof args.waitSeconds === 'number' ? args.waitSeconds : dfltSeconds) * 1000;
  }

  private async scrape(args: Args): Promise<ScrapeJob> {
    const options = pick(args, ['url', 'cursor', 'maxChars']);
    const formats = (options.formats as string[] | undefined) ?? ['markdown'];
    if (formats.includes('screenshot')) options.screenshotOptions = { response: 'base64' };
    return this.trawl.scrape(String(args.url), options);
  }

  /** A crawl's or batch's pages as one text, paged; its progress while it runs. */
  private async results(handle: CrawlHandle | BatchHandle, tool: string, args: Args, maxChars: number): Promise<string> {
    const cursor = decodeCursor(args.cursor);
    const view = await handle.status({ waitMs: cursor ? 0 : this.waitMs(args, 20) });
    const counters = `${view.completedUrls} pages done, ${view.failedUrls} failed, ${view.totalUrls} in all`;
    if (!isFinalStatus(view.status)) {
      return `Job ${handle.id} is ${view.status}: ${counters}. Call ${tool} {"id": "${handle.id}"} again to wait for the pages.`;
    }
    const pages: string[] = [];
    for await (const p of handle.pages()) pages.push(pageText(p));
    const header = `Job ${handle.id} ${view.status}: ${counters}.${'error' in view && view.error ? ` ${view.error.message}` : ''}\n\n`;
    return paged(header + pages.join('\n---\n\n'), cursor?.o ?? 0, maxChars, tool, handle.id);
  }
}

// The gateway's own validator (Ajv over the same TypeBox schemas), so a refused argument
// reads exactly as the API would word it.
const validators = new Map<ToolName, (data: unknown) => { error?: Error }>();
function validatorOf(name: ToolName): (data: unknown) => { error?: Error } {
  let validate = validators.get(name);
  if (!validate) {
    validate = validatorCompiler({ schema: TOOLS[name].validate, httpPart: 'body', method: 'POST', url: `/mcp/${name}` }) as (data: unknown) => { error?: Error };
    validators.set(name, validate);
  }
  return validate;
}

/**
 * Why `args` are not what the tool takes, in a line a model can act on, or undefined. An
 * unknown argument is named with the ones the tool does take.
 */
export function argumentProblem(name: ToolName, args: Args): string | undefined {
  // On a copy: the validator fills in defaults, and the API should see the call as made.
  const { error } = validatorOf(name)(structuredClone(args));
  if (!error) return undefined;
  const known = /is not a known field/.test(error.message) ? ` ${name} takes: ${Object.keys(TOOLS[name].validate.properties).join(', ')}` : '';
  return `VALIDATION_ERROR: ${error.message}.${known}`;
}

/** An error the SDK answers as a JSON-RPC error with this code (McpError would prefix its message with "MCP error <code>:"). */
class ProtocolError extends Error {
  constructor(readonly code: number, message: string) { super(message); }
}

export function createMcpServer(trawl: Trawl): Server {
  const server = new Server({ name: 'trawl', version: '0.1.0' }, { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS });
  const tools = new TrawlTools(trawl);
  const redactor = new Redactor(trawl.transport.apiUrl, [process.env.TRAWL_API_KEY]);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const name = request.params.name;
    // A protocol error (the MCP spec's -32602 for an unknown tool): the client asked for something that is not there.
    if (!isToolName(name)) throw new ProtocolError(ErrorCode.InvalidParams, `unknown tool "${redactor.clean(name.slice(0, 100))}"; the tools are ${Object.keys(TOOLS).join(', ')}`);
    const args = request.params.arguments ?? {};
    // A tool error, so that the model reads it and corrects its call.
    const problem = argumentProblem(name, args);
    if (problem) return { isError: true, content: [{ type: 'text', text: redactor.clean(problem) }] };
    try {
      return { content: await tools.call(name, args) };
    } catch (err) {
      const text = err instanceof TrawlError ? `${err.code}${err.status ? ` (${err.status})` : ''}: ${err.detail ?? err.message}` : (err as Error).message;
      return { isError: true, content: [{ type: 'text', text: redactor.clean(text) }] };
    }
  });
  return server;
}

export async function runMcpServer(trawl: Trawl): Promise<void> {
  const server = createMcpServer(trawl);
  const transport = new BoundedStdioTransport();
  // Runs until our stdin ends (the client went away or closed it); nothing it sends ends it.
  const closed = new Promise<void>((resolve) => { server.onclose = resolve; });
  await server.connect(transport);
  await closed;
}
