// 1. Scrape latency: one ~100 KB article, markdown only, sequential scrapes with distinct
// URLs (a query string) so nothing is cached. Measured from the client (one POST with
// `waitMs`, the synchronous scrape: the gateway answers on the projector's notice), from
// the job's own timings, and hop by hop along its critical path (its events as JetStream
// stored them, the notice as received here), against the naive baseline on the same page
// in the same run.
import { median, medianOfFields, percentile } from '../lib/stats.js';
import { runBaseline, type BaselineRun } from '../lib/baseline-runner.js';
import { cpuShares, TreeSampler, type TreeUsage } from '../lib/proc.js';
import { CRITICAL_HOPS, criticalHops, JobEvents, natsUrlFromLogs, stageBreakdown, type CriticalPath, type StageBreakdown } from '../lib/events.js';
import { submitScrape, waitJob, type JobTimings, type JobView } from '../lib/system.js';
import { row } from '../lib/table.js';
import { SCRAPE_BODY, type BenchContext, type ScenarioResult } from './context.js';

const B = '1. Scrape latency';
/** The synchronous scrape's wait; a 202 (not finished by then) is polled every POLL_MS. */
const WAIT_MS = 60_000;
const POLL_MS = 10;

export const ARTICLE_PATH = '/article';

/** URLs of the latency run: warm-up first, then the measured ones; `tag` keeps runs apart. */
export function latencyUrls(origin: string, tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${origin}${ARTICLE_PATH}?${tag}=${i}`);
}

interface Sample { id: string; e2eMs: number; sentAt: number; answeredAt: number; timings: JobTimings; stages?: StageBreakdown; path?: CriticalPath }

const STAGES = ['queueMs', 'fetcherMs', 'browserWorkMs', 'fetcherOverheadMs', 'transformerMs', 'transformMs', 'transformerOverheadMs'] as const;

/**
 * `baseline` ran before the system booted; without it (BENCH_LATENCY_ROUNDS > 1, for a
 * shared machine whose load moves from minute to minute) the naive script runs here in
 * rounds, each of its scrapes beside the system's, so both sides meet the same load.
 */
export async function latency(ctx: BenchContext, baseline?: BaselineRun): Promise<ScenarioResult> {
  const { sys } = ctx.bs;
  const { warmupScrapes, latencyScrapes, latencyRounds } = ctx.sizes;
  const urls = latencyUrls(ctx.site.origin, 'trawl', warmupScrapes + latencyScrapes);
  const samples: Sample[] = [];
  const failures: string[] = [];
  const rounds = baseline ? 1 : Math.max(1, Math.min(latencyRounds, latencyScrapes));
  const measured = urls.slice(warmupScrapes);
  const perRound = Math.ceil(measured.length / rounds);
  const baseRuns: BaselineRun[] = baseline ? [baseline] : [];
  const usages: TreeUsage[] = [];
  const natsUrl = natsUrlFromLogs(sys.logs());
  if (!natsUrl) ctx.log('  NATS URL not found in the supervisor output: no stage breakdown, no critical path');
  const events = natsUrl ? await JobEvents.connect(natsUrl) : undefined;
  await events?.watchNotices();
  for (const url of urls.slice(0, warmupScrapes)) await scrapeOnce(url);
  for (let r = 0; r < rounds; r++) {
    const chunk = measured.slice(r * perRound, (r + 1) * perRound);
    if (!baseline) {
      const baseUrls = latencyUrls(ctx.site.origin, `base${r}`, 1 + chunk.length);
      baseRuns.push(await runBaseline({ urls: baseUrls, concurrency: 1, warmup: 1 }));
    }
    const sampler = new TreeSampler(ctx.bs.rootPid).start();
    for (const url of chunk) {
      const sample = await scrapeOnce(url);
      if (sample) samples.push(sample);
    }
    usages.push(sampler.stop());
  }

  async function scrapeOnce(url: string): Promise<Sample | undefined> {
    const sentAt = Date.now();
    const t0 = performance.now();
    const created = await submitScrape(sys, { url, ...SCRAPE_BODY, waitMs: WAIT_MS });
    let job = created.body as JobView;
    let doneAt = performance.now();
    if (created.status !== 200) ({ job, doneAt } = await waitJob(sys, created.id, POLL_MS));
    const answeredAt = sentAt + (doneAt - t0);
    if (job.status !== 'COMPLETED' || !job.timings) {
      failures.push(`${url}: ${job.status} ${job.error?.message ?? ''}`);
      return undefined;
    }
    return { id: created.id, e2eMs: doneAt - t0, sentAt, answeredAt, timings: job.timings };
  }

  const usage = usages.length ? { cpuMs: usages.reduce((a, u) => a + u.cpuMs, 0), cpuByName: sumByName(usages.map((u) => u.cpuByName)) } : undefined;
  if (events) {
    try {
      for (const s of samples) {
        s.stages = stageBreakdown(await events.history(s.id), s.timings);
        s.path = await events.criticalPath(s.id, s.sentAt, s.answeredAt);
      }
    } finally {
      await events.close();
    }
  }
  const paths = samples.flatMap((s) => (s.path ? [criticalHops(s.path)] : []));
  const e2e = samples.map((s) => s.e2eMs);
  const total = samples.map((s) => s.timings.totalMs);
  const t = (k: keyof JobTimings): number => median(samples.map((s) => s.timings[k]));
  const st = medianOfFields(samples.flatMap((s) => (s.stages ? [s.stages] : [])), STAGES);
  const outside = median(samples.map((s) => s.e2eMs - s.timings.totalMs));

  const base = baseRuns.flatMap((b) => b.output.pages);
  const baseCpuMs = baseRuns.reduce((a, b) => a + b.usage.cpuMs, 0);
  const roundsNote = rounds > 1 ? `; in ${rounds} rounds, the baseline's scrapes between the system's` : '';
  const baseTotal = base.map((p) => p.totalMs);
  const n = `n=${samples.length}`;
  const ms = (v: number): string => `${Math.round(v)} ms`;
  const rows = [
    row(B, 'POST (waitMs) → COMPLETED p50', median(e2e), { unit: 'ms', baseline: median(baseTotal), note: `${n}, one POST with waitMs answered on the projector's notice; baseline: one process, no queue${roundsNote}` }),
    row(B, 'POST (waitMs) → COMPLETED p95', percentile(e2e, 95), { unit: 'ms', baseline: percentile(baseTotal, 95) }),
    row(B, 'critical path, median per hop', paths.length ? CRITICAL_HOPS.map(([name]) => `${name} ${ms(median(paths.map((p) => p[name]!)))}`).join('; ') : 'not measured',
      { note: `n=${paths.length}: the events' JetStream store times, the final notice as the bench received it` }),
    row(B, 'job timings.totalMs p50 / p95', `${ms(median(total))} / ${ms(percentile(total, 95))}`),
    row(B, 'median queue (requested → fetcher starts)', st.queueMs, { unit: 'ms', note: `timings.queueWaitMs ${ms(t('queueWaitMs'))}` }),
    row(B, 'median fetcher (start → page_fetched)', st.fetcherMs, { unit: 'ms', baseline: median(base.map((p) => p.browserMs)),
      note: `navigation ${ms(t('fetchMs'))} + render ${ms(t('renderMs'))}; rest ${ms(st.fetcherOverheadMs)}: context, proxy, Object Store, events. Baseline: context+goto(load)+content+close` }),
    row(B, 'median transformer (page_fetched → completed)', st.transformerMs, { unit: 'ms', baseline: median(base.map((p) => p.transformMs)),
      note: `transformMs ${ms(st.transformMs)}; rest ${ms(st.transformerOverheadMs)}: pick-up, Object Store, events. Baseline: JSDOM+Readability+turndown` }),
    row(B, 'CPU per scrape (one at a time)', (usage?.cpuMs ?? Number.NaN) / Math.max(1, samples.length), { unit: 'ms', baseline: baseCpuMs / Math.max(1, base.length),
      note: usage ? `all processes: ${cpuShares(usage.cpuByName)}` : '' }),
    row(B, 'median after completion (POST → COMPLETED − totalMs)', outside, { unit: 'ms', note: 'the POST and its append, projection, the notice, the answer' }),
  ];
  if (failures.length) rows.push(row(B, 'failed scrapes', failures.length, { note: failures[0]!.slice(0, 120) }));
  return {
    rows,
    details: {
      samples,
      failures,
      baseline: { launchMs: baseRuns.map((b) => b.output.launchMs), pages: base, rounds },
    },
  };
}

function sumByName(parts: Record<string, number>[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of parts) for (const [name, ms] of Object.entries(part)) out[name] = (out[name] ?? 0) + ms;
  return out;
}
