// Signing and one delivery attempt against a local receiver that verifies the signature
// with the standardwebhooks library, as a user's endpoint would.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { Webhook } from 'standardwebhooks';
import { UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { deriveWebhookSecret, signWebhook } from '../../../shared/src/domain/webhooks.js';
import { deliverWebhook } from '../../../services/webhook-dispatcher/src/delivery.js';
import { decideAttempt } from '../../../services/webhook-dispatcher/src/schedule.js';
import { startSite, type TestSite } from '../../support/site.js';

const SERVER_SECRET = 'test-server-secret-0123456789abcdef';
const LOCAL = parseCidrList('127.0.0.0/8');
const BODY = JSON.stringify({ event: 'crawl.completed', data: { id: 'c1', status: 'COMPLETED', startUrl: 'https://x.test/', totalUrls: 1, completedUrls: 1, failedUrls: 0 }, timestamp: '2025-01-02T03:04:05.678Z' });

interface Received { headers: http.IncomingHttpHeaders; body: string }

function receiver(received: Received[], status = 200) {
  return (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(status).end('ok');
    });
  };
}

describe('webhook signing and delivery', () => {
  let site: TestSite;
  const received: Received[] = [];
  before(async () => {
    site = await startSite({
      '/ok': receiver(received),
      '/fail': receiver([], 500),
      '/redirect': { body: '', status: 302, headers: { location: '/ok' } },
      '/slow': { body: 'late', delayMs: 2000 },
    });
  });
  after(() => site.close());

  test('per-key secrets are whsec_ secrets, stable and distinct per key', () => {
    const a = deriveWebhookSecret(SERVER_SECRET, 'key-a');
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(deriveWebhookSecret(SERVER_SECRET, 'key-a'), a);
    assert.notEqual(deriveWebhookSecret(SERVER_SECRET, 'key-b'), a);
    assert.notEqual(deriveWebhookSecret(`${SERVER_SECRET}x`, 'key-a'), a);
  });

  test('the signature is v1,base64(HMAC-SHA256 of "id.timestamp.body")', async () => {
    const secret = deriveWebhookSecret(SERVER_SECRET, 'key-a');
    const at = new Date('2025-01-02T03:04:05.678Z');
    const headers = signWebhook(secret, 'msg_c1', at, BODY);
    const { createHmac } = await import('node:crypto');
    const expected = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`msg_c1.${Math.floor(at.getTime() / 1000)}.${BODY}`).digest('base64');
    assert.deepEqual(headers, { 'webhook-id': 'msg_c1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': `v1,${expected}` });
  });

  test('a delivery is a signed JSON POST the receiver verifies with standardwebhooks', async () => {
    const secret = deriveWebhookSecret(SERVER_SECRET, 'key-a');
    const headers = signWebhook(secret, 'msg_c1', new Date(), BODY);
    const outcome = await deliverWebhook({ url: site.url('/ok'), body: BODY, headers, allow: LOCAL, timeoutMs: 5000 });
    assert.equal(outcome.ok, true);
    assert.equal(outcome.status, 200);
    const got = received.at(-1)!;
    assert.equal(got.body, BODY);
    assert.equal(got.headers['content-type'], 'application/json');
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    assert.deepEqual(verified, JSON.parse(BODY));
    assert.throws(() => new Webhook(deriveWebhookSecret(SERVER_SECRET, 'key-b')).verify(got.body, got.headers as Record<string, string>));
  });

  test('a non-2xx answer, a redirect and a timeout are failed attempts', async () => {
    const headers = signWebhook(deriveWebhookSecret(SERVER_SECRET, 'k'), 'msg_x', new Date(), BODY);
    const fail = await deliverWebhook({ url: site.url('/fail'), body: BODY, headers, allow: LOCAL, timeoutMs: 5000 });
    assert.deepEqual([fail.ok, fail.status], [false, 500]);
    const redirect = await deliverWebhook({ url: site.url('/redirect'), body: BODY, headers, allow: LOCAL, timeoutMs: 5000 });
    assert.deepEqual([redirect.ok, redirect.status], [false, 302]);
    const slow = await deliverWebhook({ url: site.url('/slow'), body: BODY, headers, allow: LOCAL, timeoutMs: 300 });
    assert.equal(slow.ok, false);
    assert.equal(decideAttempt(slow, 1, [1000]).kind, 'retry');
  });

  test('SSRF protection applies at delivery: a loopback receiver is refused without an allow-list', async () => {
    const hits = site.hits.get('/ok') ?? 0;
    const headers = signWebhook(deriveWebhookSecret(SERVER_SECRET, 'k'), 'msg_x', new Date(), BODY);
    const outcome = await deliverWebhook({ url: site.url('/ok'), body: BODY, headers, allow: [], timeoutMs: 5000 });
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.error instanceof UrlNotAllowedError);
    assert.equal(site.hits.get('/ok') ?? 0, hits);
    assert.equal(decideAttempt(outcome, 1, [1000]).kind, 'abandon');
  });
});
