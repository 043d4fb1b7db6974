// 16. Scale-out on the three-node JetStream cluster (`npm run cluster`'s): a site that answers
// slowly (200-500 ms per page, so the bound is waiting, not this machine's cores) crawled
// with 1, 2 and 4 fetcher+transformer processes (one of every other service). Reports
// pages/s, CPU per page of the whole process tree, and the most pages of the host loading at
// once as the site saw it, which the fleet's per-host bound (FLEET_HOST_MAX_IN_FLIGHT)
// must hold across every replica. Each row boots its own cluster, after the shared bench
// system has stopped. `BENCH_ONLY=scale-out npm run bench`; sizes: BENCH_SCALE_REPLICAS=1,2,4
// BENCH_SCALE_PAGES=200 BENCH_SCALE_HOST_BOUND=64.
import http from 'node:http';
import { startSite, type TestSite } from '../../test/support/site.js';
import { startSystem } from '../../test/support/system.js';
import { snapshotTree } from '../lib/proc.js';
import { sleep } from '../lib/system.js';
import { row } from '../lib/table.js';
import type { ScenarioResult } from './context.js';

const B = '16. Scale-out';

const replicaCounts = (process.env.BENCH_SCALE_REPLICAS ?? '1,2,4').split(',').map(Number);
const PAGES = Number(process.env.BENCH_SCALE_PAGES ?? 200);
/** The fleet's per-host bound: high by default, so the replicas are what is measured. */
const HOST_BOUND = process.env.BENCH_SCALE_HOST_BOUND ?? '64';
/** Pages one fetcher loads at once, and crawl pages in flight (well above what is measured). */
const FETCHER_CONCURRENCY = '6';

interface ScaleRun { replicas: number; pages: number; seconds: number; pagesPerSec: number; cpuMsPerPage: number; mostAtOnce: number }

async function slowSite(): Promise<{ site: TestSite; mostAtOnce: () => number }> {
  let loading = 0;
  let most = 0;
  const page = (links: string[]): string => `<html><head><title>p</title></head><body><main><h1>Page</h1><p>${'A sentence of text on a slow page. '.repeat(40)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
  const slow = (body: string, delayMs: number) => (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    loading++;
    most = Math.max(most, loading);
    setTimeout(() => { loading--; res.writeHead(200, { 'content-type': 'text/html' }).end(body); }, delayMs);
  };
  const site = await startSite({ '/robots.txt': { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' } });
  site.route('/', slow(page(Array.from({ length: PAGES - 1 }, (_, i) => `/p/${i}`)), 200));
  // 200-500 ms, spread evenly and the same in every run.
  for (let i = 0; i < PAGES - 1; i++) site.route(`/p/${i}`, slow(page([]), 200 + ((i * 37) % 301)));
  return { site, mostAtOnce: () => most };
}

async function run(replicas: number): Promise<ScaleRun> {
  const { site, mostAtOnce } = await slowSite();
  const sys = await startSystem({
    args: ['--cluster', '--replicas', '1', '--scale', `fetcher=${replicas},transformer=${replicas}`],
    env: {
      CRAWL_ENGINE: 'http', CRAWL_MAX_IN_FLIGHT: '64', FETCHER_CONCURRENCY, FETCHER_HOST_MAX_IN_FLIGHT: FETCHER_CONCURRENCY,
      FLEET_HOST_MAX_IN_FLIGHT: HOST_BOUND, RATE_LIMITS: 'off', QUOTAS: 'off', LOG_LEVEL: 'warn',
    },
  });
  try {
    const before = snapshotTree(sys.pid);
    const started = Date.now();
    const created = await sys.api('POST', '/api/v1/crawl', { url: site.url('/'), limit: PAGES });
    if (created.status !== 202) throw new Error(`crawl refused: ${JSON.stringify(created.body)}`);
    let job: any;
    for (;;) {
      job = (await sys.api('GET', `/api/v1/crawl/${created.body.id}`)).body;
      if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(job.status)) break;
      await sleep(250);
    }
    const seconds = (Date.now() - started) / 1000;
    const after = snapshotTree(sys.pid);
    const pages = job.completedUrls as number;
    return { replicas, pages, seconds, pagesPerSec: pages / seconds, cpuMsPerPage: (after.cpuMs - before.cpuMs) / Math.max(1, pages), mostAtOnce: mostAtOnce() };
  } finally {
    await sys.stop();
    await site.close();
  }
}

export async function scaleOut(log: (message: string) => void): Promise<ScenarioResult> {
  const runs: ScaleRun[] = [];
  for (const n of replicaCounts) {
    log(`${B}: ${n} fetcher+transformer process(es), ${PAGES} pages`);
    runs.push(await run(n));
  }
  const base = runs[0]?.pagesPerSec;
  const rows = runs.flatMap((r) => [
    row(B, `pages per second, ${r.replicas} fetcher+transformer`, r.pagesPerSec, {
      ...(base !== undefined && r !== runs[0] ? { baseline: base } : {}),
      note: `${r.pages} pages of a 200-500 ms site in ${r.seconds.toFixed(1)} s; ratio against ${runs[0]?.replicas}`,
    }),
    row(B, `CPU per page, ${r.replicas} fetcher+transformer`, r.cpuMsPerPage, { unit: 'ms', note: 'whole process tree (nats-servers included)' }),
    row(B, `most pages of the host at once, ${r.replicas} fetcher+transformer`, r.mostAtOnce, { note: `fleet bound FLEET_HOST_MAX_IN_FLIGHT=${HOST_BOUND}` }),
  ]);
  return { rows, details: { runs } };
}
