// A crawl page answered 304 Not Modified, whose stored result holds every format asked, is
// completed by the fetcher itself: its observation and a page_completed naming the stored
// result, with no page_fetched (and no page_started), so the transformer's consumer
// (filtering page_fetched) never gets it. A redelivered message completes the page once: after a crash between the
// observation and page_completed it answers from that observation, and once completed it
// neither fetches nor completes again. Real nats-server, the real fetcher and transformer
// consumers, a real HTTP site answering If-None-Match.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { registry } from '../../../shared/src/infra/metrics.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { contentOptionsHash, pageKeyOf } from '../../../shared/src/domain/change-tracking.js';
import { contentFormats, resultOptionsHash } from '../../../shared/src/domain/conditional-fetch.js';
import { PageObserver } from '../../../shared/src/domain/observations/observer.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { BASELINE_BUCKET, STREAM_NAME, subjectOf } from '../../../shared/src/infra/subjects.js';
import { createEngineRouter } from '../../../services/fetcher/src/engine/index.js';
import { FetchWorker } from '../../../services/fetcher/src/worker.js';
import { TransformConsumer } from '../../../services/transformer/src/consumer.js';
import { TransformPool } from '../../../services/transformer/src/transform-pool.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { startCapturer } from './helpers.js';
import { until } from '../../support/wait.js';

const PAGE = '<!doctype html><html><head><title>Unchanged</title></head><body><main><article><h1>Unchanged</h1><p>This page never changes, and its server says so with an ETag and a 304 to a matching If-None-Match.</p></article></main></body></html>';
const ETAG = '"v1"';

async function handled(consumer: string): Promise<number> {
  const found = await registry.getSingleMetric('trawl_messages_handled_total')?.get();
  return (found?.values ?? []).filter((v) => v.labels.consumer === consumer).reduce((n, v) => n + v.value, 0);
}

