// One request per page under auto: when the GET has been made and the page still needs the
// browser (a verification, a render for its markers), Chromium is handed that response for
// its main document (page-interceptor.ts) instead of requesting it again. Status, headers
// (the charset), the final URL of a redirect and the bytes are the GET's; subresources load
// as usual, through the capture's SSRF proxy. The site counts the requests it gets.
// Real nats-server (host profiles), real Chromium, real HTTP against pages served here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { EngineRouter } from '../../../services/fetcher/src/engine/engine-router.js';
import { identicalAgreements } from '../../../services/fetcher/src/engine/host-profile.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer, testRouter } from './helpers.js';

const PROSE = '<p>Server-rendered text of a static page, the same with or without JavaScript.</p>'.repeat(6);
const article = (n: number) => `<!doctype html><html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1>${PROSE}</article></body></html>`;
/** Client-rendered from data it fetches at load: the data is a subresource, loaded by the browser. */
const app = (n: number) => `<!doctype html><html><head><title>App ${n}</title></head><body><div id="root"></div>
<script>fetch('/data/${n}.json').then((r) => r.json()).then((d) => { document.getElementById('root').innerHTML = '<h1>' + d.title + '</h1><p>' + 'Text built by JavaScript from fetched data. '.repeat(10) + '</p>' })</script></body></html>`;

describe('auto: each page is requested once', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let site: TestSite;
  let other: TestSite;
  let capturer: PageCapturer;
  let router: EngineRouter;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    // Not in the allowed ranges (127.0.0.1/32 only): the SSRF proxy must refuse it.
    other = await startSite({ '/secret': 'internal data' }, '127.0.0.2');
    site = await startSite({
      '/moved': { body: '', status: 301, headers: { location: '/new-home' } },
      '/new-home': app(9),
      '/data/9.json': { contentType: 'application/json', body: JSON.stringify({ title: 'Fetched title 9' }) },
      '/missing': { status: 404, body: '<!doctype html><html><head><title>Gone</title></head><body><div id="root"></div><script>document.getElementById("root").innerHTML = "<h1>Not here</h1><p>" + "This page was removed. ".repeat(12) + "</p>"</script></body></html>' },
      '/latin': {
        contentType: 'text/html; charset=windows-1252',
        headers: { 'x-served-by': 'origin' },
        body: Buffer.concat([Buffer.from('<!doctype html><html><head><title>Latin</title></head><body><article><h1>Caf'), Buffer.from([0xe9]), Buffer.from(`</h1>${PROSE}</article></body></html>`)]),
      },
      '/probe-internal': `<!doctype html><html><head><title>Internal</title></head><body><div id="out"></div><script>
        fetch('${other.url('/secret')}').then((r) => r.text()).then((t) => { document.getElementById('out').textContent = 'got ' + t }, () => { document.getElementById('out').textContent = 'refused: ' + 'the internal address was not reached. '.repeat(8) })</script></body></html>`,
    });
    for (let n = 0; n < 4; n++) site.route(`/p${n}`, article(n));
    for (let n = 0; n < 3; n++) {
      site.route(`/app${n}`, app(n));
      site.route(`/data/${n}.json`, { contentType: 'application/json', body: JSON.stringify({ title: `Fetched title ${n}` }) });
    }
    capturer = await startCapturer({ poolSize: 2 });
    router = testRouter(nc, (url, options, cctx) => capturer.capture(url, options, cctx));
  });
  after(async () => {
    await capturer?.stop();
    await nc?.close();
    await Promise.all([site?.close(), other?.close()]);
    await server?.stop();
  });

  /** Verifications that teach the router's host (K = 3): its pages are identical both ways, so K - 1. */
  const LEARNT = identicalAgreements({ agreements: 3, recheckEvery: 25 });
  const fetchAuto = (path: string) => router.fetch('crawl', site.url(path), opts({ formats: ['markdown'] }), ctx());

  test('verified pages (an unknown host) are rendered from the GET\'s response: one request each', async () => {
    for (let n = 0; n < 4; n++) {
      const page = await fetchAuto(`/p${n}`);
      assert.match(page.html, new RegExp(`<h1>Page ${n}</h1>`));
      assert.equal(page.statusCode, 200);
      if (n < LEARNT) assert.ok(page.engine.verification?.agreed, page.engine.reason);
      else assert.equal(page.engine.used, 'http', page.engine.reason);
    }
    for (let n = 0; n < 4; n++) assert.equal(site.hits.get(`/p${n}`), 1, `/p${n} requested once`);
  });

  test('pages of an unknown host fetched at once: K - 1 rendered to learn it (identical pages), the others wait for their verdicts and take their GET', async () => {
    const learning = await startSite({});
    try {
      for (let n = 0; n < 6; n++) learning.route(`/q${n}`, article(n));
      const pages = await Promise.all(Array.from({ length: 6 }, (_, n) => router.fetch('crawl', learning.url(`/q${n}`), opts({ formats: ['markdown'] }), ctx())));
      const verified = pages.filter((p) => p.engine.verification);
      assert.equal(verified.length, LEARNT, pages.map((p) => p.engine.reason).join('; '));
      assert.ok(verified.every((p) => p.engine.verification?.agreed));
      for (const p of pages.filter((q) => !q.engine.verification)) assert.match(p.engine.reason, /verified static/);
      for (let n = 0; n < 6; n++) assert.equal(learning.hits.get(`/q${n}`), 1, `/q${n} requested once`);
    } finally {
      await learning.close();
    }
  });

  test('client-rendered pages: the page once, its data once, content built by the browser', async () => {
    for (let n = 0; n < 3; n++) {
      const page = await fetchAuto(`/app${n}`);
      assert.equal(page.engine.used, 'browser', page.engine.reason);
      assert.match(page.html, new RegExp(`Fetched title ${n}`));
      assert.equal(site.hits.get(`/app${n}`), 1, `/app${n} requested once`);
      assert.equal(site.hits.get(`/data/${n}.json`), 1, `its data requested once`);
    }
  });

  test('a redirect to a page that needs the browser: it is at the final URL, each hop requested once', async () => {
    const page = await fetchAuto('/moved');
    assert.equal(page.engine.used, 'browser', page.engine.reason);
    assert.equal(page.finalUrl, site.url('/new-home'));
    assert.match(page.html, /Fetched title 9/);
    assert.equal(site.hits.get('/moved'), 1);
    assert.equal(site.hits.get('/new-home'), 1);
  });

  test('the original status and charset reach the browser', async () => {
    const missing = await fetchAuto('/missing');
    assert.equal(missing.engine.used, 'browser');
    assert.equal(missing.statusCode, 404);
    assert.match(missing.html, /This page was removed/);
    assert.equal(site.hits.get('/missing'), 1);

    const latin = await fetchAuto('/latin');
    assert.match(latin.html, /<h1>Café<\/h1>/, 'windows-1252 decoded as served');
    assert.match(latin.contentType ?? '', /windows-1252/);
    assert.equal(site.hits.get('/latin'), 1);
  });

  test('subresources of a served page still go through the SSRF proxy', async () => {
    const page = await fetchAuto('/probe-internal');
    assert.equal(page.engine.used, 'browser', page.engine.reason);
    assert.match(page.html, /refused: the internal address was not reached/);
    assert.equal(other.hits.get('/secret'), undefined, 'the internal address never got a request');
    assert.equal(site.hits.get('/probe-internal'), 1);
  });
});
