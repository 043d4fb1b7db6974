// SSRF inside the browser: every request Chromium makes goes through the capture's
// filtering proxy and is checked on resolved addresses. "public.test" stands for a public
// site (resolves to 127.0.0.1, which the tests allow); "internal.test" for an internal
// host (resolves to 127.0.0.2, which stays blocked). A second site really listens on
// 127.0.0.2, so a request that slipped through would be counted there.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { parseCidrList, systemLookup, type Lookup } from '../../../shared/src/net/url-safety.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

const HOSTS: Record<string, string[]> = {
  'public.test': ['127.0.0.1'],
  'internal.test': ['127.0.0.2'],
  'mixed.test': ['127.0.0.1', '127.0.0.2'],
};
const lookup: Lookup = async (host) => HOSTS[host] ?? systemLookup(host);

let site: TestSite;
let internal: TestSite;
let capturer: PageCapturer;
let strict: PageCapturer;

const pub = (path: string): string => `http://public.test:${site.port}${path}`;
const inner = (path: string): string => `http://internal.test:${internal.port}${path}`;

before(async () => {
  internal = await startSite({ '/secret': 'metadata credentials', '/pixel.png': 'x', '/data.json': '{}', '/frame': 'frame' }, '127.0.0.2');
  site = await startSite({});
  site.route('/', '<!doctype html><html><body><h1>Public</h1></body></html>');
  site.route('/to-internal', { body: '', status: 302, headers: { location: inner('/secret') } });
  site.route('/to-literal', { body: '', status: 301, headers: { location: `http://127.0.0.2:${internal.port}/secret` } });
  site.route('/subresources', `<!doctype html><html><body><h1>Still here</h1>
    <img src="${inner('/pixel.png')}">
    <script src="http://127.0.0.2:${internal.port}/data.json"></script>
    <iframe src="${inner('/frame')}"></iframe>
    <p id="fetch">pending</p><p id="ws">pending</p>
    <script>
      fetch('${inner('/data.json')}').then(() => document.getElementById('fetch').textContent = 'loaded', () => document.getElementById('fetch').textContent = 'blocked');
      const ws = new WebSocket('ws://internal.test:${internal.port}/socket');
      ws.onerror = () => document.getElementById('ws').textContent = 'blocked';
      ws.onopen = () => document.getElementById('ws').textContent = 'open';
    </script></body></html>`);
  capturer = await startCapturer({ lookup });
  strict = await startCapturer({ allowCidrs: [], poolSize: 1 });
});

after(async () => {
  await Promise.all([capturer.stop(), strict.stop()]);
  await Promise.all([site.close(), internal.close()]);
});

function notAllowed(pattern: RegExp) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof UrlNotAllowedError, `expected UrlNotAllowedError, got ${String(err)}`);
    assert.equal(err.code, 'URL_NOT_ALLOWED');
    assert.match(err.message, pattern);
    return true;
  };
}

describe('SSRF in the browser', () => {
  test('an allowed public-looking host loads (through the proxy, by name)', async () => {
    const result = await capturer.capture(pub('/'), opts(), ctx());
    assert.equal(result.statusCode, 200);
    assert.match(result.html, /Public/);
  });

  test('127.0.0.1 is URL_NOT_ALLOWED without SSRF_ALLOW_CIDRS (loopback goes through the proxy too)', async () => {
    const before = site.hits.get('/') ?? 0;
    await assert.rejects(strict.capture(site.url('/'), opts(), ctx()), notAllowed(/127\.0\.0\.1 .*loopback/));
    assert.equal(site.hits.get('/') ?? 0, before, 'the blocked page was never requested');
  });

  test('a redirect from a public host to an internal name is blocked', async () => {
    await assert.rejects(capturer.capture(pub('/to-internal'), opts(), ctx()), notAllowed(/internal\.test resolves to 127\.0\.0\.2/));
    assert.equal(internal.hits.size, 0);
  });

  test('a redirect to an internal IP literal is blocked', async () => {
    await assert.rejects(capturer.capture(pub('/to-literal'), opts(), ctx()), notAllowed(/127\.0\.0\.2/));
    assert.equal(internal.hits.size, 0);
  });

  test('a host with one allowed and one blocked address is blocked', async () => {
    await assert.rejects(capturer.capture(`http://mixed.test:${site.port}/`, opts(), ctx()), notAllowed(/mixed\.test resolves to 127\.0\.0\.2/));
  });

  test('https (CONNECT) to an internal host is blocked', async () => {
    await assert.rejects(capturer.capture(`https://internal.test:${internal.port}/`, opts(), ctx()), notAllowed(/internal\.test/));
  });

  test('blocked subresources (img, script, iframe, fetch, websocket) are dropped and the page still loads', async () => {
    const result = await capturer.capture(pub('/subresources'), opts({ formats: ['screenshot'], waitFor: 300 }), ctx());
    assert.equal(result.statusCode, 200);
    assert.match(result.html, /Still here/);
    assert.match(result.html, /<p id="fetch">blocked<\/p>/);
    assert.match(result.html, /<p id="ws">blocked<\/p>/);
    assert.equal(internal.hits.size, 0, `internal site was reached: ${[...internal.hits.keys()].join(', ')}`);
  });

  test('control: with 127.0.0.0/8 allowed the same page does reach the internal site', async () => {
    const open = await startCapturer({ lookup, allowCidrs: parseCidrList('127.0.0.0/8'), poolSize: 1 });
    try {
      await open.capture(pub('/subresources'), opts({ formats: ['screenshot'], waitFor: 300 }), ctx());
      assert.ok((internal.hits.get('/frame') ?? 0) >= 1);
      assert.ok((internal.hits.get('/pixel.png') ?? 0) >= 1);
      assert.ok((internal.hits.get('/socket') ?? 0) >= 1, 'the websocket went through the proxy to the internal site');
    } finally {
      await open.stop();
      internal.hits.clear();
    }
  });
});
