// Every answer of the API is a problem document, whoever raises it: Fastify's router (bad
// percent-encoding, long path segments), Node's HTTP parser (headers over 16 KiB), the
// not-found handler, and auth before routing under /api/v1. Real HTTP on a real socket,
// since inject() skips the parser where some of these are raised.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startGateway, type GatewayHarness } from '../support/gateway.js';

const KEY = 'problems_key_0123456789abcdef';
let gw: GatewayHarness;
let base: string;

before(async () => {
  gw = await startGateway({ keys: [[KEY, 'team']], env: { RATE_LIMITS: 'off' } });
  base = await gw.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => gw.close());

async function problem(res: Response, status: number, code: string): Promise<void> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const body = JSON.parse(text);
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.ok(body.type && body.title && body.detail, text);
  assert.equal(body.requestId, res.headers.get('x-request-id'));
}

/** Raw HTTP, for requests fetch() would refuse to send. */
async function raw(request: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(base);
  const text = await new Promise<string>((resolve, reject) => {
    const sock = net.connect(Number(port), '127.0.0.1', () => sock.end(request));
    let out = '';
    sock.on('data', (d) => { out += d.toString(); });
    sock.on('close', () => resolve(out));
    sock.on('error', reject);
  });
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body };
}

const auth = { authorization: `Bearer ${KEY}` };

describe('problem documents from every layer', () => {
  test('a path with broken percent-encoding is a 400 problem, not Fastify\'s FST_ERR_BAD_URL', async () => {
    await problem(await fetch(`${base}/api/v1/scrape/%`, { headers: auth }), 400, 'VALIDATION_ERROR');
    await problem(await fetch(`${base}/api/v1/scrape/%E0%A4%A/events`, { headers: auth }), 400, 'VALIDATION_ERROR');
  });

  test('an 8 KB id is a 404 problem, not a 414 in Fastify\'s shape', async () => {
    await problem(await fetch(`${base}/api/v1/scrape/${'a'.repeat(8192)}`, { headers: auth }), 404, 'NOT_FOUND');
    await problem(await fetch(`${base}/api/v1/crawl/${'a'.repeat(8192)}/events`, { headers: auth }), 404, 'NOT_FOUND');
  });

  test('headers or a path over 16 KiB are a 431 problem', async () => {
    const long = await raw(`GET /api/v1/scrape/${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    assert.equal(long.status, 431);
    assert.match(long.headers, /content-type: application\/problem\+json/i);
    const body = JSON.parse(long.body);
    assert.equal(body.code, 'HEADERS_TOO_LARGE');
    assert.match(long.headers, new RegExp(`x-request-id: ${body.requestId}`, 'i'));
    const header = await raw(`GET /api/v1/scrape HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17_000)}\r\n\r\n`);
    assert.equal(header.status, 431);
    assert.equal(JSON.parse(header.body).status, 431);
  });

  test('a request that is not HTTP is a 400 problem', async () => {
    const res = await raw('NONSENSE\r\n\r\n');
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).code, 'VALIDATION_ERROR');
  });

  test('under /api/v1 an unauthenticated request is 401 before routing says 404', async () => {
    await problem(await fetch(`${base}/api/v1/no-such-route`), 401, 'UNAUTHORIZED');
    await problem(await fetch(`${base}/api/v1/scrape/x/y/z`, { method: 'PUT' }), 401, 'UNAUTHORIZED');
    await problem(await fetch(`${base}/api/v1/no-such-route`, { headers: { authorization: 'Bearer wrong' } }), 401, 'UNAUTHORIZED');
    await problem(await fetch(`${base}/api/v1/no-such-route`, { headers: auth }), 404, 'NOT_FOUND');
    await problem(await fetch(`${base}/no-such-page`), 404, 'NOT_FOUND');
  });

  test('ids that are not job ids are 404 at once on every route that takes one', async () => {
    for (const id of ['*', '%2A', '%3E', '%20', '..', 'a.b', '%0d%0aX:%201', 'AAAAAAAAAAAAAAAAAAAAA*']) {
      for (const path of [`/api/v1/scrape/${id}`, `/api/v1/scrape/${id}/events`, `/api/v1/crawl/${id}`, `/api/v1/batch/scrape/${id}/events`, `/api/v1/map/${id}/events`]) {
        await problem(await fetch(`${base}${path}`, { headers: auth }), 404, 'NOT_FOUND');
      }
    }
  });
});
