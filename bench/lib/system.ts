// The system under test, booted like `npm start` (test/support/system.ts: the compiled
// supervisor with nats-server, the services and the embedded store, on a free port and a
// temp DATA_DIR), plus the client side the benchmarks share: submitting scrapes, waiting
// for jobs, and reading the supervisor's process tree.
import fs from 'node:fs';
import path from 'node:path';
import { startSystem, type TrawlSystem } from '../../test/support/system.js';
import { findChild } from './proc.js';

export interface JobTimings {
  queueWaitMs: number;
  fetchMs: number;
  renderMs: number;
  transformMs: number;
  screenshotMs: number;
  totalMs: number;
}

export interface JobView {
  id: string;
  url?: string;
  status: 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED';
  fromCache?: boolean;
  markdown?: string;
  timings?: JobTimings;
  createdAt?: string;
  completedAt?: string;
  error?: { message: string; code?: string };
}

export const TERMINAL = new Set(['COMPLETED', 'FAILED']);
const ALL_SERVICES = ['projector', 'fetcher', 'transformer', 'crawler-frontier', 'webhook-dispatcher', 'gateway'];

export interface BenchSystem {
  sys: TrawlSystem;
  /** The supervisor's pid: the root of the process tree that is measured. */
  rootPid: number;
  services: string[];
}

const root = (() => {
  let dir = path.dirname(new URL(import.meta.url).pathname);
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

/** Every service whose build exists (others are still being written); the gateway last. */
export function availableServices(): string[] {
  return ALL_SERVICES.filter((name) => fs.existsSync(path.join(root, 'dist/services', name, 'src/main.js')));
}

export async function bootSystem(): Promise<BenchSystem> {
  const services = availableServices();
  const sys = await startSystem({
    env: {
      TRAWL_SERVICES: services.join(','),
      // The bench measures the system, not the plans' per-minute limits (one key sends
      // thousands of scrapes): RATE_LIMITS=off, documented in docs/benchmarks.md.
      RATE_LIMITS: process.env.RATE_LIMITS ?? 'off',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    },
  });
  const rootPid = findChild(process.pid, /dist\/scripts\/start\.js/);
  if (rootPid === undefined) {
    await sys.stop();
    throw new Error('could not find the supervisor process among the bench\'s children');
  }
  return { sys, rootPid, services };
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Submitted {
  id: string;
  status: number;
  /** The create response's body: {id, status} or a cache hit. */
  body: any;
  /** 429 answers retried after Retry-After. */
  rateLimited: number;
}

/** POST /api/v1/scrape; a 429 (rate limit) is retried after its Retry-After and counted. */
export async function submitScrape(sys: TrawlSystem, body: Record<string, unknown>): Promise<Submitted> {
  let rateLimited = 0;
  for (;;) {
    const res = await sys.api('POST', '/api/v1/scrape', body);
    if (res.status === 429 && rateLimited < 100) {
      rateLimited++;
      await sleep(Math.max(100, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    if (res.status >= 300) throw new Error(`POST /api/v1/scrape answered ${res.status}: ${JSON.stringify(res.body).slice(0, 500)}`);
    return { id: res.body.id, status: res.status, body: res.body, rateLimited };
  }
}

/** Polls one job every pollMs until it is COMPLETED or FAILED. */
export async function waitJob(sys: TrawlSystem, id: string, pollMs: number, timeoutMs = 120_000): Promise<{ job: JobView; doneAt: number }> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await sys.api<JobView>('GET', `/api/v1/scrape/${id}`);
    if (res.status === 200 && TERMINAL.has(res.body.status)) return { job: res.body, doneAt: performance.now() };
    await sleep(pollMs);
  }
  throw new Error(`scrape ${id} did not finish in ${timeoutMs} ms`);
}

interface ListItem { id: string; status: JobView['status']; completedAt?: string }

const GIVE_UP_AFTER_MS = 60_000;

/**
 * Waits for many jobs at once by reading the history list (newest first, 100 per page)
 * instead of polling every job: a few requests per tick however many jobs are pending,
 * so the waiting itself does not load the gateway. Jobs missing from the pages read are
 * looked up one by one.
 */
export class JobWatcher {
  private readonly waiters = new Map<string, { resolve: (item: ListItem) => void; reject: (err: Error) => void; since: number }>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;
  private failingSince: number | undefined;

  constructor(private readonly sys: TrawlSystem, private readonly tickMs = 200, private readonly maxPages = 30) {}

  wait(id: string): Promise<ListItem> {
    return new Promise((resolve, reject) => {
      this.waiters.set(id, { resolve, reject, since: Date.now() });
      this.timer ??= setInterval(() => void this.tick(), this.tickMs);
    });
  }

  get pending(): number {
    return this.waiters.size;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.waiters.size === 0) return;
    this.ticking = true;
    try {
      await this.read();
      this.failingSince = undefined;
    } catch (err) {
      // The gateway may be restarting: keep trying for a while, then fail the waiters.
      this.failingSince ??= Date.now();
      if (Date.now() - this.failingSince > GIVE_UP_AFTER_MS) {
        for (const w of this.waiters.values()) w.reject(new Error(`job status unreadable for ${GIVE_UP_AFTER_MS / 1000} s: ${String(err)}`));
        this.waiters.clear();
      }
    } finally {
      this.ticking = false;
      if (this.waiters.size === 0) this.stop();
    }
  }

  private async read(): Promise<void> {
    const seen = new Set<string>();
    for (let page = 0; page < this.maxPages && seen.size < this.waiters.size; page++) {
      const res = await this.sys.api<ListItem[]>('GET', `/api/v1/scrape?limit=100&offset=${page * 100}`);
      if (res.status !== 200) throw new Error(`GET /api/v1/scrape answered ${res.status}`);
      for (const item of res.body) {
        if (!this.waiters.has(item.id)) continue;
        seen.add(item.id);
        if (TERMINAL.has(item.status)) this.settle(item);
      }
      if (res.body.length < 100) break;
    }
    // Not in the pages read (older than they reach): ask for those directly, now and then.
    const stale = [...this.waiters].filter(([id, w]) => !seen.has(id) && Date.now() - w.since > 5_000).slice(0, 20);
    for (const [id] of stale) {
      const res = await this.sys.api<JobView>('GET', `/api/v1/scrape/${id}`);
      if (res.status === 200 && TERMINAL.has(res.body.status)) this.settle(res.body);
    }
  }

  private settle(item: ListItem): void {
    const waiter = this.waiters.get(item.id);
    if (!waiter) return;
    this.waiters.delete(item.id);
    waiter.resolve(item);
  }
}

/** Runs `task` over `items` with at most `concurrency` at once; results in input order. */
export async function mapConcurrent<T, R>(items: readonly T[], concurrency: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]!, i);
    }
  });
  await Promise.all(workers);
  return out;
}

/** Full job views (with timings) of finished jobs, read after the measurement. */
export async function fetchJobs(sys: TrawlSystem, ids: readonly string[]): Promise<JobView[]> {
  return mapConcurrent(ids, 8, async (id) => (await sys.api<JobView>('GET', `/api/v1/scrape/${id}`)).body);
}
