// A running crawl or batch: look at it, cancel it, iterate over its pages, wait for it.
// Waiting is long-polling (GET …?waitMs=N answers the moment the job ends), so a handle
// costs one request per minute when nobody asks for progress, and a fifth of the key's
// requests per minute when somebody does (Transport.progressIntervalMs).
import { isFinalStatus, MAX_WAIT_MS } from '../../shared/src/api/lifecycle.js';
import { ConflictError, JobFailedError, WaitTimeoutError } from './errors.js';
import { routePath, type RouteName } from './routes.js';
import type { Transport } from './transport.js';
import type { BatchJob, BatchPage, CrawlJob, CrawlPage, JobCancelled } from './types.js';

export { MAX_WAIT_MS };

export interface WaitOptions {
  /** Give up waiting (WaitTimeoutError) after this long; the job goes on. Default: no limit. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with each view seen while the job runs (counters), and with the final one. */
  onProgress?: (job: { status: string; totalUrls: number; completedUrls: number; failedUrls: number }) => void;
  /** How often to look at progress when `onProgress` is given; default: paced to the key's rate limit. */
  progressIntervalMs?: number;
}

interface JobView { id: string; status: string; totalUrls: number; completedUrls: number; failedUrls: number; next?: string; error?: { message: string } }

interface Routes { get: RouteName; cancel: RouteName; kind: 'crawl' | 'batch' }

abstract class JobHandle<V extends JobView & { data?: P[] }, P> implements AsyncIterable<P> {
  constructor(protected readonly transport: Transport, private readonly routes: Routes, readonly id: string) {}

  /** The job as it is now (with `waitMs`: once finished, or after that long). */
  async status(opts: { waitMs?: number; cursor?: string; signal?: AbortSignal } = {}): Promise<V> {
    const waitMs = opts.waitMs === undefined ? undefined : Math.max(0, Math.min(MAX_WAIT_MS, Math.round(opts.waitMs)));
    const res = await this.transport.request<V>('GET', routePath(this.routes.get, this.id), {
      query: { waitMs, cursor: opts.cursor }, signal: opts.signal, holdMs: waitMs ?? 0,
    });
    return res.body;
  }

  /** Cancels the job. A job that already finished is left as it is and its status returned. */
  async cancel(): Promise<JobCancelled | V> {
    try {
      return (await this.transport.request<JobCancelled>('DELETE', routePath(this.routes.cancel, this.id))).body;
    } catch (err) {
      if (err instanceof ConflictError) return this.status();
      throw err;
    }
  }

