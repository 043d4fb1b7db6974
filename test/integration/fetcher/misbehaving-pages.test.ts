// Pages whose own scripts misbehave, with scripts running (the default): a navigation away
// that fails, subresources whose connections break or whose hosts do not resolve, and
// scripts that take the content away (after load, or while the page is parsed). The page
// is the document the site sent; only a failure of the requested document itself fails
// the capture.
// "nowhere.test" does not resolve (ENOTFOUND); "internal.test" resolves to 127.0.0.2,
// which SSRF protection blocks (a site really listens there and must see no request).
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { NetworkError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import type { Lookup } from '../../../shared/src/net/url-safety.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

const lookup: Lookup = async (host) => {
  if (host === 'internal.test') return ['127.0.0.2'];
  if (host === 'public.test') return ['127.0.0.1'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

/** Enough text to count as content (dom-snapshot.ts CONTENT_MIN_CHARS is 200). */
const ARTICLE = `<article><h1>The article</h1>${Array.from({ length: 6 }, (_, i) => `<p>Paragraph ${i} of the article body, long enough to be the content of this page.</p>`).join('')}</article>`;
const page = (head: string, body = ''): string => `<!doctype html><html><head><title>Page</title>${head}</head><body>${ARTICLE}${body}</body></html>`;
const script = (code: string): string => `<script>${code}</script>`;

const ROUTE_TEMPLATES: Record<string, string> = {
  '/redirect-blocked': page(script(`location.href = 'http://internal.test:INTERNAL_PORT/secret'`)),
  '/redirect-blocked-https': page(script(`location.replace('https://internal.test:INTERNAL_PORT/secret')`)),
  '/subresource-reset': page('', `<script src="http://127.0.0.1:RESET_PORT/app.js"></script><img src="https://127.0.0.1:RESET_PORT/a.png"><link rel="stylesheet" href="http://127.0.0.1:RESET_PORT/s.css">`),
};

let site: TestSite;
let internal: TestSite;
let resetter: net.Server;
let resetPort: number;
let capturer: PageCapturer;

before(async () => {
  internal = await startSite({ '/secret': 'internal' }, '127.0.0.2');
  // Accepts connections and resets them at once (RST), for plain HTTP and tunnels alike.
  resetter = net.createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => resetter.listen(0, '127.0.0.1', resolve));
  resetPort = (resetter.address() as net.AddressInfo).port;
  site = await startSite({
    '/head-redirect-unresolvable': page(script(`location.href = 'https://nowhere.test/landing'`)),
    '/late-redirect-unresolvable': page('', script(`setTimeout(() => { location.href = 'http://nowhere.test/later'; }, 50)`)),
    '/scheme-change': page(script(`if (location.protocol !== 'https:') location = document.URL.replace(/^http:/, 'https:')`)),
    '/external-scheme': page(script(`location.href = 'intent://scan/#Intent;scheme=zxing;end'`)),
    '/redirect-stub': `<!doctype html><html><head>${script(`location.href = 'https://nowhere.test/'`)}</head><body><p>Redirecting…</p></body></html>`,
    '/redirect-ok': page(script(`location.replace('/landing')`)),
    '/landing': '<!doctype html><html><body><h1>Landing</h1><p>The page a script sent us to.</p></body></html>',
    '/subresource-unresolvable': page(`<script src="https://nowhere.test/app.js"></script>`, `<img src="http://nowhere.test/a.png"><iframe src="https://nowhere.test/frame"></iframe>${script(`fetch('https://other.nowhere.test/api').catch(() => undefined)`)}`),
    '/wipes-body': page('', script(`addEventListener('load', () => setTimeout(() => { document.body.innerHTML = '<p>Something went wrong.</p>'; }, 20))`)),
    '/document-write-after-load': page('', script(`addEventListener('load', () => setTimeout(() => { document.write('<p>ad</p>'); document.close(); }, 20))`)),
    // An app that renders into an open shadow root, with a shorter fallback in <noscript>.
    '/shadow-app': `<!doctype html><html><head><title>App</title></head><body><app-root></app-root><noscript><p>${'A reader without scripts gets this short summary of the page. '.repeat(4)}</p></noscript>${script(`customElements.define('app-root', class extends HTMLElement { connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(ARTICLE)}; } })`)}</body></html>`,
    '/adds-content': `<!doctype html><html><body><div id="app">Loading…</div>${script(`setTimeout(() => { document.getElementById('app').innerHTML = ${JSON.stringify(ARTICLE)}; }, 20)`)}</body></html>`,
    '/shrinks-on-click': page('', `<button id="tab" onclick="document.querySelector('article').remove()">Other tab</button>`),
    // Replaced while the page is parsed (before DOMContentLoaded) by a notice of some length
    // (over 200 characters, under half of the served text: the article twice).
    '/replaced-while-parsed': page('', ARTICLE + script(`document.body.innerHTML = ${JSON.stringify(`<div id="app"><p>${'This site works best with the latest version of your browser. '.repeat(4)}</p></div>`)}`)),
  });
  // These routes name ports known only once their servers listen.
  for (const [path, html] of Object.entries(ROUTE_TEMPLATES)) {
    site.route(path, html.replaceAll('INTERNAL_PORT', String(internal.port)).replaceAll('RESET_PORT', String(resetPort)));
  }
  capturer = await startCapturer({ lookup });
});


