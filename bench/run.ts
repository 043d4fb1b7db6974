// `npm run bench`: boots the system like `npm start` (embedded defaults), serves its own
// pages on 127.0.0.1, runs the benchmarks in order and prints one table (also written to
// bench/results.json). Never asserts timings: it reports them. Baselines run first, on an
// idle machine, as their own processes. Rows for endpoints that do not exist yet read
// "n/a (endpoint missing)". See docs/benchmarks.md for the reading of the numbers.
//
// Sizes can be changed with environment variables (e.g. BENCH_STABILITY_SCRAPES=500), and
// BENCH_ONLY=latency,throughput,cache,map,crawl,stability,engines,extraction,extraction-service,documents,recrawl,scale-out runs a subset.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../shared/src/infra/config.js';
import { startSite, type TestSite } from '../test/support/site.js';
import { runBaseline, type BaselineRun } from './lib/baseline-runner.js';
import { articleHtml, PIXEL_PNG } from './lib/pages.js';
import { bootSystem, type BenchSystem } from './lib/system.js';
import { formatTable, row, type Row } from './lib/table.js';
import { apiLoad } from './scenarios/api-load.js';
import type { BenchContext, ScenarioResult, Sizes } from './scenarios/context.js';
import { crawl } from './scenarios/crawl.js';
import { recrawl } from './scenarios/recrawl.js';
import { documents } from './scenarios/documents.js';
import { engineCrawl, engineMixed, engineThroughput } from './scenarios/engines.js';
import { engineZoo } from './scenarios/zoo.js';
import { extraction } from './scenarios/extraction.js';
import { extractionService, wcxbThroughService } from './scenarios/extraction-service.js';
import { ARTICLE_PATH, latency, latencyUrls } from './scenarios/latency.js';
import { map } from './scenarios/map.js';
import { scaleOut } from './scenarios/scale-out.js';
import { STABILITY_PATH, stability } from './scenarios/stability.js';
import { throughput, throughputPath } from './scenarios/throughput.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function size(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const SIZES: Sizes = {
  pageBytes: size('BENCH_PAGE_BYTES', 100_000),
  latencyScrapes: size('BENCH_LATENCY_SCRAPES', 30),
  latencyRounds: size('BENCH_LATENCY_ROUNDS', 1),
  warmupScrapes: size('BENCH_WARMUP_SCRAPES', 3),
  throughputPages: size('BENCH_THROUGHPUT_PAGES', 500),
  baselineThroughputPages: size('BENCH_BASELINE_THROUGHPUT_PAGES', 100),
  loadDurationSec: size('BENCH_LOAD_SECONDS', 10),
  loadConnections: size('BENCH_LOAD_CONNECTIONS', 50),
  mapChildren: size('BENCH_MAP_CHILDREN', 10),
  mapUrlsPerChild: size('BENCH_MAP_URLS_PER_CHILD', 5_000),
  crawlPages: size('BENCH_CRAWL_PAGES', 500),
  mixedPages: size('BENCH_MIXED_PAGES', 150),
  httpCrawlerConcurrency: size('BENCH_HTTP_CRAWLER_CONCURRENCY', 4),
  stabilityScrapes: size('BENCH_STABILITY_SCRAPES', 2_000),
  stabilityConcurrency: size('BENCH_STABILITY_CONCURRENCY', 8),
  stabilityPageBytes: size('BENCH_STABILITY_PAGE_BYTES', 10_000),
  documentRuns: size('BENCH_DOCUMENT_RUNS', 10),
};

