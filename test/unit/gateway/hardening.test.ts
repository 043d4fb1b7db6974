// The pure parts of issue 20's gateway hardening: what a job's events show their owner,
// which errors mean "NATS or the store cannot be reached" (503), and the console's exact
// Origin check. The behaviour end to end is in test/integration/gateway/{cache-hit-tenancy,
// nats-down,console-forms}.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { publicEventData } from '../../../services/gateway/src/job-event-view.js';
import { isUnreachable } from '../../../services/gateway/src/plugins/problems.js';
import { checkOrigin } from '../../../services/gateway/src/console/security.js';

const ref = (name: string) => ({ bucket: 'trawl-payloads', name, size: 12, contentType: 'text/html' });

describe('publicEventData', () => {
  test('a cache hit loses the source job, the cache key and payload names; options stay as given', () => {
    const options = { formats: ['json'], extract: { schema: { cacheKey: { type: 'string' } } } };
    const data = publicEventData({ data: {
      url: 'https://example.com/', options, apiKeyId: 'k', cacheKey: 'c'.repeat(64), sourceJobId: 'SOURCE', sourcePart: 'p',
      sourceCompletedAt: '2026-01-01T00:00:00.000Z', result: ref('scrape/SOURCE/p/result.json'),
    } }) as Record<string, unknown>;
    assert.deepEqual(Object.keys(data).sort(), ['apiKeyId', 'options', 'result', 'sourceCompletedAt', 'url']);
    assert.deepEqual(data.result, { size: 12, contentType: 'text/html' });
    assert.equal(data.options, options, 'the caller\'s own options are not rewritten');
    assert.ok(!JSON.stringify(data).includes('SOURCE'));
  });

  test('a copied page_fetched loses the names of the shared document and screenshots', () => {
    const data = publicEventData({ data: {
      finalUrl: 'https://example.com/', statusCode: 200, rawHtml: ref('scrape/SOURCE/p/raw.html'),
      document: { ref: ref('scrape/SOURCE/p/document'), type: 'pdf' },
      screenshots: [{ ref: ref('scrape/SOURCE/p/shot-0.png'), width: 1, height: 1, format: 'png', role: 'final' }],
    } });
    assert.ok(!JSON.stringify(data).includes('SOURCE'), JSON.stringify(data));
    assert.deepEqual((data as { document: unknown }).document, { ref: { size: 12, contentType: 'text/html' }, type: 'pdf' });
  });

  test('given a reference that names its chunk, when shown, then only its size and type remain', () => {
    const named = { ...ref('scrape/SOURCE/p/result.json'), chunk: { nuid: 'NUIDSOURCE', digest: 'abc=' } };
    const data = publicEventData({ data: { result: named } }) as Record<string, unknown>;
    assert.deepEqual(data.result, { size: 12, contentType: 'text/html' });
  });

  test('events without such fields pass unchanged', () => {
    const data = { attempt: 1, startedAt: 'x', worker: 'w1' };
    assert.deepEqual(publicEventData({ data }), data);
  });
});

describe('isUnreachable', () => {
  const nats = (code: string) => Object.assign(new Error(code), { name: 'NatsError', code });
  test('NATS connection and timeout errors, also wrapped, are unreachable', () => {
    for (const code of ['TIMEOUT', 'CONNECTION_CLOSED', 'DISCONNECT', '503', 'CONNECTION_REFUSED']) assert.equal(isUnreachable(nats(code)), true, code);
    assert.equal(isUnreachable(new Error('could not record', { cause: nats('TIMEOUT') })), true);
  });
  test('MongoDB network errors and a busy SQLite file are unreachable', () => {
    assert.equal(isUnreachable(Object.assign(new Error('x'), { name: 'MongoServerSelectionError' })), true);
    assert.equal(isUnreachable(Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR' })), true);
  });
  test('anything else is not: a bug stays a 500', () => {
    for (const err of [new Error('boom'), nats('BAD_JSON'), nats('409'), new TypeError('x'), null, undefined, 'TIMEOUT']) assert.equal(isUnreachable(err), false, String(err));
  });
});

describe('checkOrigin', () => {
  const request = (headers: Record<string, string>, protocol = 'http', host = 'console.test:8080') => ({ headers, protocol, host }) as unknown as FastifyRequest;
  const refused = (headers: Record<string, string>, base?: string) => {
    try { checkOrigin(request(headers), base); return false; } catch { return true; }
  };
  test('exactly the console\'s origin passes, as reached or as PUBLIC_BASE_URL names it', () => {
    assert.equal(refused({ origin: 'http://console.test:8080' }), false);
    assert.equal(refused({ origin: 'https://trawl.example' }, 'https://trawl.example'), false);
    assert.equal(refused({}), false, 'no Origin: the token decides');
    assert.equal(refused({ origin: 'http://console.test:8080', 'sec-fetch-site': 'same-origin' }), false);
  });
  test('another scheme, port, host, a path, a slash, user info, null, or a cross-site fetch is refused', () => {
    for (const origin of ['https://console.test:8080', 'http://console.test:8081', 'http://console.test', 'http://evil.test:8080', 'http://console.test:8080/x',
      'http://console.test:8080/', 'http://a@console.test:8080', 'null', 'ftp://console.test:8080', 'console.test:8080', 'http://console.test:8080?x']) {
      assert.equal(refused({ origin }), true, origin);
    }
    assert.equal(refused({ 'sec-fetch-site': 'cross-site' }), true);
    assert.equal(refused({ 'sec-fetch-site': 'same-site', origin: 'http://console.test:8080' }), true);
  });
});
