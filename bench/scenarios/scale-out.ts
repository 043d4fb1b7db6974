// 16. Scale-out on the three-node JetStream cluster (`npm run cluster`'s): a site that answers
// slowly (200-500 ms per page) crawled with 1, 2 and 4 fetcher+transformer processes (one of
// every other service). Reports pages/s, CPU per page of the whole process tree, and the most
// pages of the host loading at once as the site saw it; the last rows run the most processes
// under a low fleet per-host bound (FLEET_HOST_MAX_IN_FLIGHT), which must hold across them,
// at NATS_REPLICAS 3 and at 1 (nats-server up to 2.9.20 does not serialize compare-and-set
// writes of a replicated stream, nats-io/nats-server#4320: the bound's host slots are a
// stream's per-subject limit instead, which must hold at both).
//
// What is timed is the crawl alone: each row first waits until every fetcher and transformer
// process is pulling from its consumer and has crawled a small warm-up site (the banner only
// says the gateway and the keys are ready; the other processes may still be starting, and on
// a small machine their start-up is CPU the crawl would be timed against). Each process loads
// BENCH_SCALE_CONCURRENCY pages at once (1 by default), so the expected load, processes ×
// concurrency × CPU per page / site wait, stays within a few cores and the bound is the
// site's wait. `BENCH_ONLY=scale-out npm run bench`; sizes: BENCH_SCALE_REPLICAS=1,2,4
// BENCH_SCALE_PAGES=200 BENCH_SCALE_CONCURRENCY=1 BENCH_SCALE_HOST_BOUND=2.
import http from 'node:http';
import os from 'node:os';
import { connect } from 'nats';
import { startSite, type TestSite } from '../../test/support/site.js';
import { startSystem, type TrawlSystem } from '../../test/support/system.js';
import { until } from '../../test/support/wait.js';
import { STREAM_NAME } from '../../shared/src/infra/subjects.js';
import { snapshotTree } from '../lib/proc.js';
import { sleep } from '../lib/system.js';
import { row } from '../lib/table.js';
import type { ScenarioResult } from './context.js';

const B = '16. Scale-out';

const replicaCounts = (process.env.BENCH_SCALE_REPLICAS ?? '1,2,4').split(',').map(Number);
const PAGES = Number(process.env.BENCH_SCALE_PAGES ?? 200);
const WARM_UP_PAGES = 10;
/** Pages one fetcher process loads at once (and renders, per host). */
const CONCURRENCY = process.env.BENCH_SCALE_CONCURRENCY ?? '1';
/** The fleet's per-host bound of the last row, below the most processes × CONCURRENCY. */
const HOST_BOUND = Number(process.env.BENCH_SCALE_HOST_BOUND ?? 2);
/** The fleet's per-host bound of the other rows: above anything measured. */
const NO_BOUND = 64;

interface ScaleRun {
  replicas: number; hostBound: number; pages: number; seconds: number; pagesPerSec: number;
  cpuMsPerPage: number; mostAtOnce: number; loadAverage: number;
}

interface SlowSite { site: TestSite; mostAtOnce: () => number; resetMost: () => void }

