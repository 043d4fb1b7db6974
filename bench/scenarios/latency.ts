// 1. Scrape latency: one ~100 KB article, markdown only, sequential scrapes with distinct
// URLs (a query string) so nothing is cached. Measured from the client (POST until the job
// reads COMPLETED, polling every 10 ms) and from the job's own timings, against the naive
// baseline on the same page in the same run.
import { median, medianOfFields, percentile } from '../lib/stats.js';
import type { BaselineRun } from '../lib/baseline-runner.js';
import { cpuShares, TreeSampler } from '../lib/proc.js';
import { JobEvents, natsUrlFromLogs, stageBreakdown, type StageBreakdown } from '../lib/events.js';
import { submitScrape, waitJob, type JobTimings } from '../lib/system.js';
import { row } from '../lib/table.js';
import { SCRAPE_BODY, type BenchContext, type ScenarioResult } from './context.js';

const B = '1. Scrape latency';
const POLL_MS = 10;

export const ARTICLE_PATH = '/article';

/** URLs of the latency run: warm-up first, then the measured ones; `tag` keeps runs apart. */
export function latencyUrls(origin: string, tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${origin}${ARTICLE_PATH}?${tag}=${i}`);
}

interface Sample { id: string; e2eMs: number; postMs: number; timings: JobTimings; stages?: StageBreakdown }

const STAGES = ['queueMs', 'fetcherMs', 'browserWorkMs', 'fetcherOverheadMs', 'transformerMs', 'transformMs', 'transformerOverheadMs'] as const;

export async function latency(ctx: BenchContext, baseline: BaselineRun): Promise<ScenarioResult> {
  const { sys } = ctx.bs;
  const { warmupScrapes, latencyScrapes } = ctx.sizes;
  const urls = latencyUrls(ctx.site.origin, 'trawl', warmupScrapes + latencyScrapes);
  const samples: Sample[] = [];
  const failures: string[] = [];
  let sampler: TreeSampler | undefined;
  for (const [i, url] of urls.entries()) {
    if (i === warmupScrapes) sampler = new TreeSampler(ctx.bs.rootPid).start();
    const t0 = performance.now();
    const created = await submitScrape(sys, { url, ...SCRAPE_BODY });
    const postMs = performance.now() - t0;
    const { job, doneAt } = await waitJob(sys, created.id, POLL_MS);
    if (job.status !== 'COMPLETED' || !job.timings) {
      failures.push(`${url}: ${job.status} ${job.error?.message ?? ''}`);
      continue;
    }
    if (i >= warmupScrapes) samples.push({ id: created.id, e2eMs: doneAt - t0, postMs, timings: job.timings });
  }

  const usage = sampler?.stop();
  await addStages(ctx, samples);
  const e2e = samples.map((s) => s.e2eMs);
  const total = samples.map((s) => s.timings.totalMs);
  const t = (k: keyof JobTimings): number => median(samples.map((s) => s.timings[k]));
  const st = medianOfFields(samples.flatMap((s) => (s.stages ? [s.stages] : [])), STAGES);
  const outside = median(samples.map((s) => s.e2eMs - s.timings.totalMs));

  const base = baseline.output.pages;
  const baseTotal = base.map((p) => p.totalMs);
  const n = `n=${samples.length}`;
  const ms = (v: number): string => `${Math.round(v)} ms`;
  const rows = [
    row(B, 'POST → COMPLETED p50', median(e2e), { unit: 'ms', baseline: median(baseTotal), note: `${n}, polled every ${POLL_MS} ms; baseline: one process, no queue` }),
    row(B, 'POST → COMPLETED p95', percentile(e2e, 95), { unit: 'ms', baseline: percentile(baseTotal, 95) }),
    row(B, 'job timings.totalMs p50 / p95', `${ms(median(total))} / ${ms(percentile(total, 95))}`),
    row(B, 'median queue (requested → fetcher starts)', st.queueMs, { unit: 'ms', note: `timings.queueWaitMs ${ms(t('queueWaitMs'))}` }),
    row(B, 'median fetcher (start → page_fetched)', st.fetcherMs, { unit: 'ms', baseline: median(base.map((p) => p.browserMs)),
      note: `navigation ${ms(t('fetchMs'))} + render ${ms(t('renderMs'))}; rest ${ms(st.fetcherOverheadMs)}: context, proxy, Object Store, events. Baseline: context+goto(load)+content+close` }),
    row(B, 'median transformer (page_fetched → completed)', st.transformerMs, { unit: 'ms', baseline: median(base.map((p) => p.transformMs)),
      note: `transformMs ${ms(st.transformMs)}; rest ${ms(st.transformerOverheadMs)}: pick-up, Object Store, events. Baseline: JSDOM+Readability+turndown` }),
    row(B, 'CPU per scrape (one at a time)', (usage?.cpuMs ?? Number.NaN) / Math.max(1, samples.length), { unit: 'ms', baseline: baseline.usage.cpuMs / Math.max(1, base.length),
      note: usage ? `all processes (the gateway's share includes answering the 10 ms polling): ${cpuShares(usage.cpuByName)}` : '' }),
    row(B, 'median after completion (POST → COMPLETED − totalMs)', outside, { unit: 'ms', note: `POST ${ms(median(samples.map((s) => s.postMs)))}, projection, polling` }),
  ];
  if (failures.length) rows.push(row(B, 'failed scrapes', failures.length, { note: failures[0]!.slice(0, 120) }));
  return {
    rows,
    details: {
      samples,
      failures,
      baseline: { launchMs: baseline.output.launchMs, pages: base },
    },
  };
}

/** Adds each sample's stage breakdown from its events (skipped when NATS cannot be reached). */
async function addStages(ctx: BenchContext, samples: Sample[]): Promise<void> {
  const url = natsUrlFromLogs(ctx.bs.sys.logs());
  if (!url) { ctx.log('  NATS URL not found in the supervisor output: no stage breakdown'); return; }
  const events = await JobEvents.connect(url);
  try {
    for (const s of samples) s.stages = stageBreakdown(await events.history(s.id), s.timings);
  } finally {
    await events.close();
  }
}