after(async () => {
  await capturer.stop();
  await Promise.all([site.close(), internal.close(), new Promise((resolve) => resetter.close(resolve))]);
});

function assertArticle(html: string): void {
  for (let i = 0; i < 6; i++) assert.ok(html.includes(`Paragraph ${i} of the article body`), `paragraph ${i} is in the DOM`);
}

describe('a navigation away from the loaded page that fails', () => {
  test('a script redirect to a host that does not resolve (in <head>: the parser stops) keeps the page and records it', async () => {
    const result = await capturer.capture(site.url('/head-redirect-unresolvable'), opts(), ctx());
    assertArticle(result.html);
    assert.equal(result.finalUrl, site.url('/head-redirect-unresolvable'));
    assert.equal(result.statusCode, 200);
    assert.deepEqual(result.abortedNavigations?.map((n) => [n.url, n.code]), [['https://nowhere.test/landing', 'NETWORK_ERROR']]);
    assert.match(result.abortedNavigations![0]!.reason, /could not resolve host "nowhere\.test": ENOTFOUND/);
    // The redirect in <head> stopped the parser: the document as served stands in.
    assert.equal(result.domSnapshot, 'served');
  });

  test('a script redirect to a scheme the browser does not load (no network request at all) keeps the page', async () => {
    const result = await capturer.capture(site.url('/external-scheme'), opts(), ctx());
    assertArticle(result.html);
    assert.equal(result.finalUrl, site.url('/external-scheme'));
    assert.deepEqual(result.abortedNavigations?.map((n) => [n.url, n.code]), [['intent://scan/#Intent;scheme=zxing;end', 'NETWORK_ERROR']]);
  });

  test('a redirect after load to a host that does not resolve keeps the live DOM', async () => {
    const result = await capturer.capture(site.url('/late-redirect-unresolvable'), opts({ waitFor: 500 }), ctx());
    assertArticle(result.html);
    assert.equal(result.finalUrl, site.url('/late-redirect-unresolvable'));
    assert.deepEqual(result.abortedNavigations?.map((n) => n.url), ['http://nowhere.test/later']);
  });

  test('a redirect to an address SSRF protection blocks (plain HTTP and a tunnel): kept, recorded as URL_NOT_ALLOWED, nothing sent there', async () => {
    for (const path of ['/redirect-blocked', '/redirect-blocked-https']) {
      const result = await capturer.capture(site.url(path), opts(), ctx());
      assertArticle(result.html);
      assert.equal(result.finalUrl, site.url(path));
      assert.equal(result.abortedNavigations?.length, 1, path);
      assert.equal(result.abortedNavigations![0]!.code, 'URL_NOT_ALLOWED');
      assert.match(result.abortedNavigations![0]!.reason, /127\.0\.0\.2/);
    }
    assert.equal(internal.requests.length, 0);
  });

  test('a scheme change to https on a host that only speaks http keeps the page', async () => {
    const result = await capturer.capture(site.url('/scheme-change'), opts(), ctx());
    assertArticle(result.html);
    assert.equal(result.finalUrl, site.url('/scheme-change'));
    assert.equal(result.abortedNavigations?.[0]?.url, site.url('/scheme-change').replace('http:', 'https:'));
  });

  test('a redirect stub without content fails with the reason its target failed', async () => {
    await assert.rejects(capturer.capture(site.url('/redirect-stub'), opts(), ctx()), (err: unknown) => {
      assert.ok(err instanceof NetworkError, String(err));
      assert.match(err.message, /nowhere\.test/);
      return true;
    });
  });

  test('a script redirect that succeeds is still followed', async () => {
    const result = await capturer.capture(site.url('/redirect-ok'), opts(), ctx());
    assert.equal(result.finalUrl, site.url('/landing'));
    assert.match(result.html, /The page a script sent us to/);
    assert.equal(result.abortedNavigations, undefined);
  });

  test('the requested URL itself failing still fails the page', async () => {
    await assert.rejects(capturer.capture(`http://internal.test:${internal.port}/secret`, opts(), ctx()), UrlNotAllowedError);
    await assert.rejects(capturer.capture('http://nowhere.test/', opts(), ctx()), NetworkError);
  });
});

