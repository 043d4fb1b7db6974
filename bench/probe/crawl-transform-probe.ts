// Probe (not part of `npm run bench`): transformPage over the crawl site's pages (scenario 8's
// site), in process, as the HTTP crawler runs it; `node --cpu-prof dist/bench/probe/crawl-transform-probe.js [pages] [rounds]`.
// Prints the median CPU ms per page of the rounds after the first (the first warms the JIT).
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { transformPage } from '../../services/transformer/src/transform.js';
import { crawlSitePages } from '../scenarios/crawl.js';

const pages = Number(process.argv[2] ?? 100);
const rounds = Number(process.argv[3] ?? 5);
const htmls = await crawlSitePages(pages);
const options = normalizeScrapeOptions({ formats: ['markdown'] });
const perRound: number[] = [];
for (let r = 0; r < rounds; r++) {
  const t0 = process.cpuUsage();
  for (const p of htmls) transformPage({ html: p.html, url: p.url, options, statusCode: 200 });
  const d = process.cpuUsage(t0);
  perRound.push((d.user + d.system) / 1000 / htmls.length);
}
const sorted = perRound.slice(1).sort((a, b) => a - b);
console.log(`${htmls.length} pages; CPU ms/page by round: ${perRound.map((x) => x.toFixed(1)).join(', ')}; median after the first ${sorted[Math.floor(sorted.length / 2)]?.toFixed(1)}`);
