// The gateway's batch scrape API with inject(), against a real nats-server, the embedded
// store and a real projector in-process. No frontier or fetcher runs: the test plays the
// page pipeline's part by appending its events (with real result payloads in the Object
// Store), to check what the gateway records and how it presents and pages results.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { BatchJobView } from '../../../shared/src/api/index.js';
import { makeEvent, type AnyEvent, type PageResultPayload } from '../../../shared/src/domain/events/index.js';
import { apiKeyId, newId } from '../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import type { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import type { SqliteStore } from '../../../shared/src/infra/store/index.js';
import type { ProjectionWaiter } from '../../../services/gateway/src/projection-wait.js';
import { startGateway, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';

const KEY = 'batch_test_key_0000000001';

/** `value` serialized by a route whose 200 answer has `schema` (as Fastify did for the whole view). */
async function schemaSerialized(schema: TSchema, value: unknown): Promise<string> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: schema } } }, async () => value);
  try {
    return (await app.inject({ method: 'GET', url: '/' })).body;
  } finally {
    await app.close();
  }
}
const FREE = 'batch_test_key_0000000002';
/** The answer's bound on content (JOB_DATA_MAX_BYTES, 10 MB by default): the same cut with pages 40 times smaller. */
const DATA_MAX_BYTES = 256 * 1024;
/** A large page: two fit in one answer, three do not. */
const LARGE_PAGE_CHARS = 100 * 1024;

