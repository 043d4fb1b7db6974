// A transformer that died after recording a page's observation and before its
// page_completed: the page is redelivered, and the real consumer (real nats-server, real
// worker threads) must complete it with the observation already in the log, appending no
// second one and answering against the real predecessor, even though another job observed
// the URL in between.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { makeEvent, type PageResultPayload } from '../../../shared/src/domain/events/index.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { BASELINE_BUCKET, subjectOf } from '../../../shared/src/infra/subjects.js';
import { contentOptionsHash } from '../../../shared/src/domain/change-tracking.js';
import { PageObserver, pageKeyOf } from '../../../shared/src/domain/observations/observer.js';
import { TransformConsumer } from '../../../services/transformer/src/consumer.js';
import { TransformPool } from '../../../services/transformer/src/transform-pool.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const URL_ = 'https://example.com/prices';
const page = (price: number) => `<!doctype html><html><head><title>Prices</title></head><body><article><h1>Prices</h1><p>The starter plan costs ${price} euros a month, billed yearly or monthly as you like.</p></article></body></html>`;

describe('change tracking survives a transformer crash', () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let dir: string;

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-observe-'));
    ctx = await connectService('observe-test', loadConfig({ NATS_URL: server.url, DATA_DIR: dir }), createLogger('observe-test', 'silent'));
  });
  after(async () => {
    await ctx.nc.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('redelivered after url_observed: one observation, the first one\'s answer, page completed', async () => {
    const options = normalizeScrapeOptions({ formats: ['markdown', 'changeTracking'] });
    const part = pageKeyOf(URL_);
    const observer = new PageObserver({ log: ctx.log, baselines: new PayloadStore(ctx.js, BASELINE_BUCKET), newId });
    const observe = (jobId: string, markdown: string, fetchedSeq: number) => observer.observe({
      apiKeyId: 'key1', url: URL_, source: { kind: 'scrape', jobId, part }, fetchedSeq, statusCode: 200, markdown,
      optionsHash: contentOptionsHash(options), now: new Date(), wantReport: true,
    });
    // Last week's scrape.
    const earlier = await observe('earlier', '# Prices\n\nThe starter plan costs 9 euros a month, billed yearly or monthly as you like.', 0);

    // This week's page is fetched...
    const at = { kind: 'scrape' as const, id: 'crashed', part };
    const now = new Date();
    await ctx.log.append(makeEvent('page_requested', at, { url: URL_, options, apiKeyId: 'key1', depth: 0, requestedAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
    const rawHtml = await ctx.payloads.putText(`scrape/crashed/${part}/raw.html`, page(12), 'text/html; charset=utf-8');
    const fetched = await ctx.log.append(makeEvent('page_fetched', at, {
      finalUrl: URL_, statusCode: 200, rawHtml, timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 1, screenshotMs: 0 }, fetchedAt: now.toISOString(),
    }, { eventId: newId(), now }), { once: true });
    // ...and a first transform recorded its observation, then died before page_completed.
    const crashed = await observe('crashed', '# Prices\n\nThe starter plan costs 12 euros a month, billed yearly or monthly as you like.', fetched.seq);
    assert.equal(crashed.report?.changeStatus, 'changed');
    // Meanwhile another job of the key observed the URL.
    const later = await observe('later', '# Prices\n\nThe starter plan costs 12 euros a month, billed yearly or monthly as you like.', fetched.seq + 100);
    assert.equal(later.report?.previousJobId, 'crashed');

    // The page is redelivered to a transformer.
    const pool = new TransformPool({ size: 1 });
    const transformer = new TransformConsumer({ ctx, pool, newId, clock: systemClock });
    try {
      await transformer.consumer.start();
      await until(() => ctx.log.exists({ ...at, event: 'page_completed' }), { timeoutMs: 20_000 });
    } finally {
      await transformer.consumer.stop();
      await pool.close();
    }
    const completed = await ctx.log.last({ ...at, event: 'page_completed' });
    assert.ok(completed?.event === 'page_completed');
    assert.equal(completed.data.observationSeq, crashed.seq, 'the observation made before the crash');
    assert.equal(completed.data.completedAt, crashed.observedAt);
    const result = await ctx.payloads.getJson<PageResultPayload>(completed.data.result);
    assert.equal(result.changeTracking?.changeStatus, 'changed');
    assert.equal(result.changeTracking?.previousJobId, 'earlier', 'against the real predecessor, not the later job');
    assert.match(result.changeTracking?.diff ?? '', /^-The starter plan costs 9 euros/m);
    assert.match(result.changeTracking?.diff ?? '', /^\+The starter plan costs 12 euros/m);
    const observations = await ctx.log.read(subjectOf({ kind: 'observation', id: 'key1', part, event: 'url_observed' }));
    assert.deepEqual(observations.map((o) => o.event === 'url_observed' && o.data.source.jobId), ['earlier', 'crashed', 'later']);
    assert.ok(earlier.seq);
  });
});
