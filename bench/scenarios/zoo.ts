// 14. The site zoo (issue 21; test/zoo/sites.ts): each site built with a real framework,
// served as built, crawled with engine browser and with auto (each on its own copy, so
// auto starts from an unknown host). Per site: the share of pages auto rendered, pages
// whose markdown is identical to browser's, pages missing their token, and pages the
// site was asked for more than once. Sites are small (20 pages: an index and 19 articles;
// hand's six articles in three kinds, a log and an index). They are crawled one
// after the other in the one system of the bench run, as a fleet meets new hosts: a host
// learns alone (K verifications, K - 1 when each was identical) until its set of marker kinds verified identical on
// FLEET_POLICY_DEFAULTS.hosts other hosts (the fleet prior); so the first sites of a kind
// pay their verifications, the later ones not, and what earlier scenarios of the run
// taught the fleet counts too. Each site's row and the static/SSR sites together say so.
import { serveZooSite, ZOO, zooBuilt, type ZooSite } from '../../test/zoo/sites.js';
import { FLEET_POLICY_DEFAULTS } from '../../services/fetcher/src/engine/fleet-prior.js';
import { row, type Row } from '../lib/table.js';
import type { BenchContext, ScenarioResult } from './context.js';
import { crawlWith, sameMarkdown, type CrawlRun } from './engines.js';

const key = (path: string): string => path.replace(/\/$/, '') || '/';

function missingTokens(site: ZooSite, run: CrawlRun): number {
  return site.pages.filter((p) => !(run.markdown.get(key(p.path)) ?? '').includes(p.token)).length;
}

export async function engineZoo(ctx: BenchContext): Promise<ScenarioResult> {
  const B = '14. Engines: site zoo';
  const rows: Row[] = [];
  const details: Record<string, unknown> = {};
  const serverRendered = { sites: 0, pages: 0, rendered: 0, perSite: [] as string[] };
  for (const site of ZOO) {
    if (!zooBuilt(site)) {
      rows.push(row(B, site.name, 'n/a (not built: bash test/zoo/build.sh)'));
      continue;
    }
    const runs: CrawlRun[] = [];
    for (const engine of ['browser', 'auto'] as const) {
      const served = await serveZooSite(site);
      try {
        ctx.log(`  zoo site ${site.name} with engine ${engine}`);
        runs.push(await crawlWith(ctx, served, engine, { maxDepth: 3, limit: 100 }));
      } finally {
        await served.close();
      }
    }
    const [browser, auto] = runs as [CrawlRun, CrawlRun];
    const { identical, compared } = sameMarkdown(browser, auto);
    const rendered = auto.served.browser ?? 0;
    const rules = [...new Set(site.pages.map((p) => p.rule))].join('/');
    rows.push(row(B, `${site.name}: pages rendered, auto`, (100 * rendered) / Math.max(1, auto.pages), {
      unit: '%',
      note: `${rendered}/${auto.pages} rendered (rule: ${rules}); identical markdown ${identical}/${compared}; missing token ${missingTokens(site, auto)}/${site.pages.length} (browser ${missingTokens(site, browser)}); requested more than once ${auto.requestedTwice} (browser ${browser.requestedTwice}); ${site.what}`,
    }));
    if (site.pages.every((p) => p.rule === 'http')) {
      serverRendered.sites++;
      serverRendered.pages += auto.pages;
      serverRendered.rendered += rendered;
      serverRendered.perSite.push(`${site.name} ${rendered}/${auto.pages}`);
    }
    details[site.name] = { pages: auto.pages, rendered, identical, compared, missingAuto: missingTokens(site, auto), missingBrowser: missingTokens(site, browser), requestedTwice: auto.requestedTwice };
  }
  rows.push(row(B, 'static/SSR sites together: pages rendered, auto', (100 * serverRendered.rendered) / Math.max(1, serverRendered.pages), {
    unit: '%',
    note: `${serverRendered.rendered}/${serverRendered.pages} over ${serverRendered.sites} sites, in crawl order: ${serverRendered.perSite.join(', ')} (one system, one site after the other; the first hosts of a kind of page learn alone until it verified identical on ${FLEET_POLICY_DEFAULTS.hosts} hosts; goal <= 10%)`,
  }));
  details.serverRendered = serverRendered;
  return { rows, details };
}
