// While nats-server is down (killed, then started again on the same port and store), every
// request that needs it answers 503 SERVICE_UNAVAILABLE as problem+json with Retry-After,
// never 500 INTERNAL_ERROR (issue 20, item 6a); once it is back, the same requests work.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NatsConnection } from 'nats';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { connectNats } from '../../../shared/src/infra/nats/connect.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { buildApp } from '../../../services/gateway/src/app.js';
import { ProjectionWaiter } from '../../../services/gateway/src/projection-wait.js';
import { until } from '../../support/wait.js';
import { assertProblem, startGateway, TEST_ERROR_TYPE_BASE, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';

const KEY = 'natsdown_test_key_00000001';

describe('nats-server down: 503 with Retry-After', () => {
  let gw: GatewayHarness;
  // The gateway under test connects as `npm start`'s does (reconnecting forever), not as the harness's.
  let nc: NatsConnection;
  let waiter: ProjectionWaiter;
  let app: GatewayApp;
  let scrapeId = '';
  let crawlId = '';

  const api = (method: 'GET' | 'POST', url: string, body?: unknown) => app.inject({
    method, url, headers: { authorization: `Bearer ${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}),
  });

  before(async () => {
    gw = await startGateway({ keys: [[KEY, 'team']], env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', ERROR_TYPE_BASE: TEST_ERROR_TYPE_BASE } });
    nc = await connectNats(gw.server.url, 'gateway-under-test', gw.logger);
    waiter = new ProjectionWaiter(nc, gw.store);
    await waiter.start();
    const js = nc.jetstream();
    app = await buildApp({ config: gw.config, logger: gw.logger, nc, log: new EventLog(js, await nc.jetstreamManager()), payloads: new PayloadStore(js), store: gw.store, waiter, newId, clock: systemClock });
    await app.ready();
    const scrape = await api('POST', '/api/v1/scrape', { url: 'http://127.0.0.1:9/a' });
    assert.equal(scrape.statusCode, 202, scrape.body);
    scrapeId = scrape.json().id;
    const crawl = await api('POST', '/api/v1/crawl', { url: 'http://127.0.0.1:9/', limit: 2 });
    assert.equal(crawl.statusCode, 202, crawl.body);
    crawlId = crawl.json().id;
  });

  after(async () => {
    await app?.close();
    waiter?.stop();
    await nc?.close();
    await gw?.close();
  });

  test('every request that needs NATS is a 503 problem with Retry-After while it is down', async () => {
    await gw.server.kill();
    const requests: [string, () => ReturnType<typeof api>][] = [
      ['GET /crawl/:id', () => api('GET', `/api/v1/crawl/${crawlId}`)],
      ['GET /scrape/:id', () => api('GET', `/api/v1/scrape/${scrapeId}`)],
      ['GET /scrape/:id/events', () => api('GET', `/api/v1/scrape/${scrapeId}/events`)],
      ['POST /scrape', () => api('POST', '/api/v1/scrape', { url: 'http://127.0.0.1:9/b' })],
      ['GET /crawl', () => api('GET', '/api/v1/crawl')],
    ];
    const answers = await Promise.all(requests.map(async ([name, send]) => [name, await send()] as const));
    for (const [name, res] of answers) {
      console.log(`${name} with nats-server down: ${res.statusCode} ${res.json().code} retry-after=${res.headers['retry-after']}`);
      assertProblem(res, 503, 'SERVICE_UNAVAILABLE');
      assert.match(String(res.headers['retry-after']), /^\d+$/, `${name}: Retry-After`);
    }
  });

  test('the console says so too (a page for a browser, a problem for JSON)', async () => {
    const form = await app.inject({ method: 'POST', url: '/console/signin', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded', cookie: 'trawl_csrf=abcdefghijklmnopqrstuvwx' }, payload: '_csrf=abcdefghijklmnopqrstuvwx&email=a%40example.org&password=xxxxxxxxxxxx' });
    assertProblem(form, 503, 'SERVICE_UNAVAILABLE');
    assert.match(String(form.headers['retry-after']), /^\d+$/);
  });

  test('back up: the same requests answer again', async () => {
    await gw.server.start();
    await until(async () => (await api('GET', `/api/v1/crawl/${crawlId}`)).statusCode === 200, { timeoutMs: 30_000, intervalMs: 250 });
    assert.equal((await api('GET', `/api/v1/scrape/${scrapeId}/events`)).statusCode, 200);
  });
});
