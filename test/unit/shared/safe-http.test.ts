import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { NetworkError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { BodyTooLargeError, safeStream, type SafeRequestOptions } from '../../../shared/src/net/safe-http.js';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { startSite, type TestSite } from '../../support/site.js';

const loopback = parseCidrList('127.0.0.0/8');

/** safeStream, buffered: a body over maxBytes is a BodyTooLargeError (as the HTTP engine treats it). */
async function safeRequest(url: string, opts: SafeRequestOptions): Promise<{ status: number; url: string; body: Buffer }> {
  const res = await safeStream(url, opts);
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk as Buffer);
  if (res.truncated()) throw new BodyTooLargeError(opts.maxBytes);
  return { status: res.status, url: res.url, body: Buffer.concat(chunks) };
}

describe('safe-http', () => {
  let site: TestSite;
  before(async () => {
    site = await startSite({
      '/hello': 'hello',
      '/redirect': { body: '', status: 302, headers: { location: '/hello' } },
      '/redirect-meta': { body: '', status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
      '/gzip': { body: zlib.gzipSync(Buffer.from('x'.repeat(10_000))), headers: { 'content-encoding': 'gzip' } },
      '/big': 'y'.repeat(50_000),
    });
  });
  after(() => site.close());

  test('fetches an allowed loopback page and follows redirects', async () => {
    const res = await safeRequest(site.url('/redirect'), { allow: loopback, timeoutMs: 5000, maxBytes: 1000 });
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'hello');
    assert.equal(res.url, site.url('/hello'));
  });

  test('refuses loopback without an allow range, by resolved address', async () => {
    await assert.rejects(safeRequest(site.url('/hello'), { allow: [], timeoutMs: 5000, maxBytes: 1000 }), UrlNotAllowedError);
    const viaName = `http://localhost:${site.port}/hello`;
    await assert.rejects(safeRequest(viaName, { allow: [], timeoutMs: 5000, maxBytes: 1000 }), UrlNotAllowedError);
  });

  test('re-checks every redirect hop', async () => {
    await assert.rejects(safeRequest(site.url('/redirect-meta'), { allow: loopback, timeoutMs: 5000, maxBytes: 1000 }), UrlNotAllowedError);
  });

  test('decodes gzip and caps decoded bytes', async () => {
    const ok = await safeRequest(site.url('/gzip'), { allow: loopback, timeoutMs: 5000, maxBytes: 20_000 });
    assert.equal(ok.body.length, 10_000);
    await assert.rejects(safeRequest(site.url('/gzip'), { allow: loopback, timeoutMs: 5000, maxBytes: 5000 }), BodyTooLargeError);
    const streamed = await safeStream(site.url('/big'), { allow: loopback, timeoutMs: 5000, maxBytes: 1000 });
    let n = 0;
    for await (const chunk of streamed.body) n += (chunk as Buffer).length;
    assert.equal(n, 1000);
    assert.equal(streamed.truncated(), true);
  });

  test('maps refused connections and unknown hosts to NETWORK_ERROR', async () => {
    await assert.rejects(safeRequest('http://127.0.0.1:1/', { allow: loopback, timeoutMs: 5000, maxBytes: 1000 }), NetworkError);
    await assert.rejects(safeRequest('http://does-not-exist.invalid/', { allow: loopback, timeoutMs: 5000, maxBytes: 1000 }), NetworkError);
  });
});
