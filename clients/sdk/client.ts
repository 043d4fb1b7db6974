// The Trawl client. Create it with an API key (or TRAWL_API_KEY / TRAWL_API_URL in the
// environment) and call scrape, crawl, batchScrape, map, jobs.list and events.
import { JobFailedError, NotFoundError, WaitTimeoutError } from './errors.js';
import { BatchHandle, CrawlHandle, MAX_WAIT_MS } from './job-handle.js';
import { routePath, type RouteName } from './routes.js';
import { Transport, type TransportOptions } from './transport.js';
import type {
  AnyJobListItem, BatchCreated, BatchListItem, BatchScrapeRequest, CrawlCreated, CrawlListItem, CrawlRequest, EventKind, JobEvent,
  JobEventsPage, JobKind, KeyStanding, MapRequest, MapResult, ScrapeCreated, ScrapeJob, ScrapeListItem, ScrapeRequest, WebhookSecret, ChangeHistory, UrlObservation,
  RecrawlRequest, RecrawlCreated, RecrawlReport, MonitorRequest, Monitor, MonitorListItem,
} from './types.js';

export const DEFAULT_API_URL = 'http://localhost:3000';

export interface TrawlOptions extends Partial<Omit<TransportOptions, 'apiUrl' | 'apiKey'>> {
  /** Default: TRAWL_API_KEY. */
  apiKey?: string;
  /** Default: TRAWL_API_URL, else http://localhost:3000. */
  apiUrl?: string;
}

export interface ScrapeWaitOptions {
  /** Wait for the result (default), or return the job as created (`{id, status}`, or the result when served from the cache). */
  wait?: boolean;
  /** Give up waiting after this long (WaitTimeoutError; the job goes on). Default 5 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
}
export type ScrapeCallOptions = Omit<ScrapeRequest, 'url'> & ScrapeWaitOptions;

export interface ListOptions { limit?: number; offset?: number }

const SCRAPE_TIMEOUT_MS = 300_000;
const env = (name: string): string | undefined => (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];

export class Trawl {
  readonly transport: Transport;

  constructor(opts: TrawlOptions = {}) {
    const apiKey = opts.apiKey ?? env('TRAWL_API_KEY');
    if (!apiKey) throw new TypeError('Trawl needs an API key: pass { apiKey } or set TRAWL_API_KEY');
    this.transport = new Transport({ ...opts, apiKey, apiUrl: opts.apiUrl ?? env('TRAWL_API_URL') ?? DEFAULT_API_URL });
  }

  /** Scrapes one page and waits for it; throws JobFailedError (code PAGE_TIMEOUT, NETWORK_ERROR…) when the page failed. */
  scrape(url: string, opts?: ScrapeCallOptions & { wait?: true }): Promise<ScrapeJob>;
  scrape(url: string, opts: ScrapeCallOptions & { wait: false }): Promise<ScrapeCreated | ScrapeJob>;
  async scrape(url: string, opts: ScrapeCallOptions = {}): Promise<ScrapeJob | ScrapeCreated> {
    const { wait = true, timeoutMs = SCRAPE_TIMEOUT_MS, signal, ...options } = opts;
    const body: ScrapeRequest & { waitMs?: number } = { url, ...options };
    if (!wait) return (await this.transport.request<ScrapeCreated | ScrapeJob>('POST', routePath('scrape'), { body, signal })).body;
    const deadline = Date.now() + timeoutMs;
    const waitMs = Math.max(0, Math.min(MAX_WAIT_MS, timeoutMs));
    const created = await this.transport.request<ScrapeCreated | ScrapeJob>('POST', routePath('scrape'), {
      body: { ...body, waitMs }, signal, holdMs: waitMs,
    });
    return this.settle(created.body, deadline, timeoutMs, created.requestId, signal);
  }

  /** A scrape job as it is now (with `waitMs`: once finished, or after that long). */
  async getScrape(id: string, opts: { waitMs?: number; signal?: AbortSignal } = {}): Promise<ScrapeJob> {
    const waitMs = opts.waitMs === undefined ? undefined : Math.min(MAX_WAIT_MS, opts.waitMs);
    return (await this.transport.request<ScrapeJob>('GET', routePath('getScrape', id), { query: { waitMs }, signal: opts.signal, holdMs: waitMs ?? 0 })).body;
  }