async function slowSite(): Promise<SlowSite> {
  let loading = 0;
  let most = 0;
  const page = (links: string[]): string => `<html><head><title>p</title></head><body><main><h1>Page</h1><p>${'A sentence of text on a slow page. '.repeat(40)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
  const slow = (body: string, delayMs: number) => (_req: http.IncomingMessage, res: http.ServerResponse): void => {
    loading++;
    most = Math.max(most, loading);
    setTimeout(() => { loading--; res.writeHead(200, { 'content-type': 'text/html' }).end(body); }, delayMs);
  };
  const site = await startSite({ '/robots.txt': { body: 'User-agent: *\nAllow: /\n', contentType: 'text/plain' } });
  for (const [prefix, count] of [['warm', WARM_UP_PAGES], ['crawl', PAGES]] as const) {
    site.route(`/${prefix}/`, slow(page(Array.from({ length: count - 1 }, (_, i) => `/${prefix}/${i}`)), 200));
    // 200-500 ms, spread evenly and the same in every run.
    for (let i = 0; i < count - 1; i++) site.route(`/${prefix}/${i}`, slow(page([]), 200 + ((i * 37) % 301)));
  }
  return { site, mostAtOnce: () => most, resetMost: () => { most = loading; } };
}

async function crawl(sys: TrawlSystem, url: string, limit: number): Promise<{ completedUrls: number }> {
  const created = await sys.api('POST', '/api/v1/crawl', { url, limit });
  if (created.status !== 202) throw new Error(`crawl refused: ${JSON.stringify(created.body)}`);
  for (;;) {
    const job = (await sys.api('GET', `/api/v1/crawl/${created.body.id}`)).body;
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(job.status)) return job;
    await sleep(200);
  }
}

/** Until `replicas` processes are pulling from the fetcher's crawl consumer and the transformer's. */
async function consumersJoined(sys: TrawlSystem, replicas: number): Promise<void> {
  const servers = /JetStream cluster of \d+ nats-servers at (\S+)/.exec(sys.logs())?.[1];
  if (!servers) throw new Error('no cluster URL in the banner');
  const nc = await connect({ servers: servers.split(',') });
  try {
    const jsm = await nc.jetstreamManager();
    // Each idle process keeps one pull request waiting (renewed every second).
    const pulling = async (durable: string): Promise<boolean> => (await jsm.consumers.info(STREAM_NAME, durable)).num_waiting >= replicas;
    await until(async () => (await pulling('fetcher-crawl')) && (await pulling('transformer')), { timeoutMs: 120_000, intervalMs: 250 });
  } finally {
    await nc.close();
  }
}

async function run(replicas: number, hostBound: number, natsReplicas = 3): Promise<ScaleRun> {
  const { site, mostAtOnce, resetMost } = await slowSite();
  const sys = await startSystem({
    args: ['--cluster', '--replicas', '1', '--scale', `fetcher=${replicas},transformer=${replicas}`],
    env: {
      CRAWL_ENGINE: 'http', CRAWL_MAX_IN_FLIGHT: '64', FETCHER_CONCURRENCY: CONCURRENCY, FETCHER_HOST_MAX_IN_FLIGHT: CONCURRENCY,
      FLEET_HOST_MAX_IN_FLIGHT: String(hostBound), RATE_LIMITS: 'off', QUOTAS: 'off', LOG_LEVEL: 'warn', NATS_REPLICAS: String(natsReplicas),
    },
  });
  try {
    await consumersJoined(sys, replicas);
    await crawl(sys, site.url('/warm/'), WARM_UP_PAGES);
    await sleep(2_000); // the warm-up's last events settle (projector, webhooks: none)
    resetMost();
    const loadAverage = os.loadavg()[0]!;
    const before = snapshotTree(sys.pid);
    const started = Date.now();
    const job = await crawl(sys, site.url('/crawl/'), PAGES);
    const seconds = (Date.now() - started) / 1000;
    const after = snapshotTree(sys.pid);
    const pages = job.completedUrls;
    return {
      replicas, hostBound, pages, seconds, pagesPerSec: pages / seconds, loadAverage,
      cpuMsPerPage: (after.cpuMs - before.cpuMs) / Math.max(1, pages), mostAtOnce: mostAtOnce(),
    };
  } finally {
    await sys.stop();
    await site.close();
  }
}

export async function scaleOut(log: (message: string) => void): Promise<ScenarioResult> {
  const runs: ScaleRun[] = [];
  for (const n of replicaCounts) {
    log(`${B}: ${n} fetcher+transformer process(es), ${PAGES} pages, ${CONCURRENCY} at once each`);
    runs.push(await run(n, NO_BOUND));
  }
  const most = Math.max(...replicaCounts);
  log(`${B}: ${most} fetcher+transformer process(es) under a fleet bound of ${HOST_BOUND} pages of the host at once`);
  const bounded = await run(most, HOST_BOUND);
  log(`${B}: the same at NATS_REPLICAS 1`);
  const boundedR1 = await run(most, HOST_BOUND, 1);
  const base = runs[0]?.pagesPerSec;
  const rows = runs.flatMap((r) => [
    row(B, `pages per second, ${r.replicas} fetcher+transformer`, r.pagesPerSec, {
      ...(base !== undefined && r !== runs[0] ? { baseline: base } : {}),
      note: `${r.pages} pages of a 200-500 ms site in ${r.seconds.toFixed(1)} s, ${CONCURRENCY} page(s) at once per fetcher; ratio against ${runs[0]?.replicas}; load average ${r.loadAverage.toFixed(1)}`,
    }),
    row(B, `CPU per page, ${r.replicas} fetcher+transformer`, r.cpuMsPerPage, { unit: 'ms', note: 'whole process tree (nats-servers included)' }),
    row(B, `most pages of the host at once, ${r.replicas} fetcher+transformer`, r.mostAtOnce, { note: `${r.replicas} × ${CONCURRENCY} per fetcher, fleet bound ${NO_BOUND}` }),
  ]);
  rows.push(
    row(B, `most pages of the host at once, ${bounded.replicas} fetcher+transformer, fleet bound ${HOST_BOUND}`, bounded.mostAtOnce, {
      note: `FLEET_HOST_MAX_IN_FLIGHT=${HOST_BOUND} across ${bounded.replicas} processes of ${CONCURRENCY} each; must be at most ${HOST_BOUND}`,
    }),
    row(B, `pages per second, ${bounded.replicas} fetcher+transformer, fleet bound ${HOST_BOUND}`, bounded.pagesPerSec, {
      ...(base !== undefined ? { baseline: base } : {}),
      note: `the host's bound, not the processes, sets the pace; load average ${bounded.loadAverage.toFixed(1)}`,
    }),
    row(B, `most pages of the host at once, ${boundedR1.replicas} fetcher+transformer, fleet bound ${HOST_BOUND}, NATS_REPLICAS 1`, boundedR1.mostAtOnce, {
      note: `one copy of each stream (the host slots' limit at one copy); must be at most ${HOST_BOUND}; ${boundedR1.pagesPerSec.toFixed(2)} pages/s`,
    }),
  );
  return { rows, details: { runs: [...runs, bounded, boundedR1] } };
}
