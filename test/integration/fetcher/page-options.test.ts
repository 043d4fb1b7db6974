// PageCapturer against pages served on 127.0.0.1: every page option's happy path, the
// HTTP statuses, non-HTML documents, resource blocking, and the page error codes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidUrlError, NetworkError, PageTimeoutError, SelectorNotFoundError, ValidationError } from '../../../shared/src/domain/errors.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { closedPort, ctx, opts, startCapturer } from './helpers.js';

const PROBE = `<script>
  const b = document.body.dataset;
  b.ua = navigator.userAgent; b.w = innerWidth; b.h = innerHeight; b.dpr = devicePixelRatio;
  b.touch = String(navigator.maxTouchPoints > 0);
  b.scheme = matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
</script>`;

const FORM = `<!doctype html><html><body style="height:4000px">
  <button id="go" onclick="document.getElementById('out').textContent='clicked'">go</button>
  <input id="q"><p id="typed"></p><p id="out"></p><p id="keys"></p><p id="pos">0</p>
  <script>
    q.addEventListener('input', () => typed.textContent = q.value);
    addEventListener('keydown', (e) => keys.textContent += e.key);
    addEventListener('scroll', () => pos.textContent = String(scrollY));
  </script></body></html>`;

let site: TestSite;
let capturer: PageCapturer;

before(async () => {
  site = await startSite({
    '/': '<!doctype html><html><head><title>Hello</title></head><body><h1>Hello</h1></body></html>',
    '/probe': `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><style>@media (prefers-color-scheme: dark) { body { background: #000 } }</style></head><body>${PROBE}</body></html>`,
    '/late': `<!doctype html><html><body><script>setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.textContent = 'arrived'; document.body.append(d); }, 300)</script></body></html>`,
    '/form': FORM,
    '/missing': { body: '<!doctype html><html><body><h1>Gone</h1></body></html>', status: 404 },
    '/broken': { body: '<!doctype html><html><body><h1>Oops</h1></body></html>', status: 500 },
    '/redirect': { body: '', status: 302, headers: { location: '/' } },
    '/slow': { body: '<!doctype html><html><body>slow</body></html>', delayMs: 4_000 },
    '/late-headers': { body: '<!doctype html><html><body><p>answered late</p></body></html>', delayMs: 1_500 },
    '/text.txt': { body: 'plain words', contentType: 'text/plain; charset=utf-8' },
    '/doc.pdf': { body: '%PDF-1.4\n%%EOF\n', contentType: 'application/pdf' },
    '/assets': `<!doctype html><html><head><style>@font-face { font-family: X; src: url(/font.woff2) } body { font-family: X }</style></head>
      <body>text<img src="/img.png" width="10" height="10"><video src="/clip.mp4" preload="auto" autoplay muted></video></body></html>`,
    '/img.png': { body: Buffer.from('89504e470d0a1a0a', 'hex'), contentType: 'image/png' },
    '/font.woff2': { body: 'x', contentType: 'font/woff2' },
    '/clip.mp4': { body: 'x', contentType: 'video/mp4' },
  });
  capturer = await startCapturer();
});

after(async () => {
  await capturer.stop();
  await site.close();
});

const body = (html: string, name: string): string | undefined => new RegExp(`data-${name}="([^"]*)"`).exec(html)?.[1];