describe('subresources that fail never fail the page', () => {
  test('connections reset by the server (plain HTTP and a tunnel)', async () => {
    const result = await capturer.capture(site.url('/subresource-reset'), opts({ formats: ['markdown', 'screenshot'] }), ctx());
    assertArticle(result.html);
    assert.equal(result.statusCode, 200);
    assert.equal(result.abortedNavigations, undefined);
  });

  test('hosts that do not resolve (script, image, iframe, fetch)', async () => {
    const result = await capturer.capture(site.url('/subresource-unresolvable'), opts({ formats: ['markdown', 'screenshot'] }), ctx());
    assertArticle(result.html);
    assert.equal(result.statusCode, 200);
    assert.equal(result.abortedNavigations, undefined);
  });
});

describe('scripts that take the content away (after load, or while the page is parsed)', () => {
  test('a script that replaces the body: the DOMContentLoaded snapshot stands, and says so', async () => {
    const result = await capturer.capture(site.url('/wipes-body'), opts({ waitFor: 300 }), ctx());
    assertArticle(result.html);
    assert.doesNotMatch(result.html, /<body><p>Something went wrong/);
    assert.equal(result.domSnapshot, 'domcontentloaded');
  });

  test('document.write after load (which replaces the document)', async () => {
    const result = await capturer.capture(site.url('/document-write-after-load'), opts({ waitFor: 300 }), ctx());
    assertArticle(result.html);
    assert.equal(result.domSnapshot, 'domcontentloaded');
  });

  test('a script that replaces the body while the page is parsed with a notice: the document as served stands, and says so', async () => {
    const result = await capturer.capture(site.url('/replaced-while-parsed'), opts(), ctx());
    assertArticle(result.html);
    assert.equal(result.domSnapshot, 'served');
  });

  test('content added after load is kept: the settled DOM stands', async () => {
    const result = await capturer.capture(site.url('/adds-content'), opts({ waitFor: 300 }), ctx());
    assertArticle(result.html);
    assert.equal(result.domSnapshot, undefined);
  });

  test('content an app renders into an open shadow root counts: the render stands, not the <noscript> fallback as served', async () => {
    const result = await capturer.capture(site.url('/shadow-app'), opts(), ctx());
    assertArticle(result.html);
    assert.equal(result.domSnapshot, undefined);
  });

  test('actions that remove content on purpose are respected', async () => {
    const result = await capturer.capture(site.url('/shrinks-on-click'), opts({ actions: [{ type: 'click', selector: '#tab' }] }), ctx());
    assert.doesNotMatch(result.html, /Paragraph 0 of the article body/);
    assert.equal(result.domSnapshot, undefined);
  });
});
