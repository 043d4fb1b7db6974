// Probe (not part of `npm run bench`): the crawl site's pages through the transformer's own
// TransformPool against transformPage in process (the HTTP crawler's way), CPU of the whole
// process (every thread: the pool's threads, V8's helpers, the hand-offs), cold then warm:
//   node dist/bench/probe/crawl-pool-probe.js <pages> inproc|pool [threads] [semiSpaceMb] [passes]
// A pool starts as the service's does (one idle thread whose modules are loaded, the others
// started by the work), so pass 1 pays what a fresh tree's first crawl pays.
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { transformPage } from '../../services/transformer/src/transform.js';
import { TransformPool } from '../../services/transformer/src/transform-pool.js';
import { crawlSitePages } from '../scenarios/crawl.js';

const pages = Number(process.argv[2] ?? 200);
const mode = process.argv[3] ?? 'pool';
const threads = Number(process.argv[4] ?? 2);
const semiSpaceMb = Number(process.argv[5] ?? 4);
const passes = Number(process.argv[6] ?? 2);
const htmls = await crawlSitePages(pages);
const options = normalizeScrapeOptions({ formats: ['markdown'] });
const pool = mode === 'pool' ? new TransformPool({ size: threads, idleThreads: 1, semiSpaceMb, maxOldGenerationSizeMb: 1024 }) : undefined;
await new Promise((r) => setTimeout(r, 3000)); // the idle thread's modules loaded, as in a booted service
const cpuMs = (d: NodeJS.CpuUsage) => (d.user + d.system) / 1000;
const out: string[] = [];
for (let pass = 0; pass < passes; pass++) {
  const t0 = process.cpuUsage();
  let bytes = 0;
  if (pool) {
    // As the consumer: a loader per page, a few more messages in hand than threads.
    const inFlight = new Set<Promise<void>>();
    for (const p of htmls) {
      const run = pool.run(async () => ({ html: p.html, url: p.url, options, statusCode: 200 }), { key: 'k', budgetMs: 60_000 })
        .then((o) => { bytes += (o.markdown ?? '').length; });
      const tracked = run.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (inFlight.size >= 16) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
  } else {
    for (const p of htmls) bytes += (transformPage({ html: p.html, url: p.url, options, statusCode: 200 }).markdown ?? '').length;
  }
  out.push(`${(cpuMs(process.cpuUsage(t0)) / htmls.length).toFixed(1)}`);
  if (pass === 0) out.push(`(${bytes} B)`);
}
await pool?.close();
console.log(`${mode}${pool ? ` ${threads} threads, ${semiSpaceMb} MB semi-space` : ''}: ${htmls.length} pages, CPU ms/page by pass (cold first): ${out.join(' ')}`);
