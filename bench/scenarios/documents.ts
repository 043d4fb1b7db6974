// 13. Documents: a generated 20-page PDF (headings, paragraphs, a list and a table per
// page) scraped through the service BENCH_DOCUMENT_RUNS times, one after the other, as
// users send it (the default scrape engine: the browser sees a PDF and the fetcher gets it
// over HTTP), then as many times with engine http. Reported: PDF pages per second end to
// end (both ways) and in the transformer's parse
// (timings.transformMs), the transformer's CPU per page, and its peak RSS while parsing
// (sampled from /proc every 50 ms) against its RSS just before. Baseline, same run: the
// same parse in this process (pdf.js text layer + layout heuristics, no service around it).
import { parsePdf } from '../../services/transformer/src/documents/pdf.js';
import { longReportPdf } from '../../test/support/documents.js';
import { snapshotTree } from '../lib/proc.js';
import { median } from '../lib/stats.js';
import { submitScrape, waitJob } from '../lib/system.js';
import { row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';

const BENCH = '13. Documents (20-page PDF)';
const PAGES = 20;

export async function documents(ctx: BenchContext, runs: number): Promise<ScenarioResult> {
  const pdf = await longReportPdf(PAGES);
  ctx.site.route('/documents/report', { body: pdf, contentType: 'application/pdf' });

  // Baseline: the parse alone, in this process (after one warm-up parse).
  await parsePdf(pdf, PAGES);
  const inProcessMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await parsePdf(pdf, PAGES);
    inProcessMs.push(performance.now() - started);
  }

  const { sys } = ctx.bs;
  const transformerRss = (): number => snapshotTree(ctx.bs.rootPid).byName.transformer?.rssKb ?? 0;
  const scrape = async (i: number, engine?: 'http') => {
    const created = await submitScrape(sys, { url: ctx.site.url(`/documents/report?run=${i}${engine ? `&engine=${engine}` : ''}`), ...(engine ? { engine } : {}) });
    const { job } = await waitJob(sys, created.id, 50);
    if (job.status !== 'COMPLETED') throw new Error(`document scrape ${i} ended ${job.status}: ${JSON.stringify(job.error)}`);
    return job;
  };
  await scrape(-1); // warm-up: pdf.js loaded in a transformer thread
  const idleRssKb = transformerRss();
  let peakRssKb = idleRssKb;
  const sampler = setInterval(() => { peakRssKb = Math.max(peakRssKb, transformerRss()); }, 50);
  const before = snapshotTree(ctx.bs.rootPid);
  const started = performance.now();
  const transformMs: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      const job = await scrape(i);
      transformMs.push(job.timings?.transformMs ?? 0);
    }
  } finally {
    clearInterval(sampler);
  }
  const wallMs = performance.now() - started;
  const after = snapshotTree(ctx.bs.rootPid);
  // The same scrapes without the browser's look first (engine http, as crawl and batch pages under auto).
  const httpStarted = performance.now();
  for (let i = 0; i < runs; i++) await scrape(i, 'http');
  const httpWallMs = performance.now() - httpStarted;
  const cpuMs = (after.byName.transformer?.cpuMs ?? 0) - (before.byName.transformer?.cpuMs ?? 0);
  peakRssKb = Math.max(peakRssKb, after.byName.transformer?.rssKb ?? 0);

  const pagesPerSecond = (ms: number): number => Math.round((PAGES / (ms / 1000)) * 10) / 10;
  const baselinePps = pagesPerSecond(median(inProcessMs));
  const mb = (kb: number): number => Math.round(kb / 102.4) / 10;
  return {
    rows: [
      row(BENCH, 'PDF pages/s, end to end (one scrape at a time)', pagesPerSecond(wallMs / runs), {
        baseline: baselinePps, note: `${runs} scrapes of ${pdf.length} bytes; baseline: the parse alone in-process` }),
      row(BENCH, 'PDF pages/s, end to end with engine http', pagesPerSecond(httpWallMs / runs), {
        baseline: baselinePps, note: 'no browser navigation first (crawl and batch pages under auto get this path)' }),
      row(BENCH, 'PDF pages/s, transformer parse (median transformMs)', pagesPerSecond(median(transformMs)), {
        baseline: baselinePps, note: `median transformMs ${Math.round(median(transformMs))} ms per document` }),
      row(BENCH, 'transformer CPU per PDF page', Math.round((cpuMs / (runs * PAGES)) * 10) / 10, { unit: 'ms',
        baseline: Math.round((median(inProcessMs) / PAGES) * 10) / 10, note: 'baseline: in-process wall time per page' }),
      row(BENCH, 'transformer peak RSS while parsing', mb(peakRssKb), { unit: 'MB', baseline: mb(idleRssKb), note: 'baseline: its RSS just before' }),
    ],
    details: { pages: PAGES, bytes: pdf.length, runs, inProcessMs, transformMs, wallMs, httpWallMs, transformerCpuMs: cpuMs, idleRssKb, peakRssKb },
  };
}
