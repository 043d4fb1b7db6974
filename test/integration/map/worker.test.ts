// The map worker and the gateway's map service against a real nats-server, with sites
// served on 127.0.0.1. Sitemap paths only: the browser fallback needs the fetcher and the
// transformer and is covered end to end in test/e2e/map.test.ts.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { MAP_WORKER_DEFAULTS, startMapWorker } from '../../../services/crawler-frontier/src/map/worker.js';
import { NO_LIMITS } from '../../../shared/src/infra/admission/plan-limits.js';
import { MapService } from '../../../services/gateway/src/map/service.js';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { ServiceUnavailableError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { registry } from '../../../shared/src/infra/metrics.js';
import { connectService, type RunningService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';

const XML = 'application/xml';
const caller = { keyId: 'key-map-test', plan: 'team' as const };

/** Messages the map worker has finished with (its consumer's metrics). */
async function handledByMapWorker(): Promise<number> {
  const found = await registry.getSingleMetric('trawl_messages_handled_total')?.get();
  return (found?.values ?? []).filter((v) => v.labels.consumer === MAP_WORKER_DEFAULTS.durable).reduce((n, v) => n + v.value, 0);
}

function urlset(urls: string[]): string {
  return `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('\n')}</urlset>`;
}

describe('map worker over NATS', () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let worker: RunningService | undefined;
  let maps: MapService;
  let site: TestSite;
  let dir: string;

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-map-'));
    const config = loadConfig({ NATS_URL: server.url, DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' });
    ctx = await connectService('crawler-frontier', config, createLogger('map-test', 'silent'));
    worker = await startMapWorker(ctx);
    maps = new MapService({ nc: ctx.nc, log: ctx.log, payloads: ctx.payloads, urlPolicy: { allowCidrs: config.ssrfAllowCidrs }, newId, clock: systemClock, limits: NO_LIMITS });
    site = await startSite();
    const o = site.origin;
    site.route('/sitemap.xml', { body: `<sitemapindex><sitemap><loc>${o}/a.xml</loc></sitemap><sitemap><loc>${o}/b.xml.gz</loc></sitemap></sitemapindex>`, contentType: XML });
    site.route('/a.xml', { body: urlset([`${o}/`, `${o}/docs`, `${o}/docs/`, 'https://elsewhere.example/x', `${o}/blog/hello`]), contentType: XML });
    site.route('/b.xml.gz', { body: zlib.gzipSync(urlset([`${o}/docs/install`, `${o}/blog`, ...Array.from({ length: 3000 }, (_, i) => `${o}/archive/item-${i}`)])), contentType: 'application/octet-stream' });
  });

  after(async () => {
    await worker?.stop();
    await ctx.nc.drain();
    await site.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('answers from the sitemaps, filtered, and records the job in the log', async () => {
    const o = site.origin;
    const result = await maps.map(caller, { url: site.url('/'), search: 'docs', limit: 10 });
    assert.deepEqual(result, { links: [`${o}/docs`, `${o}/docs/install`], count: 2 });
    const small = await maps.map(caller, { url: site.url('/'), limit: 4 });
    assert.equal(small.count, 4);
    assert.ok(!small.links.some((l) => l.includes('elsewhere')));
    // Audit replay: the request and its answer are events of the map's history.
    const history = await ctx.log.read('trawl.map.*.job.>');
    assert.deepEqual(history.map((e) => e.event), ['map_requested', 'map_completed', 'map_requested', 'map_completed']);
    const completed = history[1]!;
    assert.equal(completed.event, 'map_completed');
    if (completed.event === 'map_completed') {
      assert.deepEqual(completed.data.sources, ['sitemap']);
      assert.equal(completed.data.count, 2);
      assert.deepEqual(completed.data.links, result.links);
    }
  });

  test('a large answer travels through the Object Store', async () => {
    const result = await maps.map(caller, { url: site.url('/'), limit: 10_000 });
    assert.equal(result.count, 3000 + 5);
    const history = await ctx.log.read('trawl.map.*.job.map_completed');
    const last = history[history.length - 1]!;
    assert.ok(last.event === 'map_completed' && last.data.linksRef && !last.data.links);
  });

  test('a blocked URL is refused before any job is recorded', async () => {
    await assert.rejects(maps.map(caller, { url: 'http://169.254.169.254/' }), UrlNotAllowedError);
  });

  test('a request that expired in the queue is answered as failed without work', async () => {
    const id = newId();
    const requestedAt = new Date(Date.now() - 120_000);
    await ctx.log.append(makeEvent('map_requested', { kind: 'map', id, part: 'job' }, {
      url: site.url('/'), limit: 10, ignoreSitemap: false, includeSubdomains: false, apiKeyId: caller.keyId, requestedAt: requestedAt.toISOString(), budgetMs: 30_000,
    }, { eventId: newId(), now: requestedAt }), { once: true });
    let events: string[] = [];
    for (let i = 0; i < 100 && events.length < 2; i++) {
      events = (await ctx.log.history('map', id)).map((e) => e.event);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(events, ['map_requested', 'map_failed']);
  });

  test('a map that already has its answer (redelivered after a crash) is not worked again', async () => {
    const other = await startSite({ '/sitemap.xml': { body: urlset(['http://127.0.0.1/x']), contentType: XML } });
    try {
      const id = newId();
      const now = new Date();
      const handledBefore = await handledByMapWorker();
      // The answer is recorded before the request reaches the worker: as after a crash between answering and acking.
      await ctx.log.append(makeEvent('map_failed', { kind: 'map', id, part: 'job' }, {
        error: { code: 'NETWORK_ERROR', message: 'answered before the crash' }, failedAt: now.toISOString(),
      }, { eventId: newId(), now }), { once: true });
      await ctx.log.append(makeEvent('map_requested', { kind: 'map', id, part: 'job' }, {
        url: other.url('/'), limit: 10, ignoreSitemap: false, includeSubdomains: false, apiKeyId: caller.keyId, requestedAt: now.toISOString(), budgetMs: 30_000,
      }, { eventId: newId(), now }), { once: true });
      await until(async () => (await handledByMapWorker()) > handledBefore, { timeoutMs: 5_000 });
      assert.equal(await handledByMapWorker(), handledBefore + 1);
      assert.deepEqual((await ctx.log.history('map', id)).map((e) => e.event).sort(), ['map_failed', 'map_requested']);
      assert.equal(other.hits.get('/sitemap.xml'), undefined, 'no sitemap was fetched');
    } finally {
      await other.close();
    }
  });

  test('without a worker the gateway gives up after the budget with SERVICE_UNAVAILABLE', async () => {
    await worker?.stop();
    worker = undefined;
    const impatient = new MapService({ nc: ctx.nc, log: ctx.log, payloads: ctx.payloads, urlPolicy: { allowCidrs: ctx.config.ssrfAllowCidrs }, newId, clock: systemClock, limits: NO_LIMITS, budgetMs: 1000, replyMarginMs: 200 });
    await assert.rejects(impatient.map(caller, { url: site.url('/') }), ServiceUnavailableError);
  });
});