  /** Waits for a scrape job started with `{wait: false}`. */
  async waitForScrape(id: string, opts: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ScrapeJob> {
    const timeoutMs = opts.timeoutMs ?? SCRAPE_TIMEOUT_MS;
    return this.settle({ id, status: 'PENDING' }, Date.now() + timeoutMs, timeoutMs, undefined, opts.signal);
  }

  private async settle(job: ScrapeJob | ScrapeCreated, deadline: number, timeoutMs: number, requestId: string | undefined, signal?: AbortSignal): Promise<ScrapeJob> {
    // A cache hit has no `status`: it is a finished result.
    while (job.status === 'PENDING' || job.status === 'PROCESSING') {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WaitTimeoutError(`gave up waiting for scrape ${job.id} after ${timeoutMs} ms`, { code: 'WAIT_TIMEOUT', requestId });
      const res = await this.transport.request<ScrapeJob>('GET', routePath('getScrape', job.id), {
        query: { waitMs: Math.min(MAX_WAIT_MS, remaining) }, signal, holdMs: Math.min(MAX_WAIT_MS, remaining),
      });
      job = res.body;
      requestId = res.requestId;
    }
    const done = job as ScrapeJob;
    if (done.status === 'FAILED') {
      throw new JobFailedError(`scrape ${done.id} of ${done.url} failed: ${done.error?.code}: ${done.error?.message}`, done, { code: done.error?.code, requestId });
    }
    return done;
  }

  /** Starts a crawl; the handle waits, iterates over its pages and cancels it. */
  async crawl(url: string, opts: Omit<CrawlRequest, 'url'> & { signal?: AbortSignal } = {}): Promise<CrawlHandle> {
    const { signal, ...options } = opts;
    const res = await this.transport.request<CrawlCreated>('POST', routePath('crawl'), { body: { url, ...options }, signal });
    return new CrawlHandle(this.transport, res.body.id);
  }

  /** A handle on an existing crawl. */
  crawlJob(id: string): CrawlHandle { return new CrawlHandle(this.transport, id); }

  /** Starts a batch scrape of 1-100 URLs; the handle has the same shape as a crawl's. */
  async batchScrape(urls: string[], opts: Omit<BatchScrapeRequest, 'urls'> & { signal?: AbortSignal } = {}): Promise<BatchHandle> {
    const { signal, ...options } = opts;
    const res = await this.transport.request<BatchCreated>('POST', routePath('batch'), { body: { urls, ...options }, signal });
    return new BatchHandle(this.transport, res.body.id, res.body.invalidUrls);
  }

  /** A handle on an existing batch. */
  batchJob(id: string): BatchHandle { return new BatchHandle(this.transport, id); }

  /** The URLs of a site (sitemaps, else a short browser crawl); `search` filters and ranks them. */
  async map(url: string, opts: Omit<MapRequest, 'url'> & { signal?: AbortSignal } = {}): Promise<MapResult> {
    const { signal, ...options } = opts;
    // The server answers within its 30 s map budget (503 after 35 s): the request may be held that long.
    return (await this.transport.request<MapResult>('POST', routePath('map'), { body: { url, ...options }, signal, holdMs: 35_000 })).body;
  }

  readonly jobs = {
    /**
     * The caller's jobs, newest first: of one kind (`limit` 1-100, `offset` as the API), or of
     * every kind merged, each item with its `kind` (the newest `offset + limit` of each kind
     * are read, so a deep offset costs more requests).
     */
    list: async (opts: ListOptions & { kind?: JobKind } = {}): Promise<AnyJobListItem[]> => {
      const routes: Record<JobKind, RouteName> = { scrape: 'listScrapes', crawl: 'listCrawls', batch: 'listBatches' };
      const read = async (kind: JobKind, offset: number, limit: number): Promise<AnyJobListItem[]> => {
        const items = (await this.transport.request<(ScrapeListItem | CrawlListItem | BatchListItem)[]>('GET', routePath(routes[kind]), { query: { limit, offset } })).body;
        return items.map((j) => ({ ...j, kind }) as AnyJobListItem);
      };
      if (opts.kind) return read(opts.kind, opts.offset ?? 0, opts.limit ?? 20);
      const wanted = (opts.offset ?? 0) + (opts.limit ?? 20);
      const readAll = async (kind: JobKind): Promise<AnyJobListItem[]> => {
        const out: AnyJobListItem[] = [];
        for (;;) {
          const page = await read(kind, out.length, Math.min(100, wanted - out.length));
          out.push(...page);
          if (page.length === 0 || out.length >= wanted) return out;
        }
      };
      const all = (await Promise.all((['scrape', 'crawl', 'batch'] as const).map(readAll))).flat();
      all.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
      return all.slice(opts.offset ?? 0, wanted);
    },
  };

  /**
   * A job's events from the log, in order, every page of them. Without `kind` the id is
   * looked up as a scrape, crawl, batch and map in turn (a request each until found).
   */
  async *events(id: string, opts: { kind?: EventKind; after?: number; signal?: AbortSignal } = {}): AsyncGenerator<JobEvent> {
    const kinds: EventKind[] = opts.kind ? [opts.kind] : ['scrape', 'crawl', 'batch', 'map'];
    const routes: Record<EventKind, RouteName> = { scrape: 'scrapeEvents', crawl: 'crawlEvents', batch: 'batchEvents', map: 'mapEvents' };
    let after = opts.after ?? 0;
    let route: RouteName | undefined;
    for (const kind of kinds) {
      try {
        const page = await this.eventsPage(routes[kind], id, after, opts.signal);
        route = routes[kind];
        yield* page.events;
        if (!page.next) return;
        after = page.events.at(-1)?.seq ?? after;
        break;
      } catch (err) {
        if (!(err instanceof NotFoundError) || kind === kinds.at(-1)) throw err;
      }
    }
    for (;;) {
      const page = await this.eventsPage(route!, id, after, opts.signal);
      yield* page.events;
      if (!page.next || page.events.length === 0) return;
      after = page.events.at(-1)!.seq;
    }
  }

  private async eventsPage(route: RouteName, id: string, after: number, signal?: AbortSignal): Promise<JobEventsPage> {
    return (await this.transport.request<JobEventsPage>('GET', routePath(route, id), { query: { after }, signal })).body;
  }

  /**
   * A URL's change history for this key (every scrape, crawl or batch page of it, oldest
   * first; `tag`: a changeTrackingOptions.tag history), every page of it.
   */
  async *changes(url: string, opts: { tag?: string; after?: number; signal?: AbortSignal } = {}): AsyncGenerator<UrlObservation> {
    let after = opts.after ?? 0;
    for (;;) {
      const query = { url, tag: opts.tag, after };
      const page = (await this.transport.request<ChangeHistory>('GET', routePath('changes'), { query, signal: opts.signal })).body;
      yield* page.observations;
      if (!page.next || page.observations.length === 0) return;
      after = page.observations.at(-1)!.seq;
    }
  }

  /** The caller's key: id, plan, the plan's limits and what is left of them this month. */
  async key(opts: { signal?: AbortSignal } = {}): Promise<KeyStanding> {
    return (await this.transport.request<KeyStanding>('GET', routePath('key'), { signal: opts.signal })).body;
  }

  /** Runs a finished crawl again (docs/api.md "Recrawl"); `report` says per page new, same, changed or removed. */
  readonly recrawls = {
    start: async (crawlId: string, opts: RecrawlRequest & { signal?: AbortSignal } = {}): Promise<RecrawlCreated> => {
      const { signal, ...body } = opts;
      return (await this.transport.request<RecrawlCreated>('POST', routePath('recrawl', crawlId), { body, signal })).body;
    },
    report: async (recrawlId: string, opts: { signal?: AbortSignal } = {}): Promise<RecrawlReport> =>
      (await this.transport.request<RecrawlReport>('GET', routePath('recrawlReport', recrawlId), { signal: opts.signal })).body,
  };

  /** Monitors: a page or a crawl on a schedule, changes sent to a webhook (docs/api.md "Monitors"). */
  readonly monitors = {
    create: async (request: MonitorRequest, opts: { signal?: AbortSignal } = {}): Promise<Monitor> =>
      (await this.transport.request<Monitor>('POST', routePath('createMonitor'), { body: request, signal: opts.signal })).body,
    get: async (id: string, opts: { signal?: AbortSignal } = {}): Promise<Monitor> =>
      (await this.transport.request<Monitor>('GET', routePath('getMonitor', id), { signal: opts.signal })).body,
    list: async (opts: { signal?: AbortSignal } = {}): Promise<MonitorListItem[]> =>
      (await this.transport.request<MonitorListItem[]>('GET', routePath('listMonitors'), { signal: opts.signal })).body,
    delete: async (id: string, opts: { signal?: AbortSignal } = {}): Promise<{ id: string; status: 'DELETED' }> =>
      (await this.transport.request<{ id: string; status: 'DELETED' }>('DELETE', routePath('deleteMonitor', id), { signal: opts.signal })).body,
  };

  readonly webhooks = {
    /** The key's webhook signing secret (`whsec_…`), for verifyWebhook. */
    secret: async (): Promise<WebhookSecret> => (await this.transport.request<WebhookSecret>('GET', routePath('webhookSecret'))).body,
    /** Rotates the secret; the previous one keeps signing for `graceSeconds` (default one day). */
    rotate: async (graceSeconds?: number): Promise<WebhookSecret & { previousSecretValidUntil: string }> =>
      (await this.transport.request<WebhookSecret & { previousSecretValidUntil: string }>('POST', routePath('rotateWebhookSecret'), {
        body: graceSeconds === undefined ? {} : { graceSeconds },
      })).body,
  };
}