describe('loading', () => {
  test('returns the rendered DOM with doctype, final URL, status, content type and integer timings', async () => {
    const result = await capturer.capture(site.url('/'), opts(), ctx());
    assert.match(result.html, /^<!DOCTYPE html><html><head><title>Hello<\/title>/);
    assert.equal(result.finalUrl, site.url('/'));
    assert.equal(result.statusCode, 200);
    assert.equal(result.contentType, 'text/html; charset=utf-8');
    assert.deepEqual(result.screenshots, []);
    for (const value of Object.values(result.timings)) assert.ok(Number.isInteger(value) && value >= 0);
  });

  test('HTTP error statuses are results, not failures', async () => {
    const missing = await capturer.capture(site.url('/missing'), opts(), ctx());
    assert.equal(missing.statusCode, 404);
    assert.match(missing.html, /Gone/);
    const broken = await capturer.capture(site.url('/broken'), opts(), ctx());
    assert.equal(broken.statusCode, 500);
  });

  test('follows redirects and reports the final URL', async () => {
    const result = await capturer.capture(site.url('/redirect'), opts(), ctx());
    assert.equal(result.finalUrl, site.url('/'));
    assert.equal(result.statusCode, 200);
  });

  test('text/plain is captured as Chromium shows it', async () => {
    const result = await capturer.capture(site.url('/text.txt'), opts(), ctx());
    assert.equal(result.contentType, 'text/plain; charset=utf-8');
    assert.match(result.html, /<pre[^>]*>plain words<\/pre>/);
  });

  test('a PDF (downloaded, not rendered) gives an empty document with its status and content type', async () => {
    const result = await capturer.capture(site.url('/doc.pdf'), opts(), ctx());
    assert.equal(result.statusCode, 200);
    assert.equal(result.contentType, 'application/pdf');
    assert.equal(result.finalUrl, site.url('/doc.pdf'));
    assert.equal(result.html, '<html><head></head><body></body></html>');
  });

  test('fonts, media and (without a screenshot) images are never requested', async () => {
    await capturer.capture(site.url('/assets'), opts(), ctx());
    assert.equal(site.hits.get('/font.woff2'), undefined);
    assert.equal(site.hits.get('/clip.mp4'), undefined);
    assert.equal(site.hits.get('/img.png'), undefined);
    await capturer.capture(site.url('/assets'), opts({ formats: ['screenshot'] }), ctx());
    assert.equal(site.hits.get('/img.png'), 1, 'images load when a screenshot is asked for');
    assert.equal(site.hits.get('/font.woff2'), undefined);
  });
});

describe('page options', () => {
  test('viewport sets the window size', async () => {
    const result = await capturer.capture(site.url('/probe'), opts({ viewport: { width: 1024, height: 600 } }), ctx());
    assert.equal(body(result.html, 'w'), '1024');
    assert.equal(body(result.html, 'h'), '600');
    assert.equal(body(result.html, 'touch'), 'false');
    assert.doesNotMatch(body(result.html, 'ua') ?? '', /Headless|Mobile/);
  });

  test('mobile gives a mobile viewport, user agent and touch', async () => {
    const result = await capturer.capture(site.url('/probe'), opts({ mobile: true }), ctx());
    assert.match(body(result.html, 'ua') ?? '', /Android.*Mobile Safari/);
    assert.equal(body(result.html, 'w'), '412');
    assert.equal(body(result.html, 'touch'), 'true');
    assert.equal(body(result.html, 'dpr'), '2.625');
  });

  test('device presets; device wins over mobile; a non-default viewport wins per dimension', async () => {
    const tablet = await capturer.capture(site.url('/probe'), opts({ device: 'tablet' }), ctx());
    assert.equal(body(tablet.html, 'w'), '800');
    assert.doesNotMatch(body(tablet.html, 'ua') ?? '', /Mobile/);
    assert.match(body(tablet.html, 'ua') ?? '', /Android/);
    const desktop = await capturer.capture(site.url('/probe'), opts({ device: 'desktop', mobile: true }), ctx());
    assert.equal(body(desktop.html, 'w'), '1280');
    assert.equal(body(desktop.html, 'touch'), 'false');
    const narrow = await capturer.capture(site.url('/probe'), opts({ device: 'mobile', viewport: { width: 360 } }), ctx());
    assert.equal(body(narrow.html, 'w'), '360');
    assert.equal(body(narrow.html, 'h'), '915');
    assert.match(body(narrow.html, 'ua') ?? '', /Mobile/);
  });

  test('darkMode turns on prefers-color-scheme: dark', async () => {
    const dark = await capturer.capture(site.url('/probe'), opts({ darkMode: true }), ctx());
    assert.equal(body(dark.html, 'scheme'), 'dark');
    const light = await capturer.capture(site.url('/probe'), opts(), ctx());
    assert.equal(body(light.html, 'scheme'), 'light');
  });

  test('headers arrive at the server', async () => {
    await capturer.capture(site.url('/?headers'), opts({ headers: { 'X-Trawl-Test': 'yes', 'Accept-Language': 'de-DE' } }), ctx());
    const request = site.requests.find((r) => r.path === '/?headers');
    assert.equal(request?.headers['x-trawl-test'], 'yes');
    assert.equal(request?.headers['accept-language'], 'de-DE');
    assert.equal(request?.headers['proxy-connection'], undefined, 'hop-by-hop proxy headers are not forwarded');
  });

  test('waitFor a number waits that long; waitFor a selector waits for it', async () => {
    const waited = await capturer.capture(site.url('/late'), opts({ waitFor: 600 }), ctx());
    assert.match(waited.html, /arrived/);
    const selected = await capturer.capture(site.url('/late'), opts({ waitFor: '#late' }), ctx());
    assert.match(selected.html, /<div id="late">arrived<\/div>/);
  });

  test('actions run in order: click, type, press, scroll, wait', async () => {
    const result = await capturer.capture(site.url('/form'), opts({
      actions: [
        { type: 'click', selector: '#go' },
        { type: 'type', selector: '#q', text: 'trawl' },
        { type: 'press', key: 'Enter' },
        { type: 'scroll', direction: 'down', amount: 500 },
        { type: 'wait', milliseconds: 100 },
        { type: 'scroll', direction: 'up', amount: 200 },
        { type: 'wait', milliseconds: 100 },
      ],
    }), ctx());
    assert.match(result.html, /<p id="out">clicked<\/p>/);
    assert.match(result.html, /<p id="typed">trawl<\/p>/);
    assert.match(result.html, /<p id="keys">Enter<\/p>/);
    assert.match(result.html, /<p id="pos">300<\/p>/);
  });
});

