// A page whose log append or payload put meets a NATS outage after the page loaded is run
// again in place once NATS is back (shared/src/infra/nats/worker.ts), and that run does not
// ask the site for the page again: the delivery's loaded page is kept. Real nats-server
// (stopped with SIGSTOP while the page answers, continued past the client's request timeout), the
// real fetcher consumer, a real HTTP site counting its requests.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { subjectOf } from '../../../shared/src/infra/subjects.js';
import { createEngineRouter } from '../../../services/fetcher/src/engine/index.js';
import { FetchWorker } from '../../../services/fetcher/src/worker.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { startCapturer } from './helpers.js';
import { until } from '../../support/wait.js';
import { setTimeout as sleep } from 'node:timers/promises';

const PAGE = '<!doctype html><html><head><title>Once</title></head><body><main><h1>Once</h1><p>A page the site wants to be asked for once.</p></main></body></html>';
/** Past nats.js's 5 s JetStream request timeout: what the fetcher sends meanwhile fails. */
const OUTAGE_MS = 7_000;

describe('a NATS outage after a page loaded', { timeout: 90_000 }, () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let site: TestSite;
  let dir: string;
  let outage: Promise<void> | undefined;
  const at = { kind: 'crawl' as const, id: 'outage', part: 'p0' };

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-outage-'));
    const config = loadConfig({ NATS_URL: server.url, DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' });
    ctx = await connectService('outage-test', config, createLogger('outage-test', 'silent'));
    site = await startSite({
      '/page': (_req, res) => {
        const answer = () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
        if (outage) return void answer();
        // The first time: NATS stops answering while the page answers, and answers again later.
        server.signal('SIGSTOP');
        outage = sleep(OUTAGE_MS).then(() => server.signal('SIGCONT'));
        answer();
      },
    });
  });

  after(async () => {
    await ctx?.nc.close();
    await site?.close();
    server?.signal('SIGCONT');
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the page is fetched once and asked of the site once', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0, launchAtStart: false });
    const fetcher = new FetchWorker({ ctx, router: createEngineRouter(ctx, capturer, systemClock), newId, clock: systemClock, workerName: 'test' });
    try {
      await fetcher.start();
      const now = new Date();
      const options = normalizeScrapeOptions({ formats: ['markdown'], engine: 'http' });
      await ctx.log.append(makeEvent('page_requested', at, { url: site.url('/page'), options, apiKeyId: 'k', depth: 0, requestedAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
      await until(() => outage !== undefined, { timeoutMs: 20_000 });
      await outage;
      await until(() => ctx.log.exists({ ...at, event: 'page_fetched' }), { timeoutMs: 60_000, intervalMs: 250 });
      assert.equal((await ctx.log.read(subjectOf({ ...at, event: 'page_fetched' }))).length, 1);
      assert.equal(site.hits.get('/page'), 1, 'the site was asked for the page once');
    } finally {
      await fetcher.stop();
      await capturer.stop();
    }
  });
});