const SCENARIOS = ['latency', 'throughput', 'cache', 'map', 'crawl', 'stability', 'engines', 'extraction', 'extraction-service', 'documents', 'recrawl', 'scale-out'] as const;
type Scenario = (typeof SCENARIOS)[number];
const only = new Set((process.env.BENCH_ONLY ?? SCENARIOS.join(',')).split(',').map((s) => s.trim()).filter(Boolean));
const runs = (s: Scenario): boolean => only.has(s);
/** BENCH_ENGINES=crawl,mixed,scrapes,zoo: which of the engines benchmarks (8, 9, 10, 14) run; all by default. */
const ENGINE_PARTS = ['crawl', 'mixed', 'scrapes', 'zoo'] as const;
const engineParts = new Set((process.env.BENCH_ENGINES ?? ENGINE_PARTS.join(',')).split(',').map((s) => s.trim()).filter(Boolean));
const runsEngines = (part: (typeof ENGINE_PARTS)[number]): boolean => runs('engines') && engineParts.has(part);

const wallStarted = performance.now();
const log = (message: string): void => {
  process.stderr.write(`[bench ${((performance.now() - wallStarted) / 1000).toFixed(1).padStart(6)} s] ${message}\n`);
};

/** The scrape pages: the ~100 KB article, the throughput pages and the stability page, all generated up front. */
async function scrapeSite(): Promise<TestSite> {
  const site = await startSite();
  site.route(ARTICLE_PATH, { body: Buffer.from(articleHtml({ seed: 1, targetBytes: SIZES.pageBytes })) });
  for (let i = 0; i < SIZES.throughputPages; i++) {
    site.route(throughputPath(i), { body: Buffer.from(articleHtml({ seed: 1_000 + i, targetBytes: SIZES.pageBytes })) });
  }
  site.route(STABILITY_PATH, { body: Buffer.from(articleHtml({ seed: 2, targetBytes: SIZES.stabilityPageBytes })) });
  for (let i = 0; i < 100; i++) site.route(`/img/${i}.png`, { body: PIXEL_PNG, contentType: 'image/png' });
  return site;
}

