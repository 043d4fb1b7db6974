// The gateway's scrape API with inject(), against a real nats-server, the embedded store
// and a real projector in-process: auth, RFC 7807 errors, validation of every field,
// ownership, history. No page is fetched here (no fetcher runs): jobs stay PENDING.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { apiKeyId, newId, systemClock } from '../../../shared/src/infra/ids.js';
import type { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { buildApp } from '../../../services/gateway/src/app.js';
import { assertProblem, startGateway, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';

const KEY = 'gateway_test_key_000000001';
const OTHER = 'gateway_test_key_000000002';
const FREE = 'gateway_test_key_000000003';
const FREE2 = 'gateway_test_key_000000004';
const FREE3 = 'gateway_test_key_000000005';
const FREE4 = 'gateway_test_key_000000006';
const BASIC = 'gateway_test_key_000000007';
const FREE5 = 'gateway_test_key_000000008';

describe('gateway scrape API', () => {
  let gateway: GatewayHarness;
  let app: GatewayApp;
  let store: SqliteStore;

  before(async () => {
    gateway = await startGateway({
      keys: [[KEY, 'team'], [OTHER, 'team'], [FREE, 'free'], [FREE2, 'free'], [FREE3, 'free'], [FREE4, 'free'], [BASIC, 'basic'], [FREE5, 'free']],
      env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', ERROR_TYPE_BASE: 'https://errors.example/trawl' },
    });
    ({ app, store } = gateway);
  });

  after(() => gateway.close());

  const post = (body: unknown, key = KEY, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/api/v1/scrape', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) });
  const get = (url: string, key = KEY) => app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });

  describe('authentication', () => {
    test('missing key is 401 UNAUTHORIZED', async () => {
      assertProblem(await app.inject({ method: 'GET', url: '/api/v1/scrape' }), 401, 'UNAUTHORIZED', /missing/);
    });
    test('invalid key and malformed header are 401', async () => {
      assertProblem(await get('/api/v1/scrape', 'nope_nope_nope_nope'), 401, 'UNAUTHORIZED', /invalid/);
      assertProblem(await app.inject({ method: 'GET', url: '/api/v1/scrape', headers: { authorization: `Basic ${KEY}` } }), 401, 'UNAUTHORIZED');
    });
    test('health endpoints need no key', async () => {
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json().checks, { nats: true, store: true });
    });
    test('a client request id is echoed; otherwise one is made', async () => {
      const res = await get('/api/v1/scrape?limit=1');
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      const own = await app.inject({ method: 'GET', url: '/api/v1/scrape', headers: { authorization: `Bearer ${KEY}`, 'x-request-id': 'client-id-12345' } });
      assert.equal(own.headers['x-request-id'], 'client-id-12345');
    });
  });

  describe('create, read, list', () => {
    test('POST answers 202 {id, status: PENDING} and the job is readable at once', async () => {
      const res = await post({ url: 'http://127.0.0.1:9/page' });
      assert.equal(res.statusCode, 202);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['id', 'status']);
      assert.equal(body.status, 'PENDING');
      const job = await get(`/api/v1/scrape/${body.id}`);
      assert.equal(job.statusCode, 200);
      assert.equal(job.json().status, 'PENDING');
      assert.equal(job.json().fromCache, false);
      assert.equal(job.json().url, 'http://127.0.0.1:9/page');
    });

    test('another key\'s job and an unknown id are both 404 NOT_FOUND', async () => {
      const { id } = (await post({ url: 'http://127.0.0.1:9/mine' })).json();
      assertProblem(await get(`/api/v1/scrape/${id}`, OTHER), 404, 'NOT_FOUND');
      assertProblem(await get('/api/v1/scrape/does-not-exist'), 404, 'NOT_FOUND');
    });

    test('history lists own jobs newest first with limit and offset', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await post({ url: `http://127.0.0.1:9/list-${i}` }, OTHER)).json().id);
      const list = (await get('/api/v1/scrape?limit=2&offset=0', OTHER)).json();
      assert.deepEqual(list.map((j: { id: string }) => j.id), [ids[2], ids[1]]);
      assert.deepEqual(Object.keys(list[0]).sort(), ['createdAt', 'fromCache', 'id', 'status', 'url']);
      const next = (await get('/api/v1/scrape?limit=2&offset=2', OTHER)).json();
      assert.deepEqual(next.map((j: { id: string }) => j.id), [ids[0]]);
    });

    test('list query parameters are validated', async () => {
      for (const q of ['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'limit=1.5', 'bogus=1']) {
        assertProblem(await get(`/api/v1/scrape?${q}`), 400, 'VALIDATION_ERROR');
      }
      assert.equal((await get('/api/v1/scrape?limit=100&offset=0')).statusCode, 200);
      assert.equal((await get('/api/v1/scrape?limit=1')).statusCode, 200);
    });
  });

  describe('bad input: every field of the scrape request', () => {
    const invalid: [string, unknown, string, RegExp][] = [
      ['missing url', {}, 'VALIDATION_ERROR', /url is required/],
      ['url not a string', { url: 5 }, 'VALIDATION_ERROR', /url must be of type string/],
      ['url malformed', { url: 'not a url' }, 'INVALID_URL', /not a valid URL/],
      ['url ftp scheme', { url: 'ftp://example.com/x' }, 'INVALID_URL', /only http and https/],
      ['url with credentials', { url: 'http://u:p@127.0.0.1/' }, 'INVALID_URL', /credentials/],
      ['unknown field', { url: 'http://127.0.0.1/', colour: 'red' }, 'VALIDATION_ERROR', /colour is not a known field/],
      ['formats not an array', { url: 'http://127.0.0.1/', formats: 'markdown' }, 'VALIDATION_ERROR', /formats must be of type array/],
      ['formats unknown value', { url: 'http://127.0.0.1/', formats: ['pdf'] }, 'VALIDATION_ERROR', /formats\.0 must be one of: markdown, html, rawHtml, links, screenshot/],
      ['formats empty', { url: 'http://127.0.0.1/', formats: [] }, 'VALIDATION_ERROR', /formats/],
      ['formats duplicated', { url: 'http://127.0.0.1/', formats: ['html', 'html'] }, 'VALIDATION_ERROR', /formats/],
      ['onlyMainContent not boolean', { url: 'http://127.0.0.1/', onlyMainContent: 'yes' }, 'VALIDATION_ERROR', /onlyMainContent must be of type boolean/],
      ['includeTags not array', { url: 'http://127.0.0.1/', includeTags: 'p' }, 'VALIDATION_ERROR', /includeTags/],
      ['excludeTags empty selector', { url: 'http://127.0.0.1/', excludeTags: [''] }, 'VALIDATION_ERROR', /excludeTags\.0/],
      ['excludeTags invalid selector', { url: 'http://127.0.0.1/', excludeTags: ['div['] }, 'VALIDATION_ERROR', /excludeTags\.0 is not a valid CSS selector/],
      ['includeTags invalid selector', { url: 'http://127.0.0.1/', includeTags: ['main', ':not('] }, 'VALIDATION_ERROR', /includeTags\.1 is not a valid CSS selector/],
      ['viewport.width too small', { url: 'http://127.0.0.1/', viewport: { width: 99 } }, 'VALIDATION_ERROR', /viewport\.width must be >= 100/],
      ['viewport.width too large', { url: 'http://127.0.0.1/', viewport: { width: 3841 } }, 'VALIDATION_ERROR', /viewport\.width must be <= 3840/],
      ['viewport.height too small', { url: 'http://127.0.0.1/', viewport: { height: 99 } }, 'VALIDATION_ERROR', /viewport\.height must be >= 100/],
      ['viewport.height too large', { url: 'http://127.0.0.1/', viewport: { height: 2161 } }, 'VALIDATION_ERROR', /viewport\.height must be <= 2160/],
      ['viewport.width a string', { url: 'http://127.0.0.1/', viewport: { width: '800' } }, 'VALIDATION_ERROR', /viewport\.width must be of type integer/],
      ['mobile not boolean', { url: 'http://127.0.0.1/', mobile: 1 }, 'VALIDATION_ERROR', /mobile must be of type boolean/],
      ['device unknown', { url: 'http://127.0.0.1/', device: 'watch' }, 'VALIDATION_ERROR', /device must be one of: desktop, tablet, mobile/],
      ['darkMode not boolean', { url: 'http://127.0.0.1/', darkMode: 'dark' }, 'VALIDATION_ERROR', /darkMode must be of type boolean/],
      ['headers not an object', { url: 'http://127.0.0.1/', headers: ['x'] }, 'VALIDATION_ERROR', /headers/],
      ['headers value not a string', { url: 'http://127.0.0.1/', headers: { 'x-a': 1 } }, 'VALIDATION_ERROR', /headers/],
      ['waitFor negative', { url: 'http://127.0.0.1/', waitFor: -1 }, 'VALIDATION_ERROR', /waitFor/],
      ['waitFor boolean', { url: 'http://127.0.0.1/', waitFor: true }, 'VALIDATION_ERROR', /waitFor/],
      ['timeout too small', { url: 'http://127.0.0.1/', timeout: 999 }, 'VALIDATION_ERROR', /timeout must be >= 1000/],
      ['timeout too large', { url: 'http://127.0.0.1/', timeout: 300_001 }, 'VALIDATION_ERROR', /timeout must be <= 300000/],
      ['timeout a string', { url: 'http://127.0.0.1/', timeout: '30000' }, 'VALIDATION_ERROR', /timeout must be of type integer/],
      ['screenshotOptions.fullPage', { url: 'http://127.0.0.1/', screenshotOptions: { fullPage: 'yes' } }, 'VALIDATION_ERROR', /screenshotOptions\.fullPage must be of type boolean/],
      ['screenshotOptions.format', { url: 'http://127.0.0.1/', screenshotOptions: { format: 'gif' } }, 'VALIDATION_ERROR', /screenshotOptions\.format must be one of: png, jpeg, webp/],
      ['screenshotOptions.quality 0', { url: 'http://127.0.0.1/', screenshotOptions: { quality: 0 } }, 'VALIDATION_ERROR', /screenshotOptions\.quality must be >= 1/],
      ['screenshotOptions.quality 101', { url: 'http://127.0.0.1/', screenshotOptions: { quality: 101 } }, 'VALIDATION_ERROR', /screenshotOptions\.quality must be <= 100/],
      ['screenshotOptions.clip empty', { url: 'http://127.0.0.1/', screenshotOptions: { clip: '' } }, 'VALIDATION_ERROR', /screenshotOptions\.clip/],
      ['screenshotOptions.response', { url: 'http://127.0.0.1/', screenshotOptions: { response: 'file' } }, 'VALIDATION_ERROR', /screenshotOptions\.response must be one of: url, base64/],
      ['maxPages 0', { url: 'http://127.0.0.1/', maxPages: 0 }, 'VALIDATION_ERROR', /maxPages must be >= 1/],
      ['maxPages too large', { url: 'http://127.0.0.1/', maxPages: 10_001 }, 'VALIDATION_ERROR', /maxPages must be <= 10000/],
      ['maxPages a string', { url: 'http://127.0.0.1/', maxPages: '5' }, 'VALIDATION_ERROR', /maxPages must be of type integer/],
      ['parsers unknown', { url: 'http://127.0.0.1/', parsers: ['exe'] }, 'VALIDATION_ERROR', /parsers/],
      ['parsers true', { url: 'http://127.0.0.1/', parsers: true }, 'VALIDATION_ERROR', /parsers/],
      ['parsers duplicated', { url: 'http://127.0.0.1/', parsers: ['pdf', 'pdf'] }, 'VALIDATION_ERROR', /parsers/],
      ['actions not an array', { url: 'http://127.0.0.1/', actions: {} }, 'VALIDATION_ERROR', /actions must be of type array/],
      ['action unknown type', { url: 'http://127.0.0.1/', actions: [{ type: 'hover', selector: 'a' }] }, 'VALIDATION_ERROR', /actions\.0\.type must be one of/],
      ['wait without milliseconds', { url: 'http://127.0.0.1/', actions: [{ type: 'wait' }] }, 'VALIDATION_ERROR', /actions\.0/],
      ['click without selector', { url: 'http://127.0.0.1/', actions: [{ type: 'click' }] }, 'VALIDATION_ERROR', /actions\.0/],
      ['type without text', { url: 'http://127.0.0.1/', actions: [{ type: 'type', selector: '#q' }] }, 'VALIDATION_ERROR', /actions\.0/],
      ['press without key', { url: 'http://127.0.0.1/', actions: [{ type: 'press' }] }, 'VALIDATION_ERROR', /actions\.0/],
      ['press an unknown key', { url: 'http://127.0.0.1/', actions: [{ type: 'press', key: 'Ctrl+A' }] }, 'VALIDATION_ERROR', /actions\.0\.key/],
      ['scroll bad direction', { url: 'http://127.0.0.1/', actions: [{ type: 'scroll', direction: 'left' }] }, 'VALIDATION_ERROR', /actions\.0/],
      ['changeTrackingOptions without the format', { url: 'http://127.0.0.1/', changeTrackingOptions: { tag: 'daily' } }, 'VALIDATION_ERROR', /changeTrackingOptions needs the changeTracking format/],
      ['changeTrackingOptions.tag empty', { url: 'http://127.0.0.1/', formats: ['changeTracking'], changeTrackingOptions: { tag: '' } }, 'VALIDATION_ERROR', /changeTrackingOptions\.tag/],
      ['changeTrackingOptions unknown field', { url: 'http://127.0.0.1/', formats: ['changeTracking'], changeTrackingOptions: { modes: ['json'] } }, 'VALIDATION_ERROR', /changeTrackingOptions\.modes is not a known field/],
      ['body is an array', [], 'VALIDATION_ERROR', /must be a JSON object/],
    ];
    for (const [name, body, code, detail] of invalid) {
      test(name, async () => assertProblem(await post(body), 400, code, detail));
    }

    test('malformed JSON, empty body, wrong content type, oversized body', async () => {
      assertProblem(await post('{"url": '), 400, 'VALIDATION_ERROR', /not valid JSON/);
      assertProblem(await app.inject({ method: 'POST', url: '/api/v1/scrape', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' } }), 400, 'VALIDATION_ERROR');
      assertProblem(await post('url=x', KEY, { 'content-type': 'text/plain' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      assertProblem(await post({ url: 'http://127.0.0.1/', headers: { 'x-big': 'y'.repeat(2 * 1024 * 1024) } }), 413, 'PAYLOAD_TOO_LARGE');
    });

    test('SSRF: blocked addresses are URL_NOT_ALLOWED at submission', async () => {
      for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://[::1]/', 'http://[::ffff:10.0.0.1]/', 'http://100.64.0.1/', 'http://224.0.0.1/', 'http://0.0.0.0/', 'http://[fd00::1]/', 'http://192.168.1.1/']) {
        assertProblem(await post({ url }), 400, 'URL_NOT_ALLOWED');
      }
    });

    test('boundary values are accepted', async () => {
      for (const body of [
        { viewport: { width: 100, height: 100 } }, { viewport: { width: 3840, height: 2160 } },
        { timeout: 1000 }, { timeout: 300000 }, { screenshotOptions: { quality: 1 } }, { screenshotOptions: { quality: 100 } },
        { waitFor: 0 }, { waitFor: '#ready' }, { formats: ['markdown', 'html', 'rawHtml', 'links', 'screenshot'] },
        { actions: [{ type: 'wait', milliseconds: 10 }, { type: 'click', selector: 'a' }, { type: 'type', selector: 'input', text: 'x' }, { type: 'press', key: 'Enter' }, { type: 'scroll', direction: 'up', amount: 100 }, { type: 'screenshot' }] },
        { device: 'tablet', mobile: true, darkMode: true, headers: { 'X-Test': 'a' }, includeTags: ['main'], excludeTags: ['nav'], onlyMainContent: false },
      ]) {
        const res = await post({ url: 'http://127.0.0.1:9/', ...body });
        assert.equal(res.statusCode, 202, `${JSON.stringify(body)}: ${res.body}`);
      }
    });

    test('changeTracking: a format of its own, never joined to a running identical scrape, documented in OpenAPI', async () => {
      const untracked = [await post({ url: 'http://127.0.0.1:9/same' }), await post({ url: 'http://127.0.0.1:9/same' })];
      const tracked = [await post({ url: 'http://127.0.0.1:9/tracked', formats: ['changeTracking'] }), await post({ url: 'http://127.0.0.1:9/tracked', formats: ['changeTracking'] })];
      const firstEvent = async (res: { json(): { id: string } }) => (await get(`/api/v1/scrape/${res.json().id}/events`)).json().events[0].event;
      assert.deepEqual(await Promise.all(untracked.map(firstEvent)), ['page_requested', 'page_shared']);
      assert.deepEqual(await Promise.all(tracked.map(firstEvent)), ['page_requested', 'page_requested'], 'a tracked scrape asks what the page is now');
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const text = JSON.stringify(doc);
      assert.match(text, /"enum":\["markdown","html","rawHtml","links","screenshot","extract","changeTracking"\]/);
      for (const field of ['changeStatus', 'previousScrapeAt', 'previousJobId', 'diffUnavailable']) assert.ok(text.includes(`"${field}"`), field);
    });

    test('unknown routes are 404 problems', async () => {
      assertProblem(await get('/api/v1/nothing-here'), 404, 'NOT_FOUND');
      assertProblem(await get('/api/v2/scrape'), 404, 'NOT_FOUND');
    });
  });

  describe('logging', () => {
    test('every log line of a request carries its requestId; the API key never appears', async () => {
      const lines: string[] = [];
      const { pino } = await import('pino');
      const capture = pino({ level: 'info' }, { write: (line: string) => { lines.push(line); } });
      // A second app on the same log and store, logging to `lines`.
      const { config, nc, log, payloads, waiter } = gateway;
      const logged = await buildApp({ config, logger: capture as never, nc, log, payloads, store, waiter, newId, clock: systemClock });
      const res = await logged.inject({ method: 'POST', url: '/api/v1/scrape', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, payload: '{"url": 5}' });
      await logged.close();
      const id = res.headers['x-request-id'];
      const mine = lines.map((l) => JSON.parse(l)).filter((l) => l.requestId === id);
      assert.ok(mine.length >= 2, `request lines: ${lines.join('')}`);
      assert.ok(mine.some((l) => l.msg === 'request rejected' && l.code === 'VALIDATION_ERROR'));
      assert.ok(lines.every((l) => !l.includes(KEY)), 'the API key is never logged');
    });
  });

  describe('rate limits', () => {
    test('a free key gets 10 requests a minute, then 429 RATE_LIMITED with the spec headers', async () => {
      // Counting is per minute window: do not start in a window's last seconds.
      while (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 500));
      // Requests refused after counting (here by SSRF) still count, and create no job.
      for (let i = 0; i < 10; i++) {
        const res = await post({ url: `http://10.0.0.${i + 1}/` }, FREE);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], '10');
        assert.equal(res.headers['x-ratelimit-remaining'], String(9 - i));
        assert.match(String(res.headers['x-ratelimit-reset']), /^\d{10}$/);
      }
      const limited = await post({ url: 'http://127.0.0.1:9/rl-over' }, FREE);
      assertProblem(limited, 429, 'RATE_LIMITED', /10 requests per minute/);
      assert.equal(limited.headers['x-ratelimit-limit'], '10');
      assert.equal(limited.headers['x-ratelimit-remaining'], '0');
      const reset = Number(limited.headers['x-ratelimit-reset']);
      assert.ok(reset * 1000 > Date.now() && reset * 1000 <= Date.now() + 60_000);
      const retryAfter = Number(limited.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 60);
      // Reading status and history counts too (docs/api.md "Rate limits"); other keys are not affected.
      assertProblem(await get('/api/v1/scrape?limit=1', FREE), 429, 'RATE_LIMITED');
      assert.equal((await post({ url: 'http://127.0.0.1:9/rl-other' }, OTHER)).statusCode, 202);
    });

    test('a free key runs 2 jobs at once; a third is 429 RATE_LIMITED while they run', async () => {
      // No fetcher runs in this test, so accepted jobs stay PENDING (running).
      assert.equal((await post({ url: 'http://127.0.0.1:9/c1' }, FREE2)).statusCode, 202);
      assert.equal((await post({ url: 'http://127.0.0.1:9/c2' }, FREE2)).statusCode, 202);
      const third = await post({ url: 'http://127.0.0.1:9/c3' }, FREE2);
      assertProblem(third, 429, 'RATE_LIMITED', /2 jobs of this key are still running; the free plan allows 2 at once/);
      assert.equal(third.headers['retry-after'], '1');
    });

    test('requests arriving at the same moment never pass the limits: 2 of 6 for a free key', async () => {
      const outcomes = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => post({ url: `http://127.0.0.1:9/together-${n}` }, FREE4)));
      const statuses = outcomes.map((res) => res.statusCode).sort();
      assert.deepEqual(statuses, [202, 202, 429, 429, 429, 429]);
      for (const res of outcomes.filter((r) => r.statusCode === 429)) assertProblem(res, 429, 'RATE_LIMITED', /free plan allows 2 at once/);
    });

    test('the last pages of the monthly quota go to as many requests as there are pages', async () => {
      const month = new Date().toISOString().slice(0, 7);
      await store.keyUsage.put({ id: apiKeyId(BASIC), month, pages: 2998, activeJobs: {}, lastSeq: 0 });
      const outcomes = await Promise.all([1, 2, 3, 4].map((n) => post({ url: `http://127.0.0.1:9/last-pages-${n}` }, BASIC)));
      assert.deepEqual(outcomes.map((res) => res.statusCode).sort(), [202, 202, 429, 429]);
      for (const res of outcomes.filter((r) => r.statusCode === 429)) assertProblem(res, 429, 'QUOTA_EXCEEDED', /3000 pages of the basic plan/);
    });

    test('a crawl plans only the pages left of the quota and holds them while it runs', async () => {
      const keyId = apiKeyId(FREE5);
      const month = new Date().toISOString().slice(0, 7);
      await store.keyUsage.put({ id: keyId, month, pages: 490, activeJobs: {}, lastSeq: 0 });
      const crawl = await app.inject({ method: 'POST', url: '/api/v1/crawl', headers: { authorization: `Bearer ${FREE5}`, 'content-type': 'application/json' }, payload: JSON.stringify({ url: 'http://127.0.0.1:9/', limit: 100 }) });
      assert.equal(crawl.statusCode, 202, crawl.body);
      const { id } = JSON.parse(crawl.body) as { id: string };
      // The POST answered after the projection applied it: its 10 pages are held.
      assert.deepEqual((await store.keyUsage.get(keyId))?.committedPages, { [id]: 10 });
      // The log keeps both: the limit granted, and the request as asked (not default-filled).
      const [requested] = await gateway.log.history('crawl', id);
      const data = requested!.data as { limit: number; maxDepth: number; asked?: unknown };
      assert.equal(data.limit, 10, 'granted');
      assert.equal(data.maxDepth, 3, 'resolved with the default');
      assert.deepEqual(data.asked, { url: 'http://127.0.0.1:9/', limit: 100 }, 'as asked, without the defaults');
      const next = await post({ url: 'http://127.0.0.1:9/after-crawl' }, FREE5);
      assertProblem(next, 429, 'QUOTA_EXCEEDED', /490 used, 10 more held by running jobs/);
    });

    test('past the monthly quota new jobs are 429 QUOTA_EXCEEDED until the month renews', async () => {
      const keyId = apiKeyId(FREE3);
      const month = new Date().toISOString().slice(0, 7);
      await store.keyUsage.put({ id: keyId, month, pages: 499, activeJobs: {}, lastSeq: 0 });
      const last = await post({ url: 'http://127.0.0.1:9/q1' }, FREE3);
      assert.equal(last.statusCode, 202);
      // The accepted job is counted by the projector (page 500 of 500).
      const deadline = Date.now() + 5000;
      while ((await store.keyUsage.get(keyId))?.pages !== 500 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const over = await post({ url: 'http://127.0.0.1:9/q2' }, FREE3);
      assertProblem(over, 429, 'QUOTA_EXCEEDED', /monthly quota of 500 pages of the free plan is used up/);
      const retryAfter = Number(over.headers['retry-after']);
      assert.ok(retryAfter > 0 && retryAfter <= 31 * 86_400);
    });
  });
});