describe('errors', () => {
  test('INVALID_URL for anything but an http(s) URL', async () => {
    await assert.rejects(capturer.capture('file:///etc/passwd', opts(), ctx()), InvalidUrlError);
  });

  test('SELECTOR_NOT_FOUND when waitFor names a selector that never appears', async () => {
    await assert.rejects(capturer.capture(site.url('/'), opts({ waitFor: '#never', timeout: 1500 }), ctx()), (err: unknown) => {
      assert.ok(err instanceof SelectorNotFoundError);
      assert.equal(err.code, 'SELECTOR_NOT_FOUND');
      assert.match(err.message, /waitFor: selector '#never' not found/);
      return true;
    });
  });

  test('SELECTOR_NOT_FOUND naming the failing action by index and type', async () => {
    const options = opts({ timeout: 1500, actions: [{ type: 'click', selector: '#go' }, { type: 'click', selector: '#x' }] });
    await assert.rejects(capturer.capture(site.url('/form'), options, ctx()), (err: unknown) => {
      assert.ok(err instanceof SelectorNotFoundError);
      assert.match(err.message, /^action 1 \(click\): selector '#x' not found/);
      return true;
    });
  });

  test('an unknown key in a press action is a validation error naming the action', async () => {
    await assert.rejects(capturer.capture(site.url('/form'), opts({ actions: [{ type: 'press', key: 'NoSuchKey' }] }), ctx()), (err: unknown) => {
      assert.ok(err instanceof ValidationError);
      assert.match(err.message, /^action 0 \(press\): unknown key "NoSuchKey"/);
      return true;
    });
  });

  test('PAGE_TIMEOUT for a slow page, and for waits longer than the timeout', async () => {
    await assert.rejects(capturer.capture(site.url('/slow'), opts({ timeout: 1000 }), ctx()), (err: unknown) => {
      assert.ok(err instanceof PageTimeoutError);
      assert.equal(err.code, 'PAGE_TIMEOUT');
      return true;
    });
    await assert.rejects(capturer.capture(site.url('/'), opts({ timeout: 1000, actions: [{ type: 'wait', milliseconds: 5000 }] }), ctx()), (err: unknown) => {
      assert.ok(err instanceof PageTimeoutError);
      assert.match(err.message, /^action 0 \(wait\)/);
      return true;
    });
  });

  test('a server slower to answer than the proxy\'s connect bound is waited for up to the page timeout', async () => {
    // The proxy bounds connecting (here 500 ms), not the wait for the first byte: a page that
    // answers after 1.5 s with a 10 s page timeout completes.
    const patient = await startCapturer({ proxyConnectTimeoutMs: 500, poolSize: 1 });
    try {
      const page = await patient.capture(site.url('/late-headers'), opts({ timeout: 10_000 }), ctx());
      assert.match(page.html, /answered late/);
    } finally {
      await patient.stop();
    }
  });

  test('NETWORK_ERROR (not retryable) for a refused port', async () => {
    const port = await closedPort();
    await assert.rejects(capturer.capture(`http://127.0.0.1:${port}/`, opts(), ctx()), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.equal(err.retryable, false);
      assert.match(err.message, /refused/);
      return true;
    });
  });

  test('NETWORK_ERROR (not retryable) for a host that does not resolve', async () => {
    await assert.rejects(capturer.capture('http://does-not-exist.invalid/', opts(), ctx()), (err: unknown) => {
      assert.ok(err instanceof NetworkError);
      assert.equal(err.retryable, false);
      assert.match(err.message, /could not resolve host "does-not-exist.invalid"/);
      return true;
    });
  });
});
