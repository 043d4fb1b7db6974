// The site zoo under `auto` (test/zoo/sites.ts: sites built with the real frameworks, the
// built output served as a static host would): each site's rule holds. For every page the
// markdown has its token and is the browser's own markdown (the same page fetched with the
// browser engine from a second copy of the site); server-rendered pages are served from
// the GET once the host has verified K of them; client-rendered pages are rendered; and
// the site's own count shows each page requested once (as a page: see pageRequests). Real Chromium, real nats-server
// (host profiles), the fetcher's engine router and the extraction library's extractPage.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { EngineRouter, type RoutedPage } from '../../../services/fetcher/src/engine/engine-router.js';
import { KvFleetPriors } from '../../../services/fetcher/src/engine/fleet-prior-store.js';
import { FLEET_POLICY_DEFAULTS } from '../../../services/fetcher/src/engine/fleet-prior.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import type { CaptureResult } from '../../../services/fetcher/src/engine/browser/capture-run.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import type { TestSite } from '../../support/site.js';
import { firstArticles, pageRequests, serveZooSite, ZOO, zooBuilt } from '../../zoo/sites.js';
import { ctx, opts, startCapturer, testRouter } from './helpers.js';

const AGREEMENTS = 3;
const options = opts({ formats: ['markdown'] });

describe('the site zoo under auto', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let capturer: PageCapturer;
  let router: EngineRouter;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    capturer = await startCapturer({ poolSize: 2 });
    // The sites one after the other in one system, as a fleet meets them: what the first hosts' verifications taught the fleet serves the later ones.
    router = testRouter(nc, (url, o, cctx) => capturer.capture(url, o, cctx), AGREEMENTS, { fleet: new KvFleetPriors(nc.jetstream(), FLEET_POLICY_DEFAULTS, createLogger('fleet', 'silent')) });
  });
  after(async () => {
    await capturer?.stop();
    await nc?.close();
    await server?.stop();
  });

  const markdownOf = (html: string, url: string, statusCode: number): string =>
    (extractPage({ html, url, options, statusCode }).markdown ?? '').trim();

  /** Sites whose every page is server-rendered, crawled before this one: each verified its pages (without markers) on its own host. */
  let serverRenderedBefore = 0;
  for (const site of ZOO) {
    test(`${site.name}: ${site.what}`, { skip: zooBuilt(site) ? false : 'not built (bash test/zoo/build.sh)' }, async (t) => {
      let auto: TestSite | undefined;
      let browser: TestSite | undefined;
      try {
        auto = await serveZooSite(site);
        browser = await serveZooSite(site);
        const served: string[] = [];
        const pages = firstArticles(site);
        for (const [i, page] of pages.entries()) {
          // The browser's own copy is rendered while the router fetches the page: two copies of
          // the site, two pool slots, and the router's decisions stay page after page.
          const both: [RoutedPage, CaptureResult] = await Promise.all([
            router.fetch('crawl', auto.url(page.path), options, ctx()),
            capturer.capture(browser.url(page.path), options, ctx()),
          ]);
          const [got, rendered] = both;
          const mine: string = markdownOf(got.html, got.finalUrl, got.statusCode).replaceAll(auto.origin, 'ORIGIN');
          const theirs: string = markdownOf(rendered.html, rendered.finalUrl, rendered.statusCode).replaceAll(browser.origin, 'ORIGIN');
          const where = `${site.name}${page.path} (${got.engine.used}: ${got.engine.reason})`;
          assert.ok(mine.includes(page.token), `${where} has its token`);
          if (page.rule !== 'either') assert.equal(mine, theirs, `${where}: the browser's markdown`);
          if (page.rule === 'browser') assert.equal(got.engine.used, 'browser', `${where} is rendered`);
          // Served over HTTP once the host (and its markers) verified K pages of this kind.
          const sameKindBefore = pages.slice(0, i).filter((p) => p.rule === 'http').length;
          if (page.rule === 'http' && sameKindBefore >= 2 * AGREEMENTS) assert.equal(got.engine.used, 'http', `${where} is served from the GET`);
          served.push(got.engine.used);
          assert.equal(pageRequests(auto, page.path), 1, `${where} requested once`);
        }
        const renderedCount = served.filter((u) => u === 'browser').length;
        t.diagnostic(`${site.name}: ${renderedCount}/${served.length} pages rendered, each requested once, markdown as the browser's`);
        const httpPages = pages.filter((p) => p.rule === 'http').length;
        if (httpPages === pages.length) {
          assert.ok(renderedCount <= 2 * AGREEMENTS, `${site.name}: ${renderedCount} of ${served.length} pages rendered`);
          // Once pages without markers verified identical on FLEET_POLICY_DEFAULTS.hosts other hosts, a new host's are served from their GET at once.
          if (serverRenderedBefore >= FLEET_POLICY_DEFAULTS.hosts) assert.equal(renderedCount, 0, `${site.name}: served on the fleet's word, no learning renders`);
          serverRenderedBefore++;
        }
      } finally {
        await Promise.all([auto?.close(), browser?.close()]);
      }
    });
  }
});
