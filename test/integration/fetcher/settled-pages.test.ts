// A page that already failed for good is never loaded or transformed again. The worker
// records page_failed and then terms the message; a crash between the two redelivers the
// message. The fetcher (and the share follower) and the transformer must then leave the
// page alone, or a FAILED page would get a result. Real nats-server, real Chromium, real
// worker threads: each stage is given one page that failed and one that did not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { makeEvent, type AnyEvent } from '../../../shared/src/domain/events/index.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { registry } from '../../../shared/src/infra/metrics.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { createEngineRouter } from '../../../services/fetcher/src/engine/index.js';
import { FetchWorker } from '../../../services/fetcher/src/worker.js';
import { ShareFollower } from '../../../services/fetcher/src/share-follower.js';
import { TransformConsumer } from '../../../services/transformer/src/consumer.js';
import { TransformPool } from '../../../services/transformer/src/transform-pool.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { startCapturer } from './helpers.js';
import { until } from '../../support/wait.js';

const PAGE = '<!doctype html><html><head><title>Settled</title></head><body><article><h1>Settled</h1><p>Some text for the page.</p></article></body></html>';

async function handled(consumer: string): Promise<number> {
  const found = await registry.getSingleMetric('trawl_messages_handled_total')?.get();
  return (found?.values ?? []).filter((v) => v.labels.consumer === consumer).reduce((n, v) => n + v.value, 0);
}

describe('settled pages are left alone on redelivery', () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let site: TestSite;
  let dir: string;

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-settled-'));
    const config = loadConfig({ NATS_URL: server.url, DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' });
    ctx = await connectService('settled-test', config, createLogger('settled-test', 'silent'));
    site = await startSite({ '/failed': PAGE, '/fresh': PAGE, '/source': PAGE });
  });

  after(async () => {
    await ctx.nc.close();
    await site.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const options = normalizeScrapeOptions({ formats: ['markdown'] });
  const append = (e: AnyEvent) => ctx.log.append(e, { once: true });
  const now = () => new Date();
  const at = (id: string) => ({ kind: 'scrape' as const, id, part: 'p0' });
  const requested = (id: string, url: string) => makeEvent('page_requested', at(id),
    { url, options, apiKeyId: 'k', depth: 0, requestedAt: now().toISOString() }, { eventId: newId(), now: now() });
  const failed = (id: string) => makeEvent('page_failed', at(id),
    { error: { code: 'PAGE_TIMEOUT', message: 'gave up' }, failedAt: now().toISOString(), attempt: 3 }, { eventId: newId(), now: now() });
  const exists = (id: string, event: string) => ctx.log.exists({ ...at(id), event });

  test('the fetcher and the share follower: no page load, no page_fetched', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
    const fetcher = new FetchWorker({ ctx, router: createEngineRouter(ctx, capturer, systemClock), newId, clock: systemClock, workerName: 'test' });
    const follower = new ShareFollower({ ctx, newId, clock: systemClock, pollIntervalMs: 20 });
    try {
      await append(requested('gave-up', site.url('/failed')));
      await append(failed('gave-up'));
      await append(requested('fresh', site.url('/fresh')));
      // A joined scrape that failed for good, whose source is fetched meanwhile.
      await append(requested('source', site.url('/source')));
      await append(makeEvent('page_shared', at('joined'), {
        url: site.url('/source'), options, apiKeyId: 'k', depth: 0, requestedAt: now().toISOString(), cacheKey: 'c', sourceJobId: 'source', sourcePart: 'p0',
      }, { eventId: newId(), now: now() }));
      await append(failed('joined'));
      await Promise.all([fetcher.start(), follower.consumer.start()]);
      await until(async () => (await handled('fetcher-scrape')) >= 3 && (await handled('fetcher-share')) >= 1, { timeoutMs: 20_000 });
      assert.equal(await exists('fresh', 'page_fetched'), true, 'the control page was fetched');
      assert.equal(await exists('source', 'page_fetched'), true);
      assert.equal(await exists('gave-up', 'page_fetched'), false);
      assert.equal(await exists('gave-up', 'page_started'), false);
      assert.equal(site.hits.get('/failed'), undefined, 'the failed page was not loaded');
      assert.equal(await exists('joined', 'page_fetched'), false);
    } finally {
      await Promise.all([fetcher.stop(), follower.consumer.stop()]);
      await capturer.stop();
    }
  });

  test('the transformer: no page_completed for a page that failed', async () => {
    const pool = new TransformPool({ size: 1 });
    const transformer = new TransformConsumer({ ctx, pool, newId, clock: systemClock });
    try {
      const before = await handled('transformer');
      for (const id of ['t-failed', 't-fresh']) {
        await append(requested(id, site.url('/fresh')));
        const rawHtml = await ctx.payloads.putText(`scrape/${id}/p0/raw.html`, PAGE, 'text/html; charset=utf-8');
        await append(makeEvent('page_fetched', at(id), {
          finalUrl: site.url('/fresh'), statusCode: 200, rawHtml,
          timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 1, screenshotMs: 0 }, fetchedAt: now().toISOString(),
        }, { eventId: newId(), now: now() }));
      }
      await append(failed('t-failed'));
      await transformer.consumer.start();
      // The two pages fetched in the test before come through this consumer too: four in all.
      await until(async () => (await exists('t-fresh', 'page_completed')) && (await handled('transformer')) - before >= 4, { timeoutMs: 20_000 });
      assert.equal(await exists('t-failed', 'page_completed'), false);
    } finally {
      await transformer.consumer.stop();
      await pool.close();
    }
  });
});
