// Probe (not part of `npm run bench`): boots the system, crawls the 500-page site with one engine,
// prints per-process PSS idle/peak and where each page's time goes, from the crawl's events.
import type { StoredEvent } from '../../shared/src/domain/events/index.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { connectNats } from '../../shared/src/infra/nats/connect.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import { natsUrlFromLogs } from '../lib/events.js';
import { snapshotTree, TreeSampler } from '../lib/proc.js';
import { ThreadCpu } from '../lib/thread-cpu.js';
import { bootSystem, sleep } from '../lib/system.js';
import { crawlSite, finishedCrawl } from '../scenarios/crawl.js';
import { httpCrawlerBaseline } from '../scenarios/engines.js';

const engine = process.env.PROBE_ENGINE ?? 'auto';
const pages = Number(process.env.PROBE_PAGES ?? 500);
const mbOf = (kb: number) => Math.round(kb / 1024);
const show = (label: string, byName: Record<string, { pssKb: number; count: number }>) =>
  console.log(label, Object.entries(byName).sort((a, b) => b[1].pssKb - a[1].pssKb).map(([k, v]) => `${k}${v.count > 1 ? `×${v.count}` : ''} ${mbOf(v.pssKb)}`).join(', '));

// PROBE_HTTP=1: the no-browser HTTP crawler (bench/http-crawler.ts) on its own copy first, for a same-run ratio.
let httpPps: number | undefined;
if (process.env.PROBE_HTTP) {
  const base = await httpCrawlerBaseline(pages, Number(process.env.BENCH_HTTP_CRAWLER_CONCURRENCY ?? 4));
  const n = base.run.output.crawled.length;
  httpPps = n / (base.run.output.wallMs / 1000);
  console.log(`HTTP crawler: ${n} pages, ${httpPps.toFixed(2)} pages/s, CPU ${Math.round(base.run.usage.cpuMs / n)} ms/page, peak PSS ${mbOf(base.run.usage.peakPssKb)} MB`);
}
const bs = await bootSystem();
try {
  await sleep(3000);
  let s = snapshotTree(bs.rootPid);
  console.log(`idle PSS ${mbOf(s.pssKb)} MB`); show('  idle:', s.byName);
  for (const run of (process.env.PROBE_RUNS ?? engine).split(',')) {
    const site = await crawlSite(pages);
    // PROBE_SUBJECTS=1: every NATS message of the crawl, counted by subject kind (per page at the end).
    const tap = process.env.PROBE_SUBJECTS ? await connectNats(natsUrlFromLogs(bs.sys.logs())!, 'probe-tap', createLogger('probe', 'warn')) : undefined;
    const bySubject = new Map<string, { n: number; bytes: number }>();
    tap?.subscribe('>', { callback: (_e, m) => {
      const parts = m.subject.split('.');
      const k = m.subject.startsWith('$JS.API.DIRECT.GET.') || m.subject.startsWith('$JS.API.STREAM.MSG.') ? `${parts.slice(0, 6).join('.')}…${parts.length > 6 ? parts.at(-1) : ''}`.replace(/\b[0-9a-f]{8,}\b|[A-Za-z0-9_-]{20,}/g, '*') : m.subject.replace(/^(_INBOX)\..*/, '$1').replace(/^(\$JS\.ACK\.[^.]+)\..*/, '$1').split('.').slice(0, 4).join('.').replace(/\b[0-9a-f]{8,}\b|[A-Za-z0-9_-]{20,}/g, '*');
      const c = bySubject.get(k) ?? { n: 0, bytes: 0 }; c.n++; c.bytes += m.data.length; bySubject.set(k, c);
    } });
    const sampler = new TreeSampler(bs.rootPid).start();
    // PROBE_THREADS=1: the transformer's and the fetcher's CPU per thread (main, transform threads, V8 helpers).
    const threads = process.env.PROBE_THREADS ? new ThreadCpu(bs.rootPid).start() : undefined;
    let peakPss = 0; let peakSnap = s;
    const t = setInterval(() => { const c = sampler.current(); if (c && c.pssKb > peakPss) { peakPss = c.pssKb; peakSnap = c; } }, 100);
    console.log(`  crawl posted at ${Date.now()}`);
    const res = await bs.sys.api<{ id: string }>('POST', '/api/v1/crawl', { url: site.url('/'), maxDepth: 5, limit: 1000, scrapeOptions: { formats: ['markdown'], engine: run } });
    const view = await finishedCrawl<{ status: string; completedUrls: number; createdAt: string; completedAt: string }>(bs.sys, res.body.id, 15 * 60_000);
    clearInterval(t);
    console.log(`  crawl finished at ${Date.now()}`);
    const usage = sampler.stop();
    const byThread = threads?.stop();
    await site.close();
    const jobMs = Date.parse(view!.completedAt) - Date.parse(view!.createdAt);
    console.log(`${run}: ${view!.status} ${view!.completedUrls} pages in ${jobMs} ms = ${(view!.completedUrls / jobMs * 1000).toFixed(2)} pages/s; CPU ${Math.round(usage.cpuMs / view!.completedUrls)} ms/page; peak PSS ${mbOf(usage.peakPssKb)} MB${httpPps ? `; ${((view!.completedUrls / jobMs * 1000) / httpPps).toFixed(2)}x the HTTP crawler` : ''}`);
    show('  at PSS peak:', peakSnap.byName);
    if (tap) {
      await tap.drain();
      const n = view!.completedUrls;
      const all = [...bySubject.values()].reduce((a, c) => a + c.n, 0);
      console.log(`  NATS messages per page: ${(all / n).toFixed(1)}`);
      for (const [k, c] of [...bySubject].sort((a, b) => b[1].n - a[1].n).slice(0, 30)) console.log(`    ${(c.n / n).toFixed(2)}/page ${Math.round(c.bytes / n / 1024)} KiB/page ${k}`);
    }
    if (byThread) console.log('  cpu per thread, ms/page:', Object.entries(byThread).filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]).map(([k, ms]) => `${k} ${(ms / view!.completedUrls).toFixed(1)}`).join(', '));
    console.log('  cpu:', Object.entries(usage.cpuByName).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${Math.round(v / view!.completedUrls)}`).join(', '));
    // Stages from the events.
    const nc = await connectNats(natsUrlFromLogs(bs.sys.logs())!, 'probe', createLogger('probe', 'warn'));
    const log = new EventLog(nc.jetstream(), await nc.jetstreamManager());
    const events: StoredEvent[] = await log.history('crawl', res.body.id);
    await nc.drain();
    const byPart = new Map<string, Record<string, number>>();
    for (const e of events) {
      const d = e.data as any;
      const p = byPart.get(e.part) ?? {}; byPart.set(e.part, p);
      if (e.event === 'page_requested') p.requested = Date.parse(e.occurredAt);
      if (e.event === 'page_started') p.started = Date.parse(e.occurredAt);
      if (e.event === 'page_fetched') { p.fetched = Date.parse(e.occurredAt); p.fetchMs = d.timings?.fetchMs; p.render = d.timings?.renderMs; p.browser = d.engine?.used === 'browser' ? 1 : 0; }
      if (e.event === 'page_completed') { p.completed = Date.parse(e.occurredAt); p.transformMs = d.timings?.transformMs; }
    }
    const rows = [...byPart.values()].filter((p) => p.requested && p.completed);
    const med = (xs: number[]) => { const a = xs.filter(Number.isFinite).sort((x, y) => x - y); return a.length ? `${a[Math.floor(a.length / 2)]}/${a[Math.floor(a.length * 0.9)]}` : 'n/a'; };
    console.log(`  pages with events: ${rows.length}; median/p90 ms: queue ${med(rows.map((p) => p.started! - p.requested!))}, fetcher ${med(rows.map((p) => p.fetched! - p.started!))} (fetchMs ${med(rows.map((p) => p.fetchMs!))}), transformer ${med(rows.map((p) => p.completed! - p.fetched!))} (transformMs ${med(rows.map((p) => p.transformMs!))})`);
    // completed -> next requested: for each page_completed, time until the next page_requested appended after it.
    const reqs = rows.map((p) => p.requested!).sort((a, b) => a - b);
    const gaps: number[] = [];
    for (const p of rows) { const next = reqs.find((r) => r >= p.completed!); if (next !== undefined) gaps.push(next - p.completed!); }
    console.log(`  page_completed → next page_requested: ${med(gaps)}`);
    // in flight over time
    const starts = rows.map((p) => p.requested!); const ends = rows.map((p) => p.completed!);
    const t0 = Math.min(...starts), t1 = Math.max(...ends);
    let area = 0; for (const p of rows) area += p.completed! - p.requested!;
    console.log(`  mean pages in flight ${(area / (t1 - t0)).toFixed(2)}; first requested → last completed ${t1 - t0} ms; stream events ${events.length}`);
    if (process.env.PROBE_DUMP) {
      const fs = await import('node:fs');
      fs.writeFileSync(process.env.PROBE_DUMP + `.${run}.json`, JSON.stringify(events.map((e) => ({ seq: e.seq, part: e.part, event: e.event, data: e.data, at: e.occurredAt }))));
    }
    await sleep(2000);
    s = snapshotTree(bs.rootPid);
    console.log(`after ${run}: PSS ${mbOf(s.pssKb)} MB`); show('  after:', s.byName);
  }
} finally {
  await bs.sys.stop();
}