async function guarded(bench: string, name: string, fn: () => Promise<ScenarioResult>, systemLogs: () => string): Promise<ScenarioResult> {
  const started = performance.now();
  log(`${bench}...`);
  try {
    const result = await fn();
    log(`${bench} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return result;
  } catch (err) {
    log(`${bench} failed: ${(err as Error).stack ?? err}\n--- system output (tail) ---\n${systemLogs().slice(-6000)}\n---`);
    return { rows: [row(bench, name, `error: ${(err as Error).message.split('\n')[0]!.slice(0, 160)}`)], details: { error: String(err) } };
  }
}

async function main(): Promise<void> {
  const fetcherConcurrency = loadConfig({ FETCHER_CONCURRENCY: process.env.FETCHER_CONCURRENCY }).fetcherConcurrency;
  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
  };
  log(`machine: ${machine.cpus} cores (${machine.cpuModel}), ${machine.memoryGb} GB; sizes ${JSON.stringify(SIZES)}`);
  const site = await scrapeSite();
  log(`pages generated and served at ${site.origin}`);

  // Baselines first, on an otherwise idle machine.
  let latencyBase: BaselineRun | undefined;
  let throughputBase: BaselineRun | undefined;
  if (runs('latency') && SIZES.latencyRounds === 1) {
    log('baseline: sequential scrapes of the article');
    latencyBase = await runBaseline({ urls: latencyUrls(site.origin, 'base', SIZES.warmupScrapes + SIZES.latencyScrapes), concurrency: 1, warmup: SIZES.warmupScrapes });
  }
  if (runs('throughput') || runsEngines('crawl') || runsEngines('scrapes')) {
    const n = Math.min(SIZES.baselineThroughputPages, SIZES.throughputPages);
    log(`baseline: ${n} pages, ${fetcherConcurrency} at once`);
    const urls = Array.from({ length: n }, (_, i) => site.url(throughputPath(i)));
    throughputBase = await runBaseline({ urls: [...urls.slice(0, 2).map((u) => `${u}?warm`), ...urls], concurrency: fetcherConcurrency, warmup: 2 });
  }

  // In-process and CPU-bound: measured before the system boots, on an idle machine too.
  let extractionResult: ScenarioResult | undefined;
  if (runs('extraction')) extractionResult = await guarded('11. Extraction (dev set)', 'extraction', () => extraction(log), () => '');

  const results: Record<string, ScenarioResult> = {};
  if (extractionResult) results.extraction = extractionResult;
  let services: string[] = [];
  if (SCENARIOS.some((s) => s !== 'extraction' && s !== 'scale-out' && runs(s))) {
    log('booting the system');
    const bs: BenchSystem = await bootSystem();
    services = bs.services;
    log(`system up at ${bs.sys.baseUrl} (supervisor pid ${bs.rootPid}; services ${bs.services.join(', ')})`);
    const ctx: BenchContext = { bs, site, sizes: SIZES, log };
    const logs = (): string => bs.sys.logs();
    try {
      if (runs('latency')) results.latency = await guarded('1. Scrape latency', 'latency', () => latency(ctx, latencyBase), logs);
      if (runs('cache')) results.apiLoad = await guarded('3. Cache hit / 4. Status reads', 'load', () => apiLoad(ctx), logs);
      if (throughputBase && runs('throughput')) results.throughput = await guarded('2. Throughput', 'throughput', () => throughput(ctx, throughputBase, fetcherConcurrency), logs);
      if (runs('map')) results.map = await guarded('5. Map', 'map', () => map(ctx), logs);
      if (runs('crawl')) results.crawl = await guarded('6. Crawl', 'crawl', () => crawl(ctx), logs);
      if (runs('stability')) results.stability = await guarded('7. Stability', 'stability', () => stability(ctx), logs);
      if (runsEngines('crawl')) results.engineCrawl = await guarded('8. Engines: crawl', 'crawl', () => engineCrawl(ctx, throughputBase), logs);
      if (runsEngines('mixed')) results.engineMixed = await guarded('9. Engines: mixed site', 'mixed', () => engineMixed(ctx), logs);
      if (throughputBase && runsEngines('scrapes')) results.engineThroughput = await guarded('10. Engines: scrapes', 'throughput', () => engineThroughput(ctx, throughputBase, fetcherConcurrency), logs);
      if (runsEngines('zoo')) results.engineZoo = await guarded('14. Engines: site zoo', 'zoo', () => engineZoo(ctx), logs);
      if (runs('extraction-service')) results.extractionService = await guarded('12. Extraction through the service', 'extraction-service', () => extractionService(ctx), logs);
      if (runs('extraction-service')) results.extractionServiceWcxb = await guarded('12b. Extraction through the service (WCXB dev)', 'extraction-service', () => wcxbThroughService(ctx), logs);
      if (runs('recrawl')) results.recrawl = await guarded('15. Recrawl', 'recrawl', () => recrawl(ctx), logs);
      if (runs('documents')) results.documents = await guarded('13. Documents', 'documents', () => documents(ctx, SIZES.documentRuns), logs);
    } finally {
      await bs.sys.stop();
    }
  }
  await site.close();
  // Boots clusters of its own: after the shared system is gone.
  if (runs('scale-out')) results.scaleOut = await guarded('16. Scale-out', 'scale-out', () => scaleOut(log), () => '');

  const order = ['latency', 'throughput', 'apiLoad', 'map', 'crawl', 'stability', 'engineCrawl', 'engineMixed', 'engineThroughput', 'engineZoo', 'extraction', 'extractionService', 'extractionServiceWcxb', 'documents', 'recrawl', 'scaleOut'];
  const rows: Row[] = order.flatMap((k) => results[k]?.rows ?? []);
  const wallMs = performance.now() - wallStarted;
  const table = formatTable(rows);
  const report = {
    date: new Date().toISOString(),
    machine,
    sizes: SIZES,
    services,
    wallSeconds: Math.round(wallMs / 1000),
    rows,
    details: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, v.details])),
  };
  fs.writeFileSync(path.join(root, 'bench/results.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\nTrawl benchmarks, ${report.date}, ${machine.cpus} cores, ${machine.memoryGb} GB\n\n${table}\n\n`);
  process.stdout.write(`Wall time of the whole run: ${(wallMs / 1000).toFixed(0)} s (bench/results.json has the details)\n`);
}

await main();
