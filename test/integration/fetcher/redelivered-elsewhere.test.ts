// A page redelivered while another live fetcher still loads it (that one's ack or heartbeats
// were lost with the consumer's leader, or its appends wait out an outage) is not asked of
// the site again: the redelivery waits for that fetcher's result. A page whose earlier
// fetcher is gone (or was restarted since under its id) is loaded; a settled page whose
// latest event is a later step of another service is not loaded again. Real nats-server and fetcher consumer, the other
// fetcher's liveness its real slot-holder key, a real HTTP site counting its requests.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, DeliverPolicy, nanos, type JsMsg } from 'nats';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { recordPageFailure } from '../../../shared/src/domain/page-failure.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { STREAM_NAME } from '../../../shared/src/infra/subjects.js';
import { createEngineRouter } from '../../../services/fetcher/src/engine/index.js';
import { SlotHolders } from '../../../services/fetcher/src/fleet/slot-holders.js';
import { FetchWorker } from '../../../services/fetcher/src/worker.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';
import { startCapturer } from './helpers.js';

const PAGE = '<!doctype html><html><head><title>Once</title></head><body><main><h1>Once</h1><p>A page the site wants to be asked for once.</p></main></body></html>';
const DURABLE = 'fetcher-crawl';

describe('a page redelivered while another fetcher loads it', { timeout: 90_000 }, () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let site: TestSite;
  let dir: string;
  const other = { holderId: 'other-fetcher' };
  let otherHolder: SlotHolders;

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-redelivered-'));
    ctx = await connectService('redelivered-test', loadConfig({ NATS_URL: server.url, DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' }), createLogger('redelivered-test', process.env.TEST_LOG_LEVEL ?? 'silent'));
    site = await startSite({ '/live': PAGE, '/gone': PAGE, '/replaced': PAGE, '/done': PAGE, '/reset': PAGE });
    otherHolder = new SlotHolders(ctx.js, other);
    await otherHolder.start();
  });
  after(async () => {
    await otherHolder?.stop();
    await ctx?.nc.close();
    await site?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('waits for a live fetcher\'s result; loads a gone fetcher\'s page at once', async () => {
    const live = { kind: 'crawl' as const, id: 'redelivered', part: 'live' };
    const gone = { kind: 'crawl' as const, id: 'redelivered', part: 'gone' };
    // Its fetcher was restarted under the same id since (its key is the successor's).
    const replaced = { kind: 'crawl' as const, id: 'redelivered', part: 'replaced' };
    // Settled, then a later step of the frontier on the page's part is its latest event.
    const done = { kind: 'crawl' as const, id: 'redelivered', part: 'done' };
    // Claimed by the live other fetcher, then handed out again as a first delivery: a consumer
    // whose leader died may not have replicated the delivery count (the chaos drill's repeat).
    const reset = { kind: 'crawl' as const, id: 'redelivered', part: 'reset' };
    const now = new Date();
    const options = normalizeScrapeOptions({ formats: ['markdown'], engine: 'http' });
    // The fetcher lane's durable consumer, as the worker makes it; each page's first delivery
    // goes to "another fetcher" (this test), which writes page_started and hands it back.
    await ctx.jsm.consumers.add(STREAM_NAME, {
      durable_name: DURABLE, ack_policy: AckPolicy.Explicit, filter_subject: 'trawl.crawl.*.*.page_requested',
      ack_wait: nanos(15_000), max_deliver: -1, deliver_policy: DeliverPolicy.All,
    });
    for (const [at, worker] of [[live, other.holderId], [gone, 'a-fetcher-that-died'], [replaced, 'a-restarted-fetcher'], [done, 'a-fetcher-that-died'], [reset, other.holderId]] as const) {
      await ctx.log.append(makeEvent('page_requested', at, { url: site.url(`/${at.part}`), options, apiKeyId: 'k', depth: 1, requestedAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
      await ctx.log.append(makeEvent('page_started', at, { attempt: 1, startedAt: new Date().toISOString(), worker }, { eventId: newId(), now }));
    }
    await recordPageFailure(ctx.log, done, { code: 'TIMEOUT', message: 'given up before the redelivery' }, 1, { newId, clock: systemClock });
    await ctx.log.append(makeEvent('crawl_links_discovered', done, { depth: 2, urls: [], skipped: {}, discoveredAt: now.toISOString() }, { eventId: newId(), now }));
    const consumer = await ctx.js.consumers.get(STREAM_NAME, DURABLE);
    const successor = new SlotHolders(ctx.js, { holderId: 'a-restarted-fetcher' });
    await successor.start();
    // Each page's first delivery in hand before any is handed back: naking each as it came
    // let a nak'd page come straight back to the next pull, so one page went round several
    // times while another reached this fetcher at its first delivery (the flake of CI 20).
    const inHand = new Map<string, JsMsg>();
    for (const started = Date.now(); inHand.size < 4 && Date.now() - started < 20_000;) {
      for await (const msg of await consumer.fetch({ max_messages: 4 - inHand.size, expires: 5_000 })) inHand.set(msg.subject, msg);
    }
    assert.deepEqual([...inHand.values()].map((m) => m.info.redeliveryCount), [1, 1, 1, 1], 'each page delivered once, to "another fetcher"');
    assert.deepEqual([...inHand.keys()].map((subject) => subject.split('.')[3]), ['live', 'gone', 'replaced', 'done'], 'the reset page left for this fetcher\'s first delivery');
    for (const msg of inHand.values()) msg.nak();

    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0, launchAtStart: false });
    const mine = new SlotHolders(ctx.js, { holderId: 'this-fetcher' });
    const fetcher = new FetchWorker({
      ctx, router: createEngineRouter(ctx, capturer, systemClock), newId, clock: systemClock,
      workerName: 'this-fetcher', workerLiveness: (worker, since) => mine.liveness(worker, since),
    });
    try {
      await fetcher.start();
      await until(() => ctx.log.exists({ ...gone, event: 'page_fetched' }), { timeoutMs: 30_000, intervalMs: 100 });
      assert.equal(site.hits.get('/gone'), 1, 'the page of a fetcher that is gone is loaded here');
      await until(() => ctx.log.exists({ ...replaced, event: 'page_fetched' }), { timeoutMs: 30_000, intervalMs: 100 });
      assert.equal(site.hits.get('/replaced'), 1, 'the page of a fetcher restarted since is loaded here');
      await sleep(2_000);
      assert.equal(site.hits.get('/live'), undefined, 'the page another live fetcher loads is not asked again');
      assert.equal(site.hits.get('/reset'), undefined, 'nor when it comes back as a first delivery');
      // The other fetcher's result: here its failure, the shortest settled page.
      for (const at of [live, reset]) await recordPageFailure(ctx.log, at, { code: 'TIMEOUT', message: 'the other fetcher gave up' }, 1, { newId, clock: systemClock });
      await until(async () => (await ctx.jsm.consumers.info(STREAM_NAME, DURABLE)).num_ack_pending === 0, { timeoutMs: 15_000, intervalMs: 200 });
      assert.equal(site.hits.get('/live'), undefined);
      assert.equal(await ctx.log.exists({ ...live, event: 'page_fetched' }), false);
      assert.equal(site.hits.get('/reset'), undefined);
      assert.equal(site.hits.get('/done'), undefined, 'a settled page whose latest event is a later step is not loaded again');
    } finally {
      await fetcher.stop();
      await capturer.stop();
      await mine.stop();
      await successor.stop();
    }
  });
});