describe('a 304 crawl page is completed by the fetcher', () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let site: TestSite;
  let dir: string;
  const answers: number[] = [];
  // The options a crawl gives its pages (the HTTP engine: this test needs no browser).
  const options = normalizeScrapeOptions({ formats: ['markdown', 'changeTracking'], engine: 'http' });
  const at = (id: string) => ({ kind: 'crawl' as const, id, part: 'p0' });
  const events = async (id: string, event: string) => ctx.log.read(subjectOf({ ...at(id), event }));
  const observations = async () => ctx.log.read(subjectOf({ kind: 'observation', id: 'k', part: pageKeyOf(site.url('/page')), event: 'url_observed' }));
  const request = async (id: string) => {
    const now = new Date();
    return ctx.log.append(makeEvent('page_requested', at(id), { url: site.url('/page'), options, apiKeyId: 'k', depth: 0, requestedAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
  };
  const completed = (id: string) => until(() => ctx.log.exists({ ...at(id), event: 'page_completed' }), { timeoutMs: 20_000 });

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-304-'));
    const config = loadConfig({ NATS_URL: server.url, DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' });
    ctx = await connectService('not-modified-test', config, createLogger('not-modified-test', 'silent'));
    site = await startSite({
      '/page': (req, res) => {
        const status = req.headers['if-none-match'] === ETAG ? 304 : 200;
        answers.push(status);
        if (status === 304) res.writeHead(304, { etag: ETAG }).end();
        else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: ETAG }).end(PAGE);
      },
    });
  });

  after(async () => {
    await ctx.nc.close();
    await site.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('no page_fetched, no transformer delivery; a redelivery completes once', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0, launchAtStart: false });
    const pool = new TransformPool({ size: 1 });
    const start = () => new FetchWorker({ ctx, router: createEngineRouter(ctx, capturer, systemClock), newId, clock: systemClock, workerName: 'test' });
    let fetcher = start();
    const transformer = new TransformConsumer({ ctx, pool, newId, clock: systemClock });
    try {
      await Promise.all([fetcher.start(), transformer.consumer.start()]);
      // The first crawl loads the page (200) and the transformer completes it.
      await request('first');
      await completed('first');
      assert.deepEqual(answers, [200]);
      // The message counts as handled once its handler has returned, a moment after it appended page_completed.
      await until(async () => (await handled('transformer')) > 0);
      const transformed = await handled('transformer');
      assert.equal(transformed, 1);
      const [firstCompleted] = await events('first', 'page_completed');

      // The recrawl's page: a 304, completed by the fetcher, naming the first page's result.
      await request('second');
      await completed('second');
      assert.deepEqual(answers, [200, 304]);
      assert.deepEqual(await events('second', 'page_fetched'), [], 'no page_fetched: nothing for the transformer');
      const [second] = await events('second', 'page_completed');
      assert.ok(second?.event === 'page_completed' && firstCompleted?.event === 'page_completed');
      assert.deepEqual(second.data.result, firstCompleted.data.result, 'the stored result, named');
      assert.deepEqual(second.data.reusedResult?.source, { kind: 'crawl', jobId: 'first', part: 'p0' });
      assert.equal(second.data.metadata.notModified, true);
      assert.equal(second.data.metadata.engine, 'http');
      assert.equal(second.data.reusedResult?.changeTracking?.changeStatus, 'same');
      assert.equal(second.data.timings.transformMs, 0);
      let chain = await observations();
      assert.deepEqual(chain.map((o) => o.event === 'url_observed' && [o.data.source.jobId, o.data.changeStatus, o.data.notModified ?? false]), [['first', 'new', false], ['second', 'same', true]]);
      assert.equal(second.data.observationSeq, chain[1]!.seq);
      assert.ok(chain[1]!.event === 'url_observed' && chain[1]!.data.validators?.etag === ETAG, 'the 304\'s validators recorded');

      // A fetcher died after the third page's observation, before its page_completed.
      const requested = await request('third');
      const observer = new PageObserver({ log: ctx.log, baselines: new PayloadStore(ctx.js, BASELINE_BUCKET), newId });
      const last = chain[1]!;
      assert.ok(last.event === 'url_observed');
      const crashed = await observer.observe({
        apiKeyId: 'k', url: site.url('/page'), source: { kind: 'crawl', jobId: 'third', part: 'p0' }, fetchedSeq: requested.seq, statusCode: 200,
        markdown: { hash: last.data.markdownHash!, load: () => Promise.reject(new Error('not needed: the baseline is fresh')) },
        optionsHash: contentOptionsHash(options), now: new Date(), wantReport: false,
        conditional: { validators: { etag: ETAG }, resultOptionsHash: resultOptionsHash(options), formats: contentFormats(options), notModified: true },
      });
      await completed('third');
      const [third] = await events('third', 'page_completed');
      assert.ok(third?.event === 'page_completed');
      assert.equal(third.data.observationSeq, crashed.seq, 'the observation made before the crash');
      assert.deepEqual(third.data.reusedResult?.source, { kind: 'crawl', jobId: 'second', part: 'p0' }, 'the observation the first attempt stood on');
      assert.deepEqual(third.data.result, firstCompleted.data.result);
      chain = await observations();
      assert.equal(chain.length, 3, 'no second observation of the third page');

      // Every crawl message delivered again (the fetcher's consumer lost): nothing fetched or completed twice.
      await fetcher.stop();
      await ctx.jsm.consumers.delete(STREAM_NAME, 'fetcher-crawl');
      const answered = answers.length;
      const before = await handled('fetcher-crawl');
      fetcher = start();
      await fetcher.start();
      await until(async () => (await handled('fetcher-crawl')) - before >= 3, { timeoutMs: 20_000 });
      assert.equal(answers.length, answered, 'no page fetched again');
      for (const id of ['first', 'second', 'third']) assert.equal((await events(id, 'page_completed')).length, 1, id);
      // A page loaded has its page_started; a 304 completed here has none (one event less per page).
      assert.deepEqual(await Promise.all(['first', 'second', 'third'].map(async (id) => (await events(id, 'page_started')).length)), [1, 0, 0]);
      assert.equal((await observations()).length, 3);
      assert.equal(await handled('transformer'), transformed, 'the transformer got only the first page');
    } finally {
      await Promise.all([fetcher.stop(), transformer.consumer.stop()]);
      await pool.close();
      await capturer.stop();
    }
  });
});
