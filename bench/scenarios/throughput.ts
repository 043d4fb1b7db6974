// 2. Throughput: N distinct pages submitted at once through the API. Pages per second from
// the first POST to the last job's completedAt; CPU per page and peak RSS/PSS summed over
// the supervisor's whole process tree (nats-server, services, Chromium), sampled every
// 250 ms. The baseline runs the same pages with as many pages at once as the fetcher.
import type { BaselineRun } from '../lib/baseline-runner.js';
import { cpuShares, TreeSampler } from '../lib/proc.js';
import { median } from '../lib/stats.js';
import { fetchJobs, JobWatcher, submitScrape, type JobTimings } from '../lib/system.js';
import { mb, row } from '../lib/table.js';
import { SCRAPE_BODY, type BenchContext, type ScenarioResult } from './context.js';

const THROUGHPUT = '2. Throughput';

export function throughputPath(i: number): string {
  return `/t/${i}`;
}

/** `label` and `body` let the engines bench run the same scenario with engine auto. */
export async function throughput(
  ctx: BenchContext, baseline: BaselineRun, baselineConcurrency: number, opts: { label?: string; body?: Record<string, unknown> } = {},
): Promise<ScenarioResult> {
  const B = opts.label ?? THROUGHPUT;
  const body = opts.body ?? SCRAPE_BODY;
  const { sys, rootPid } = ctx.bs;
  const n = ctx.sizes.throughputPages;
  const urls = Array.from({ length: n }, (_, i) => ctx.site.url(throughputPath(i)));
  const watcher = new JobWatcher(sys, 250);
  const sampler = new TreeSampler(rootPid).start();
  const startedWall = Date.now();
  const started = performance.now();
  const created = await Promise.all(urls.map((url) => submitScrape(sys, { url, ...body })));
  const submitMs = performance.now() - started;
  ctx.log(`  ${n} submitted in ${Math.round(submitMs)} ms`);
  const progress = setInterval(() => ctx.log(`  ${n - watcher.pending}/${n} finished`), 15_000);
  const items = await Promise.all(created.map((c) => watcher.wait(c.id))).finally(() => clearInterval(progress));
  const usage = sampler.stop();
  watcher.stop();

  const completed = items.filter((i) => i.status === 'COMPLETED');
  const lastDone = Math.max(...items.map((i) => (i.completedAt ? Date.parse(i.completedAt) : Date.now())));
  const wallMs = Math.max(1, lastDone - startedWall);
  const pagesPerSec = completed.length / (wallMs / 1000);
  const cpuPerPage = usage.cpuMs / Math.max(1, completed.length);
  const rateLimited = created.reduce((a, c) => a + c.rateLimited, 0);

  const jobs = await fetchJobs(sys, created.map((c) => c.id));
  const timings = jobs.map((j) => j.timings).filter((t): t is JobTimings => t !== undefined);
  const med = (k: keyof JobTimings): number => Math.round(median(timings.map((t) => t[k])));

  const base = baseline.output;
  const basePps = base.pages.length / (base.wallMs / 1000);
  const baseCpu = baseline.usage.cpuMs / base.pages.length;
  const baseNote = `baseline: ${base.pages.length} pages, ${baselineConcurrency} at once`;
  const peakBreakdown = Object.entries(usage.atPeak.byName)
    .sort((a, b) => b[1].rssKb - a[1].rssKb)
    .map(([name, m]) => `${name} ${Math.round(mb(m.rssKb))}`).join(', ');
  const rows = [
    row(B, 'pages per second', pagesPerSec, { baseline: basePps, note: `${completed.length}/${n} completed in ${(wallMs / 1000).toFixed(1)} s; ${baseNote}` }),
    row(B, 'CPU per page', cpuPerPage, { unit: 'ms', baseline: baseCpu, note: `user+sys, all processes: ${cpuShares(usage.cpuByName)}` }),
    row(B, 'peak RSS (sum over processes)', mb(usage.peakRssKb), { unit: 'MB', baseline: mb(baseline.usage.peakRssKb), note: `at peak, MB: ${peakBreakdown}` }),
    row(B, 'peak PSS (sum over processes)', mb(usage.peakPssKb), { unit: 'MB', baseline: mb(baseline.usage.peakPssKb) }),
    row(B, 'median stage timings under load', `queue ${med('queueWaitMs')}, fetch ${med('fetchMs')}, render ${med('renderMs')}, transform ${med('transformMs')}, total ${med('totalMs')} ms`),
    row(B, 'all POSTs answered', submitMs, { unit: 'ms', note: rateLimited ? `${rateLimited} answers were 429 (retried)` : 'no 429' }),
  ];
  if (completed.length < n) rows.push(row(B, 'failed pages', n - completed.length));
  return {
    rows,
    details: { pages: n, completed: completed.length, wallMs, submitMs, pagesPerSec, cpuPerPage, usage, rateLimited, baseline: { wallMs: base.wallMs, pages: base.pages.length, usage: baseline.usage } },
  };
}
