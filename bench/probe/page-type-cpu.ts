// CPU of the page-type decision with and without the classifier, interleaved page by page in
// one run (the machine is shared: a same-run ratio), on trafilatura-eval's pages. Each page is
// typed alone (formats: [], so no content is extracted): parse, metadata, links, page type.
//
//   npx tsx bench/probe/page-type-cpu.ts [--rounds N]
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../packages/extract/src/index.js';
import { devSetDir, loadDevPages, sharedDir } from '../lib/extraction-dev.js';
import { flag } from '../lib/cli-flags.js';
import { SHIPPED_PAGE_TYPE_MODEL } from '../../packages/extract/src/page-type.js';

const pages = loadDevPages(devSetDir(sharedDir())!);
const options = normalizeScrapeOptions({ formats: [] as never[] });
const cpu = { rules: 0, model: 0 };
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
for (let round = 0; round < Number(flag('rounds') ?? 3); round++) {
  for (const [i, page] of pages.entries()) {
    // Alternate which goes first, so neither gets the warmer cache.
    for (const which of i % 2 ? (['rules', 'model'] as const) : (['model', 'rules'] as const)) {
      const t = cpuMs();
      extractPage({ html: page.html, url: page.url, options }, { pageTypeModel: which === 'rules' ? null : SHIPPED_PAGE_TYPE_MODEL });
      cpu[which] += cpuMs() - t;
    }
  }
}
const n = pages.length * Number(flag('rounds') ?? 3);
console.log(`typing only, CPU per page: rules ${(cpu.rules / n).toFixed(2)} ms, rules + classifier ${(cpu.model / n).toFixed(2)} ms (+${((cpu.model - cpu.rules) / n).toFixed(2)} ms)`);
