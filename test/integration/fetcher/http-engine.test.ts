// The HTTP engine against pages this test serves: SSRF on every redirect hop, charsets
// (header, <meta>, BOM), gzip/br/deflate, non-HTML refused before download, the size cap,
// the page timeout, and the device's user agent and the request's headers sent.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import iconv from 'iconv-lite';
import { BodyTooLargeError } from '../../../shared/src/net/safe-http.js';
import { PageTimeoutError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { reportPdf } from '../../support/documents.js';
import { HttpEngine, NotHtmlError, TooManyRedirectsError } from '../../../services/fetcher/src/engine/http-engine.js';
import { startSite, type TestSite } from '../../support/site.js';
import { LOOPBACK_ALLOWED, opts } from './helpers.js';

const HTML = '<!doctype html><html><head><title>Café</title></head><body><p>Crème brûlée, naïve façade — 日本語</p></body></html>';
let site: TestSite;
const engine = new HttpEngine({ allowCidrs: LOOPBACK_ALLOWED, maxBytes: 64 * 1024, documentMaxBytes: 64 * 1024, chromeVersion: () => '156' });
const signal = (): AbortSignal => new AbortController().signal;

before(async () => {
  site = await startSite({
    '/': HTML,
    '/redirect-private': { body: '', status: 302, headers: { location: 'http://127.0.0.2:1/' } },
    '/redirect-metadata': { body: '', status: 301, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
    '/hop1': { body: '', status: 302, headers: { location: '/hop2' } },
    '/hop2': { body: '', status: 307, headers: { location: '/' } },
    '/latin1-header': { body: iconv.encode(HTML.replace(' — 日本語', ''), 'latin1'), contentType: 'text/html; charset=ISO-8859-1' },
    '/latin1-meta': { body: iconv.encode(HTML.replace(' — 日本語', '').replace('<head>', '<head><meta charset="windows-1252">'), 'win1252'), contentType: 'text/html' },
    '/shift-jis-http-equiv': {
      body: iconv.encode(HTML.replace('<head>', '<head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">').replace(/Café|Crème brûlée, naïve façade — /g, ''), 'Shift_JIS'),
      contentType: 'text/html',
    },
    '/utf16-bom': { body: Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(HTML, 'utf16le')]), contentType: 'text/html' },
    '/gzip': { body: zlib.gzipSync(HTML), headers: { 'content-encoding': 'gzip' } },
    '/br': { body: zlib.brotliCompressSync(HTML), headers: { 'content-encoding': 'br' } },
    '/deflate': { body: zlib.deflateSync(HTML), headers: { 'content-encoding': 'deflate' } },
    '/pdf': { body: Buffer.alloc(1_000_000, 1), contentType: 'application/pdf' },
    '/json': { body: '{"a":1}', contentType: 'application/json' },
    '/png': { body: Buffer.alloc(1000, 1), contentType: 'image/png' },
    '/untyped-html': (_req, res) => { res.writeHead(200).end(HTML); },
    '/untyped-binary': (_req, res) => { res.writeHead(200).end(Buffer.from([0, 1, 2, 3, 4])); },
    '/octet-archive': { body: Buffer.alloc(5_000_000, 7), contentType: 'application/octet-stream' },
    '/big': `<!doctype html><html><body>${'<p>filler</p>'.repeat(10_000)}</body></html>`,
    '/bomb': { body: zlib.gzipSync(Buffer.alloc(50_000_000, 0x20)), headers: { 'content-encoding': 'gzip' } },
    '/slow': { body: HTML, delayMs: 3_000 },
    '/stall': (_req, res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.write('<html><body>'); },
    '/missing': { body: '<html><body><h1>Gone</h1></body></html>', status: 404 },
    '/loop': { body: '', status: 302, headers: { location: '/loop' } },
  });
});
after(async () => { await site.close(); });