describe('gateway batch scrape API', () => {
  let gateway: GatewayHarness;
  let app: GatewayApp;
  let store: SqliteStore;
  let log: EventLog;
  let payloads: PayloadStore;
  let waiter: ProjectionWaiter;

  before(async () => {
    gateway = await startGateway({
      keys: [[KEY, 'team'], [FREE, 'free']],
      env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', PUBLIC_BASE_URL: 'https://trawl.test', JOB_DATA_MAX_BYTES: String(DATA_MAX_BYTES) },
      payloadTtlMs: 600_000,
    });
    ({ app, store, log, payloads, waiter } = gateway);
  });

  after(() => gateway.close());

  const post = (body: unknown, key = KEY) =>
    app.inject({ method: 'POST', url: '/api/v1/batch/scrape', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify(body) });
  const get = (url: string, key = KEY) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  /** Plays the pipeline: the page completes with `payload` as its result document. */
  async function complete(batchId: string, pageKey: string, payload: PageResultPayload): Promise<void> {
    const now = new Date();
    const result = await payloads.putJson(`batch/${batchId}/${pageKey}/result.json`, payload);
    const { seq } = await log.append(makeEvent('page_completed', { kind: 'batch', id: batchId, part: pageKey }, {
      result, metadata: { title: pageKey, description: '' }, links: [],
      timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: now.toISOString(),
    }, { eventId: newId(), now }) as AnyEvent, { once: true });
    await waiter.waitFor(seq);
  }

  test('POST records one batch_requested with the pages deduplicated in request order and the options resolved', async () => {
    const res = await post({
      urls: ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/a/', 'http://127.0.0.1:9/c#x'],
      formats: ['links', 'markdown'], webhookUrl: 'http://127.0.0.1:9/hook',
    });
    assert.equal(res.statusCode, 202, res.body);
    const { id } = res.json();
    const [requested, ...rest] = await log.history('batch', id);
    assert.equal(rest.length, 0);
    assert.equal(requested!.event, 'batch_requested');
    const data = requested!.data as any;
    assert.deepEqual(data.pages.map((p: any) => p.url), ['http://127.0.0.1:9/a', 'http://127.0.0.1:9/b', 'http://127.0.0.1:9/c']);
    assert.deepEqual([data.requestedUrls, data.invalidUrls, data.webhookUrl, data.apiKeyId], [4, 0, 'http://127.0.0.1:9/hook', apiKeyId(KEY)]);
    assert.deepEqual(data.options.formats, ['markdown', 'links']);
    const view = (await get(`/api/v1/batch/scrape/${id}`)).json();
    assert.deepEqual([view.status, view.totalUrls, view.completedUrls, view.failedUrls], ['PENDING', 3, 0, 0]);
    assert.deepEqual(view.data, data.pages.map((p: any) => ({ url: p.url, status: 'PENDING' })));
    assert.equal(view.next, undefined);
  });

  test('content is shown per format on COMPLETED pages, and large results are paged with `next`', async () => {
    const { id } = (await post({ urls: ['http://127.0.0.1:9/p0', 'http://127.0.0.1:9/p1', 'http://127.0.0.1:9/p2', 'http://127.0.0.1:9/p3'] })).json();
    const pages = ((await log.history('batch', id))[0]!.data as any).pages as { pageKey: string }[];
    const big = (n: number): string => `${n}`.repeat(LARGE_PAGE_CHARS);
    for (const [i, p] of pages.slice(0, 3).entries()) await complete(id, p.pageKey, { markdown: big(i), links: ['https://x.test/'] });
    const firstRes = await get(`/api/v1/batch/scrape/${id}`);
    const first = firstRes.json();
    // Written page by page (routes/streamed-view.ts), yet exactly what the response schema serializes.
    assert.equal(firstRes.headers['content-length'], undefined);
    assert.equal(firstRes.body, await schemaSerialized(BatchJobView, first));
    assert.deepEqual(first.data.map((d: any) => d.status), ['COMPLETED', 'COMPLETED']);
    assert.equal(first.data[0].markdown.length, LARGE_PAGE_CHARS);
    assert.deepEqual(first.data[0].metadata, { title: pages[0]!.pageKey, description: '' });
    assert.deepEqual(first.data[0].links, ['https://x.test/'], 'what the result holds is shown');
    assert.equal(first.next, `https://trawl.test/api/v1/batch/scrape/${id}?cursor=2`);
    assert.equal(first.completedUrls, 3);
    const second = (await get(new URL(first.next).pathname + new URL(first.next).search)).json();
    assert.deepEqual(second.data.map((d: any) => [d.url, d.status]), [['http://127.0.0.1:9/p2', 'COMPLETED'], ['http://127.0.0.1:9/p3', 'PENDING']]);
    assert.equal(second.data[0].markdown[0], '2');
    assert.equal(second.next, undefined);
  });

  test('screenshots with response base64 are inlined as data: URLs', async () => {
    const { id } = (await post({ urls: ['http://127.0.0.1:9/shot'], formats: ['screenshot'], screenshotOptions: { response: 'base64' } })).json();
    const [{ pageKey }] = ((await log.history('batch', id))[0]!.data as any).pages;
    const png = new Uint8Array([137, 80, 78, 71, 1, 2, 3]);
    const ref = await payloads.putBytes(`batch/${id}/${pageKey}/screenshot.png`, png, 'image/png');
    await complete(id, pageKey, { screenshot: { name: ref.name, width: 10, height: 20, format: 'png', fileSize: png.byteLength } });
    const [entry] = (await get(`/api/v1/batch/scrape/${id}`)).json().data;
    assert.equal(entry.screenshot.data, `data:image/png;base64,${Buffer.from(png).toString('base64')}`);
    assert.deepEqual([entry.screenshot.width, entry.screenshot.height, entry.screenshot.url], [10, 20, undefined]);
    const image = await get(`/api/v1/batch/scrape/${id}/pages/0/screenshot`);
    assert.equal(image.statusCode, 200);
    assert.deepEqual(new Uint8Array(image.rawPayload), png);
  });

  test('cancelling a PENDING batch: CANCELLED at once, every page CANCELLED, then 409', async () => {
    const { id } = (await post({ urls: ['http://127.0.0.1:9/x', 'http://127.0.0.1:9/y'] })).json();
    const res = await app.inject({ method: 'DELETE', url: `/api/v1/batch/scrape/${id}`, headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(res.statusCode, 200, res.body);
    const view = (await get(`/api/v1/batch/scrape/${id}`)).json();
    assert.equal(view.status, 'CANCELLED');
    assert.deepEqual(view.data.map((d: any) => d.status), ['CANCELLED', 'CANCELLED']);
    const again = await app.inject({ method: 'DELETE', url: `/api/v1/batch/scrape/${id}`, headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'JOB_ALREADY_FINISHED');
  });

  test('a batch is one job for the plan\'s concurrency limit (free: 2 at once)', async () => {
    for (let i = 0; i < 2; i++) assert.equal((await post({ urls: [`http://127.0.0.1:9/f${i}`, `http://127.0.0.1:9/g${i}`] }, FREE)).statusCode, 202);
    const third = await post({ urls: ['http://127.0.0.1:9/h'] }, FREE);
    assert.equal(third.statusCode, 429, third.body);
    assert.equal(third.json().code, 'RATE_LIMITED');
  });

  test('the OpenAPI document lists the batch endpoints', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const p of ['/api/v1/batch/scrape', '/api/v1/batch/scrape/{id}']) assert.ok(doc.paths[p], p);
    assert.ok(doc.paths['/api/v1/batch/scrape'].post.requestBody);
  });
});
