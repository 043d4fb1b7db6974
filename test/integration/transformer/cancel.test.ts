// Cancelling a crawl stops its transforms (issue 20): the real consumer (real nats-server,
// real worker threads) is transforming a crawl page whose extract schema stalls its thread;
// crawl_cancel_requested is appended to the log; the thread is freed at once, nothing is
// recorded for the page, and a page of another job that waited behind it runs.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { normalizeScrapeOptions, type ResolvedScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { Cancellations, JobCancelledError } from '../../../services/transformer/src/cancellations.js';
import { TransformConsumer } from '../../../services/transformer/src/consumer.js';
import { TransformPool } from '../../../services/transformer/src/transform-pool.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const DEEP = `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(300)}<span>x</span>${'</div>'.repeat(300)}</body></html>`;
const PLAIN = '<!doctype html><html><head><title>Plain</title></head><body><h1>Plain</h1><p>Text.</p></body></html>';
/** Passes validation; ~40 s on DEEP (baseSelector `div` x a 3-combinator chain that never matches). */
const STALLING: ResolvedScrapeOptions = {
  ...normalizeScrapeOptions({ formats: ['extract'], extract: { schema: { baseSelector: 'div', fields: { x: { selector: 'section div div span' } } } } }),
};

describe('cancelling a crawl stops its transforms', () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let dir: string;

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-cancel-'));
    // A long transform budget: only the cancel can end the stall within this test.
    ctx = await connectService('cancel-test', loadConfig({ NATS_URL: server.url, DATA_DIR: dir, TRANSFORM_TIMEOUT_MS: '120000' }), createLogger('cancel-test', 'silent'));
  });
  after(async () => {
    await ctx.nc.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function fetchedPage(kind: 'crawl' | 'scrape', id: string, html: string, options: ResolvedScrapeOptions) {
    const at = { kind, id, part: 'p1' };
    const now = new Date();
    await ctx.log.append(makeEvent('page_requested', at, { url: 'https://example.com/', options, apiKeyId: 'key1', depth: 0, requestedAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
    const rawHtml = await ctx.payloads.putText(`${kind}/${id}/p1/raw.html`, html, 'text/html; charset=utf-8');
    await ctx.log.append(makeEvent('page_fetched', at, {
      finalUrl: 'https://example.com/', statusCode: 200, rawHtml, timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 1, screenshotMs: 0 }, fetchedAt: now.toISOString(),
    }, { eventId: newId(), now }), { once: true });
    return at;
  }

  test('given a tracked page of a crawl, when the crawl\'s cancel event is appended, then only that job\'s signal aborts', async () => {
    const cancellations = new Cancellations(ctx.nc);
    try {
      const parent = new AbortController();
      const mine = cancellations.track('crawl', 'c-track', parent.signal);
      const other = cancellations.track('crawl', 'c-other', parent.signal);
      await ctx.nc.flush();
      const now = new Date();
      await ctx.log.append(makeEvent('crawl_cancel_requested', { kind: 'crawl', id: 'c-track', part: 'job' }, { requestedAt: now.toISOString() }, { eventId: newId(), now }));
      await until(() => mine.signal.aborted, { timeoutMs: 5_000 });
      assert.ok(mine.signal.reason instanceof JobCancelledError);
      assert.equal(other.signal.aborted, false);
      // A batch's cancel event does the same for the batch's pages.
      const batchPage = cancellations.track('batch', 'b-track', parent.signal);
      await ctx.log.append(makeEvent('batch_cancel_requested', { kind: 'batch', id: 'b-track', part: 'job' }, { requestedAt: now.toISOString() }, { eventId: newId(), now }));
      await until(() => batchPage.signal.aborted, { timeoutMs: 5_000 });
      assert.equal(other.signal.aborted, false);
      // The handler's own deadline (the parent signal) still aborts with its reason.
      parent.abort(new Error('handler exceeded'));
      assert.match(String(other.signal.reason), /handler exceeded/);
      mine.done();
      other.done();
      batchPage.done();
    } finally {
      cancellations.close();
    }
  });

  test('given a crawl page stalling the only thread, when the crawl is cancelled, then the thread is free at once and the page records nothing', async () => {
    const pool = new TransformPool({ size: 1 });
    const transformer = new TransformConsumer({ ctx, pool, newId, clock: systemClock });
    try {
      const stalled = await fetchedPage('crawl', 'c-stall', DEEP, STALLING);
      await transformer.consumer.start();
      await until(() => pool.stats().busy === 1, { timeoutMs: 10_000 });
      // A scrape of the same key waits behind the stall (one thread).
      const waiting = await fetchedPage('scrape', 's-behind', PLAIN, normalizeScrapeOptions({ formats: ['markdown'] }));
      await until(() => pool.stats().queued === 1, { timeoutMs: 10_000 });

      const now = new Date();
      const cancelledAt = performance.now();
      await ctx.log.append(makeEvent('crawl_cancel_requested', { kind: 'crawl', id: 'c-stall', part: 'job' }, { requestedAt: now.toISOString() }, { eventId: newId(), now }));
      await until(() => ctx.log.exists({ ...waiting, event: 'page_completed' }), { timeoutMs: 15_000 });
      const tookMs = performance.now() - cancelledAt;
      assert.ok(tookMs < 10_000, `the page behind the stall completed ${Math.round(tookMs)} ms after the cancel`);
      assert.equal(await ctx.log.exists({ ...stalled, event: 'page_completed' }), false);
      assert.equal(await ctx.log.exists({ ...stalled, event: 'page_failed' }), false, 'a cancelled page is not failed: its job is over');
    } finally {
      await transformer.stop();
      await pool.close();
    }
  });
});
