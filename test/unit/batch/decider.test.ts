// The batch decider, one rule at a time: given(events) / when(command) / then(events).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniquePages } from '../../../shared/src/domain/batch-options.js';
import { validateEventData } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import {
  jobWebhookBody, decide, evolve, initialState, rehydrate, type BatchCommand, type BatchState, type DecideContext, type Emitted, type LogEvent,
} from '../../../services/crawler-frontier/src/batch/decider.js';
import { deciderSpec } from '../../support/decider.js';

const NOW = new Date('2026-01-02T03:04:05.678Z');
const AT = NOW.toISOString();
const ID = 'batch1';
const options = normalizeScrapeOptions({ formats: ['markdown', 'links'] });
const u = (p: string): string => `https://site.test${p}`;
const key = (p: string): string => uniquePages([u(p)])[0]!.pageKey;

const requested = (paths: string[], extra: { webhookUrl?: string } = {}): LogEvent => ({
  part: 'job',
  event: 'batch_requested',
  data: { pages: uniquePages(paths.map(u)), requestedUrls: paths.length, invalidUrls: 0, options, apiKeyId: 'key1', requestedAt: AT, ...extra },
});
const started = (): LogEvent => ({ part: 'job', event: 'batch_started', data: { startedAt: AT } });
const pageRequested = (p: string): LogEvent => ({
  part: key(p), event: 'page_requested', data: { url: u(p), options, apiKeyId: 'key1', depth: 0, requestedAt: AT },
});
const fetched = (p: string): LogEvent => ({
  part: key(p),
  event: 'page_fetched',
  data: { finalUrl: u(p), statusCode: 200, rawHtml: { bucket: 'b', name: 'n', size: 1, contentType: 'text/html' }, timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, screenshotMs: 0 }, fetchedAt: AT },
});
const completed = (p: string): LogEvent => ({
  part: key(p),
  event: 'page_completed',
  data: {
    result: { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' }, metadata: { title: p, description: '' }, links: [],
    timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: AT,
  },
});
const failed = (p: string): LogEvent => ({
  part: key(p), event: 'page_failed', data: { error: { code: 'NETWORK_ERROR', message: 'refused' }, failedAt: AT, attempt: 1 },
});
const cancel = (): LogEvent => ({ part: 'job', event: 'batch_cancel_requested', data: { requestedAt: AT } });
const finished = (status: 'COMPLETED' | 'FAILED' | 'CANCELLED', total: number, done: number, bad: number, reason?: string): LogEvent => ({
  part: 'job', event: 'batch_finished',
  data: { status, totalUrls: total, completedUrls: done, failedUrls: bad, ...(reason ? { reason } : {}), finishedAt: AT },
});
const webhook = (type: 'batch.completed' | 'batch.failed' | 'batch.cancelled', status: 'COMPLETED' | 'FAILED' | 'CANCELLED', total: number, done: number, bad: number): LogEvent => ({
  part: 'webhook',
  event: 'webhook_requested',
  data: {
    url: 'https://hooks.test/b', type, webhookId: `msg_${ID}`, apiKeyId: 'key1', requestedAt: AT,
    body: jobWebhookBody(type, { id: ID, status, totalUrls: total, completedUrls: done, failedUrls: bad }, AT),
  },
});
const advance: BatchCommand = { type: 'Advance', jobId: ID };

const { given } = deciderSpec<BatchCommand, LogEvent, BatchState, Emitted[], Partial<DecideContext>>({
  decide: (command, state, ctx) => decide(command, state, { now: NOW, ...ctx }),
  evolve,
  initialState,
});

describe('batch decider', () => {
  test('a requested batch starts and requests its pages in request order, up to maxInFlight', () => {
    given([requested(['/a', '/b', '/c', '/d', '/e'])])
      .when(advance, { maxInFlight: 3 })
      .then([started(), pageRequested('/a'), pageRequested('/b'), pageRequested('/c')]);
  });

  test('the default bound is 4 pages in flight', () => {
    const out = given([requested(['/1', '/2', '/3', '/4', '/5', '/6'])]).when(advance).result();
    assert.equal(out.filter((e) => e.event === 'page_requested').length, 4);
  });

  test('advancing again with every slot taken decides nothing (a redelivery is harmless)', () => {
    given([requested(['/a', '/b', '/c']), started(), pageRequested('/a'), pageRequested('/b')])
      .when(advance, { maxInFlight: 2 })
      .then([]);
  });

  test('a result frees a slot for the next queued page', () => {
    given([requested(['/a', '/b', '/c']), started(), pageRequested('/a'), pageRequested('/b'), failed('/a')])
      .when(advance, { maxInFlight: 2 })
      .then([pageRequested('/c')]);
  });

  test('a fetched page no longer loads: the next page loads while it is transformed (as in a crawl)', () => {
    given([requested(['/a', '/b', '/c']), started(), pageRequested('/a'), pageRequested('/b'), fetched('/a')])
      .when(advance, { maxInFlight: 2 })
      .then([pageRequested('/c')]);
  });

  test('pages requested and not finished are bounded at twice maxInFlight, fetched or not', () => {
    given([requested(['/a', '/b', '/c']), started(), pageRequested('/a'), fetched('/a'), pageRequested('/b'), fetched('/b')])
      .when(advance, { maxInFlight: 1 })
      .then([]);
    const { state } = given([requested(['/a', '/b']), started(), pageRequested('/a'), fetched('/a'), fetched('/a'), completed('/a')]);
    assert.deepEqual([state.inFlight.size, state.fetched.size, state.completed], [0, 0, 1], 'a result ends the page; a repeated page_fetched counts once');
  });

  test('the batch completes once every page has a result; failures only count', () => {
    given([requested(['/a', '/b']), started(), pageRequested('/a'), pageRequested('/b'), completed('/a'), failed('/b')])
      .when(advance)
      .then([finished('COMPLETED', 2, 1, 1)]);
  });

  test('a batch whose every page failed is FAILED, with the reason', () => {
    given([requested(['/a', '/b']), started(), pageRequested('/a'), pageRequested('/b'), failed('/a'), failed('/b')])
      .when(advance)
      .then([finished('FAILED', 2, 0, 2, 'all 2 pages failed')]);
  });

  test('with a webhookUrl the end requests a batch.completed webhook with the counters', () => {
    given([requested(['/a'], { webhookUrl: 'https://hooks.test/b' }), started(), pageRequested('/a'), completed('/a')])
      .when(advance)
      .then([finished('COMPLETED', 1, 1, 0), webhook('batch.completed', 'COMPLETED', 1, 1, 0)]);
  });

  test('the webhook body has the crawl webhook shape without startUrl', () => {
    const body = JSON.parse(jobWebhookBody('batch.completed', { id: 'x', status: 'COMPLETED', totalUrls: 3, completedUrls: 2, failedUrls: 1 }, AT));
    assert.deepEqual(body, { event: 'batch.completed', data: { id: 'x', status: 'COMPLETED', totalUrls: 3, completedUrls: 2, failedUrls: 1 }, timestamp: AT });
  });

  test('a cancel finishes the batch at once: nothing more is requested, later results do not count', () => {
    const history = [requested(['/a', '/b', '/c'], { webhookUrl: 'https://hooks.test/b' }), started(), pageRequested('/a'), pageRequested('/b'), completed('/a'), cancel()];
    given([...history]).when(advance, { maxInFlight: 2 })
      .then([finished('CANCELLED', 3, 1, 0), webhook('batch.cancelled', 'CANCELLED', 3, 1, 0)]);
    const { state } = given([...history, completed('/b')]);
    assert.equal(state.completed, 1, 'a result after the cancel is not counted');
  });

  test('a cancel before the start cancels without starting', () => {
    given([requested(['/a']), cancel()]).when(advance).then([finished('CANCELLED', 1, 0, 0)]);
  });

  test('a finished batch decides nothing more, even on a late cancel', () => {
    given([requested(['/a']), started(), pageRequested('/a'), completed('/a'), finished('COMPLETED', 1, 1, 0), cancel()])
      .when(advance)
      .then([]);
  });

  test('a repeated result (redelivery) counts once; a result for an unknown page is ignored', () => {
    const { state } = given([requested(['/a', '/b']), started(), pageRequested('/a'), completed('/a'), completed('/a'), failed('/a'), completed('/zzz')]);
    assert.deepEqual([state.completed, state.failed, state.inFlight.size], [1, 0, 0]);
  });

  test('Fail ends a running batch FAILED with the reason; an unknown batch decides nothing', () => {
    given([requested(['/a', '/b']), started(), pageRequested('/a'), completed('/a')])
      .when({ type: 'Fail', jobId: ID, reason: 'gave up' })
      .then([finished('FAILED', 2, 1, 0, 'gave up')]);
    given([]).when(advance).then([]);
  });

  test('every decided event satisfies its schema', () => {
    const events = [
      ...given([requested(['/a', '/b'], { webhookUrl: 'https://hooks.test/b' })]).when(advance).result(),
      ...given([requested(['/a'], { webhookUrl: 'https://hooks.test/b' }), started(), pageRequested('/a'), failed('/a')]).when(advance).result(),
    ];
    assert.ok(events.length >= 5);
    for (const e of events) validateEventData(e.event, e.data);
  });

  test('a whole batch of 10 pages, answered in order, never has more than the bound in flight', () => {
    const paths = Array.from({ length: 10 }, (_, i) => `/p${i}`);
    const events: LogEvent[] = [requested(paths)];
    const inFlight: string[] = [];
    let peak = 0;
    for (let step = 0; step < 100; step++) {
      const state = rehydrate(events);
      for (const e of decide(advance, state, { now: NOW, maxInFlight: 3 }) as LogEvent[]) {
        events.push(e);
        if (e.event === 'page_requested') inFlight.push(new URL(e.data.url).pathname);
      }
      peak = Math.max(peak, inFlight.length);
      if (events.some((e) => e.event === 'batch_finished')) break;
      const next = inFlight.shift()!;
      events.push(next === '/p3' ? failed(next) : completed(next));
    }
    assert.equal(peak, 3);
    assert.deepEqual(events.filter((e) => e.event === 'page_requested').map((e) => (e.data as { url: string }).url), paths.map(u));
    assert.deepEqual(events.at(-1), finished('COMPLETED', 10, 9, 1));
  });
});

describe('batch pages', () => {
  test('a URL given twice (by normalized key) is one page, at its first position', () => {
    const pages = uniquePages(['https://Site.test/a/', 'https://site.test/b', 'https://www.site.test/a#x', 'https://site.test/a?utm_source=x', 'ftp://x/']);
    assert.deepEqual(pages.map((p) => p.url), ['https://site.test/a/', 'https://site.test/b']);
  });
});
