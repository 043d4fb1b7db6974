// 3. Cache hit and 4. status reads: the gateway under 50 connections of autocannon, run as
// its own process. A reference scrape is made first; its job is what the status reads GET,
// and repeating its request is the cache hit. Before the result cache exists, a repeated
// POST creates a job each time: then a bounded number of POSTs is measured (labelled "not
// cached yet") and the queue is drained before the next benchmark.
import type { TrawlSystem } from '../../test/support/system.js';
import { runAutocannon, type LoadResult } from '../lib/autocannon.js';
import { cpuShares, TreeSampler } from '../lib/proc.js';
import { sleep, submitScrape, waitJob } from '../lib/system.js';
import { row, type Row } from '../lib/table.js';
import { ARTICLE_PATH } from './latency.js';
import { SCRAPE_BODY, type BenchContext, type ScenarioResult } from './context.js';

const CACHE = '3. Cache hit';
const STATUS = '4. Status reads';
/** POSTs sent when each one makes a new job (no cache yet): enough for percentiles, few enough to drain quickly. */
const UNCACHED_POSTS = 200;

function loadRows(bench: string, r: LoadResult, note: string, cpu: Record<string, number>): Row[] {
  const bad = r.non2xx + r.errors + r.timeouts;
  const codes = Object.entries(r.statusCodes).map(([c, k]) => `${c}×${k}`).join(' ');
  return [
    row(bench, 'requests per second', r.requestsPerSec, { note: `${note}; ${r.total} requests (${codes})${bad ? `, ${bad} failed` : ''}` }),
    row(bench, 'latency p50 / p99', `${r.p50Ms} / ${r.p99Ms} ms`, { note: `system CPU: ${cpuShares(cpu)}` }),
  ];
}

/** autocannon with the system's process tree sampled meanwhile (which process is the bottleneck). */
async function measured(rootPid: number, opts: Parameters<typeof runAutocannon>[0]): Promise<{ result: LoadResult; cpuByName: Record<string, number> }> {
  const sampler = new TreeSampler(rootPid, 1000).start();
  const result = await runAutocannon(opts);
  return { result, cpuByName: sampler.stop().cpuByName };
}

/** Waits until none of the newest 100 jobs is still PENDING or PROCESSING. */
async function drain(sys: TrawlSystem, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await sys.api<{ status: string }[]>('GET', '/api/v1/scrape?limit=100');
    if (res.status === 200 && res.body.every((j) => j.status === 'COMPLETED' || j.status === 'FAILED')) return true;
    await sleep(500);
  }
  return false;
}

export async function apiLoad(ctx: BenchContext): Promise<ScenarioResult> {
  const { sys, rootPid } = ctx.bs;
  const { loadConnections: connections, loadDurationSec: durationSec } = ctx.sizes;
  const body = JSON.stringify({ url: ctx.site.url(`${ARTICLE_PATH}?ref=cache`), ...SCRAPE_BODY });
  const headers = { authorization: `Bearer ${sys.apiKey}`, 'content-type': 'application/json' };

  const reference = await submitScrape(sys, JSON.parse(body));
  const { job } = await waitJob(sys, reference.id, 20);
  const again = await submitScrape(sys, JSON.parse(body));
  const cached = again.body?.fromCache === true;
  ctx.log(`  reference job ${job.status}; repeated POST ${cached ? 'is a cache hit' : 'is not cached yet'}`);

  const rows: Row[] = [];
  const details: Record<string, unknown> = { referenceJob: reference.id, cached };
  const url = `${sys.baseUrl}/api/v1/scrape`;
  if (cached) {
    const r = await measured(rootPid, { url, method: 'POST', headers, body, connections, durationSec });
    details.cache = r;
    rows.push(...loadRows(CACHE, r.result, `${connections} connections, ${durationSec} s`, r.cpuByName));
  } else {
    const r = await measured(rootPid, { url, method: 'POST', headers, body, connections, amount: UNCACHED_POSTS });
    details.cache = r;
    rows.push(...loadRows(CACHE, r.result, `not cached yet: each POST creates a job; ${UNCACHED_POSTS} POSTs`, r.cpuByName));
    details.drained = await drain(sys, 300_000);
  }

  const status = await measured(rootPid, { url: `${url}/${reference.id}`, headers: { authorization: headers.authorization }, connections, durationSec });
  details.status = status;
  const size = job.markdown ? `${Math.round(Buffer.byteLength(job.markdown) / 1024)} KB markdown` : 'no markdown';
  rows.push(...loadRows(STATUS, status.result, `GET of a COMPLETED job (${size}), ${connections} connections, ${durationSec} s`, status.cpuByName));
  return { rows, details };
}