  /** Views of the job until it ends (the last one is final), spaced by long-polls. */
  async *views(opts: WaitOptions = {}): AsyncGenerator<V> {
    const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WaitTimeoutError(`gave up waiting for ${this.routes.kind} ${this.id} after ${opts.timeoutMs} ms`, { code: 'WAIT_TIMEOUT' });
      const step = opts.onProgress ? opts.progressIntervalMs ?? this.transport.progressIntervalMs() : MAX_WAIT_MS;
      const waitMs = Math.min(step, MAX_WAIT_MS, remaining);
      const asked = Date.now();
      const view = await this.status({ waitMs, ...(opts.signal ? { signal: opts.signal } : {}) });
      opts.onProgress?.(view);
      yield view;
      if (isFinalStatus(view.status)) return;
      // Answered early without being finished (a gateway shutting down): do not spin.
      if (Date.now() - asked < waitMs / 2) await new Promise((r) => setTimeout(r, Math.min(1000, waitMs)));
    }
  }

  /** Waits for the end and returns the final view with all its pages (every `next` part read). Throws JobFailedError when it FAILED. */
  async done(opts: WaitOptions = {}): Promise<V & { data: P[] }> {
    let last: V | undefined;
    for await (const view of this.views(opts)) last = view;
    const data: P[] = [];
    for await (const part of this.parts(last!, opts.signal)) data.push(...(part.data ?? []));
    const full = { ...last!, data } as V & { data: P[] };
    delete full.next;
    if (full.status === 'FAILED') {
      throw new JobFailedError(`${this.routes.kind} ${this.id} failed: ${full.error?.message ?? 'unknown error'}`, full, { code: 'JOB_FAILED' });
    }
    return full;
  }

  /** Pages as they become available, in request order; ends with the job. */
  async *pages(opts: WaitOptions = {}): AsyncGenerator<P> {
    const seen = new Set<number>();
    let last: V | undefined;
    for await (const view of this.views(opts)) {
      last = view;
      if (isFinalStatus(view.status)) break;
      for (const [index, page] of this.finishedPages(view)) {
        if (!seen.has(index)) { seen.add(index); yield page; }
      }
    }
    let offset = 0;
    for await (const part of this.parts(last!, opts.signal)) {
      for (const [i, page] of (part.data ?? []).entries()) {
        if (!seen.has(offset + i)) { seen.add(offset + i); yield page; }
      }
      offset += part.data?.length ?? 0;
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<P> {
    return this.pages();
  }

  /** Pages of a running job's view that are finished, by index in the job (none for a crawl: its pages come at the end). */
  protected abstract finishedPages(view: V): Iterable<[number, P]>;

  /** The final view and each part its `next` points to. */
  private async *parts(first: V, signal?: AbortSignal): AsyncGenerator<V> {
    let view = first;
    yield view;
    while (view.next) {
      const cursor = new URL(view.next).searchParams.get('cursor') ?? undefined;
      if (cursor === undefined) return;
      view = await this.status({ cursor, ...(signal ? { signal } : {}) });
      yield view;
    }
  }
}

/**
 * A crawl. Iteration streams its pages as they finish: a running crawl's GET serves the
 * pages done so far in requested order with a `next` cursor (docs/api.md "Crawl"), and the
 * handle follows that cursor until the crawl has ended and no part is left.
 */
export class CrawlHandle extends JobHandle<CrawlJob, CrawlPage> {
  constructor(transport: Transport, id: string) {
    super(transport, { get: 'getCrawl', cancel: 'cancelCrawl', kind: 'crawl' }, id);
  }
  protected finishedPages(): Iterable<[number, CrawlPage]> { return []; }

  override async *pages(opts: WaitOptions = {}): AsyncGenerator<CrawlPage> {
    const deadline = opts.timeoutMs === undefined ? Infinity : Date.now() + opts.timeoutMs;
    let cursor: string | undefined;
    let progressed = true;
    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new WaitTimeoutError(`gave up waiting for crawl ${this.id} after ${opts.timeoutMs} ms`, { code: 'WAIT_TIMEOUT' });
      // After new pages, ask again at once; otherwise wait (the server answers at the end).
      const step = opts.progressIntervalMs ?? this.transport.progressIntervalMs();
      const waitMs = progressed ? 0 : Math.min(step, MAX_WAIT_MS, remaining);
      const asked = Date.now();
      const view = await this.status({ waitMs, ...(cursor !== undefined ? { cursor } : {}), ...(opts.signal ? { signal: opts.signal } : {}) });
      opts.onProgress?.(view);
      yield* view.data ?? [];
      const next = view.next ? new URL(view.next).searchParams.get('cursor') ?? undefined : undefined;
      const ended = isFinalStatus(view.status);
      if (ended && next === undefined) return;
      progressed = ended || (view.data?.length ?? 0) > 0;
      cursor = next ?? cursor;
      // Answered early with nothing new and not finished (a gateway shutting down): do not spin.
      if (!progressed && Date.now() - asked < waitMs / 2) await new Promise((r) => setTimeout(r, Math.min(1000, waitMs)));
    }
  }
}

/** A batch scrape: iteration yields each page as soon as it is COMPLETED or FAILED. */
export class BatchHandle extends JobHandle<BatchJob, BatchPage> {
  /** With ignoreInvalidUrls: the URLs the server left out. */
  readonly invalidUrls: string[];
  constructor(transport: Transport, id: string, invalidUrls: string[] = []) {
    super(transport, { get: 'getBatch', cancel: 'cancelBatch', kind: 'batch' }, id);
    this.invalidUrls = invalidUrls;
  }
  protected *finishedPages(view: BatchJob): Iterable<[number, BatchPage]> {
    for (const [i, page] of view.data.entries()) if (page.status === 'COMPLETED' || page.status === 'FAILED') yield [i, page];
  }
}