describe('HTTP engine', () => {
  test('fetches the served HTML with its status, final URL and content type', async () => {
    const r = await engine.fetch(site.url('/hop1'), opts(), signal());
    assert.equal(r.html, HTML);
    assert.equal(r.statusCode, 200);
    assert.equal(r.finalUrl, site.url('/'));
    assert.match(r.contentType ?? '', /text\/html/);
  });

  test('a redirect into a private or link-local range is blocked (URL_NOT_ALLOWED)', async () => {
    for (const path of ['/redirect-private', '/redirect-metadata']) {
      await assert.rejects(engine.fetch(site.url(path), opts(), signal()), (err: unknown) => err instanceof UrlNotAllowedError && /blocked by SSRF/.test((err as Error).message), path);
    }
  });

  test('a private start address is blocked too', async () => {
    const strict = new HttpEngine({ allowCidrs: [], maxBytes: 1024, documentMaxBytes: 1024, chromeVersion: () => '156' });
    await assert.rejects(strict.fetch(site.url('/'), opts(), signal()), UrlNotAllowedError);
  });

  test('more than 10 redirects fail', async () => {
    await assert.rejects(engine.fetch(site.url('/loop'), opts(), signal()), TooManyRedirectsError);
  });

  test('charsets: Content-Type header, <meta charset>, http-equiv and a BOM', async () => {
    assert.equal((await engine.fetch(site.url('/latin1-header'), opts(), signal())).html, HTML.replace(' — 日本語', ''));
    assert.match((await engine.fetch(site.url('/latin1-meta'), opts(), signal())).html, /Crème brûlée, naïve façade/);
    assert.match((await engine.fetch(site.url('/shift-jis-http-equiv'), opts(), signal())).html, /<p>日本語<\/p>/);
    assert.equal((await engine.fetch(site.url('/utf16-bom'), opts(), signal())).html, HTML);
  });

  test('gzip, br and deflate bodies are decoded', async () => {
    for (const path of ['/gzip', '/br', '/deflate']) assert.equal((await engine.fetch(site.url(path), opts(), signal())).html, HTML, path);
    const sent = site.requests.filter((r) => r.path === '/br').at(-1)!;
    assert.match(String(sent.headers['accept-encoding']), /br/);
  });

  test('non-HTML non-documents are refused before their body is read; documents over the cap fail; untyped bodies are sniffed', async () => {
    await assert.rejects(engine.fetch(site.url('/png'), opts(), signal()), (err: unknown) => err instanceof NotHtmlError && (err as NotHtmlError).code === 'NETWORK_ERROR' && /image\/png/.test((err as Error).message));
    await assert.rejects(engine.fetch(site.url('/pdf'), opts(), signal()), (err: unknown) => (err as { code?: string }).code === 'DOCUMENT_TOO_LARGE');
    const json = await engine.fetch(site.url('/json'), opts(), signal());
    assert.deepEqual([json.document?.kind, Buffer.from(json.document!.bytes).toString()], ['json', '{"a":1}']);
    await assert.rejects(engine.fetch(site.url('/untyped-binary'), opts(), signal()), NotHtmlError);
    // A generic label is read only while its first bytes may be a document or HTML.
    await assert.rejects(engine.fetch(site.url('/octet-archive'), opts(), signal()), (err: unknown) => err instanceof NotHtmlError && /application\/octet-stream/.test((err as Error).message));
    site.route('/octet-pdf', { body: await reportPdf(), contentType: 'application/octet-stream' });
    const pdf = await engine.fetch(site.url('/octet-pdf'), opts(), signal());
    assert.deepEqual([pdf.document?.kind, pdf.html], ['pdf', '']);
    assert.equal((await engine.fetch(site.url('/untyped-html'), opts(), signal())).html, HTML);
  });

  test('a body over the cap fails (plain and decompressed: a gzip bomb stops at the cap)', async () => {
    await assert.rejects(engine.fetch(site.url('/big'), opts(), signal()), BodyTooLargeError);
    await assert.rejects(engine.fetch(site.url('/bomb'), opts(), signal()), BodyTooLargeError);
  });

  test('with a larger document cap, HTML still stops at its own cap; a PDF mislabelled as HTML gets the document cap', async () => {
    const roomy = new HttpEngine({ allowCidrs: LOOPBACK_ALLOWED, maxBytes: 64 * 1024, documentMaxBytes: 4 * 1024 * 1024, chromeVersion: () => '156' });
    await assert.rejects(roomy.fetch(site.url('/big'), opts(), signal()), (err: unknown) => err instanceof BodyTooLargeError && /65536/.test((err as Error).message));
    await assert.rejects(roomy.fetch(site.url('/bomb'), opts(), signal()), BodyTooLargeError);
    const pdf = Buffer.concat([await reportPdf(), Buffer.alloc(200_000, 0x20)]); // trailing whitespace: still a PDF, over the HTML cap
    site.route('/pdf-as-html', { body: pdf, contentType: 'text/html' });
    const got = await roomy.fetch(site.url('/pdf-as-html'), opts(), signal());
    assert.deepEqual([got.document?.kind, got.document?.bytes.length], ['pdf', pdf.length]);
  });

  test('the page timeout bounds a slow answer and a stalled body (PAGE_TIMEOUT)', async () => {
    for (const path of ['/slow', '/stall']) {
      const started = performance.now();
      await assert.rejects(engine.fetch(site.url(path), opts({ timeout: 1000 }), signal()), PageTimeoutError, path);
      assert.ok(performance.now() - started < 2_500, `${path} gave up in time`);
    }
  });

  test('an error status is a page like any other', async () => {
    const r = await engine.fetch(site.url('/missing'), opts(), signal());
    assert.equal(r.statusCode, 404);
    assert.match(r.html, /Gone/);
  });

  test('sends the device user agent and the request headers (which win)', async () => {
    await engine.fetch(site.url('/?ua'), opts({ mobile: true }), signal());
    const mobile = site.requests.filter((r) => r.path === '/?ua').at(-1)!;
    assert.match(String(mobile.headers['user-agent']), /Android .*Chrome\/156\.0\.0\.0 Mobile Safari/);
    await engine.fetch(site.url('/?h'), opts({ headers: { 'X-Token': 'abc', 'User-Agent': 'custom' } }), signal());
    const custom = site.requests.filter((r) => r.path === '/?h').at(-1)!;
    assert.equal(custom.headers['x-token'], 'abc');
    assert.equal(custom.headers['user-agent'], 'custom');
  });

  test('an abort from the caller stops the fetch', async () => {
    const controller = new AbortController();
    const pending = engine.fetch(site.url('/slow'), opts(), controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled')), 100);
    await assert.rejects(pending, /cancelled|abort/i);
  });
});
