// POST /api/v1/map end to end: the whole system (gateway, map worker in the
// crawler-frontier, fetcher with Chromium, transformer) against sites served on 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { normalizeUrl } from '../../shared/src/net/url-normalize.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

const XML = 'application/xml';
const MAX_CRAWL_PAGES = 5;

function urlset(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `<url><loc>${u}</loc></url>`).join('\n')}\n</urlset>`;
}
function sitemapIndex(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `<sitemap><loc>${u}</loc></sitemap>`).join('\n')}\n</sitemapindex>`;
}
function page(title: string, links: string[]): string {
  return `<!doctype html><html><head><title>${title}</title></head><body><nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav><main><h1>${title}</h1><p>Some text about ${title}.</p></main></body></html>`;
}
/** Normalized keys: which of two equivalent forms (/docs, /docs/) is reported depends on which sitemap arrives first. */
function keys(links: string[]): Set<string> {
  return new Set(links.map((l) => normalizeUrl(l)!.key));
}
function pageHits(site: TestSite): string[] {
  return site.requests.map((r) => r.path).filter((p) => !/\.(xml|gz|txt|ico)$/.test(p));
}

interface MapBody { links: string[]; count: number }

describe('map API end to end', () => {
  let system: TrawlSystem;
  let withSitemaps: TestSite;
  let noSitemap: TestSite;
  let chain: TestSite;

  before(async () => {
    [system, withSitemaps, noSitemap, chain] = await Promise.all([
      startSystem({ env: { MAP_MAX_CRAWL_PAGES: String(MAX_CRAWL_PAGES) } }),
      startSite(), startSite(), startSite(),
    ]);

    // Sitemaps: robots.txt names a nested index with a gzip child; /sitemap.xml has
    // duplicates and an external URL. The HTML pages link to a page no sitemap lists.
    const o = withSitemaps.origin;
    withSitemaps.route('/robots.txt', { body: `User-agent: *\nAllow: /\nSitemap: ${o}/maps/index.xml\n`, contentType: 'text/plain' });
    withSitemaps.route('/maps/index.xml', { body: sitemapIndex([`${o}/maps/docs.xml.gz`, `${o}/maps/nested.xml`]), contentType: XML });
    withSitemaps.route('/maps/nested.xml', { body: sitemapIndex([`${o}/maps/blog.xml`]), contentType: XML });
    withSitemaps.route('/maps/docs.xml.gz', { body: zlib.gzipSync(urlset([`${o}/docs`, `${o}/docs/install`, `${o}/docs/api-reference`])), contentType: 'application/octet-stream' });
    withSitemaps.route('/maps/blog.xml', { body: urlset([`${o}/blog`, `${o}/blog/2024/hello-docs`, `${o}/blog/2024/release`]), contentType: XML });
    withSitemaps.route('/sitemap.xml', { body: urlset([`${o}/`, `${o}/about`, `${o}/about/`, `${o}/about#team`, `${o}/docs/`, 'https://external.example/page', `${o}/pricing?utm_source=x`]), contentType: XML });
    withSitemaps.route('/', page('Home', ['/only-in-html', '/about']));
    withSitemaps.route('/only-in-html', page('Hidden', ['/']));
    withSitemaps.route('/about', page('About', ['/']));

    // No sitemap at all: a small site found by the browser crawl.
    noSitemap.route('/', page('Home', ['/a', '/b', 'https://external.example/x', '/files/report.pdf']));
    noSitemap.route('/a', page('A', ['/a/deep', '/']));
    noSitemap.route('/b', page('B', ['/a', '#top']));
    noSitemap.route('/a/deep', page('Deep', ['/']));

    // A long chain of pages: the crawl must stop at MAP_MAX_CRAWL_PAGES.
    for (let i = 0; i < 30; i++) chain.route(i === 0 ? '/' : `/p${i}`, page(`P${i}`, [`/p${i + 1}`, `/p${i + 2}`]));
  });

  after(async () => {
    await system?.stop();
    await Promise.all([withSitemaps?.close(), noSitemap?.close(), chain?.close()]);
  });

  const map = (body: unknown) => system.api<MapBody>('POST', '/api/v1/map', body);

  test('sitemaps: robots.txt, nested index with a gzip child, duplicates and external URLs removed', async () => {
    const o = withSitemaps.origin;
    const res = await map({ url: withSitemaps.url('/') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(keys(res.body.links), keys([
      `${o}/docs`, `${o}/docs/install`, `${o}/docs/api-reference`, `${o}/blog`, `${o}/blog/2024/hello-docs`, `${o}/blog/2024/release`,
      `${o}/`, `${o}/about`, `${o}/pricing?utm_source=x`,
    ]));
    assert.equal(res.body.links.length, 9);
    assert.equal(res.body.count, res.body.links.length);
    // The sitemaps sufficed: no page was opened in the browser.
    assert.deepEqual(pageHits(withSitemaps), []);
  });

  test('search keeps matching URLs, ranked; limit caps the answer', async () => {
    const o = withSitemaps.origin;
    const res = await map({ url: withSitemaps.url('/'), search: 'DOCS' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.links.map((l) => normalizeUrl(l)!.key), [`${o}/docs`, `${o}/docs/install`, `${o}/docs/api-reference`, `${o}/blog/2024/hello-docs`]);
    const limited = await map({ url: withSitemaps.url('/'), limit: 3 });
    assert.equal(limited.body.count, 3);
    assert.equal(limited.body.links.length, 3);
    const none = await map({ url: withSitemaps.url('/'), search: 'no-such-thing' });
    assert.deepEqual(none.body, { links: [], count: 0 });
  });

  test('ignoreSitemap crawls with the browser instead', async () => {
    const o = withSitemaps.origin;
    const sitemapHitsBefore = withSitemaps.hits.get('/sitemap.xml') ?? 0;
    const res = await map({ url: withSitemaps.url('/'), ignoreSitemap: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(new Set(res.body.links), new Set([`${o}/`, `${o}/only-in-html`, `${o}/about`]));
    assert.equal(withSitemaps.hits.get('/sitemap.xml') ?? 0, sitemapHitsBefore);
  });

  test('a site without a sitemap is crawled breadth first from the homepage', async () => {
    const o = noSitemap.origin;
    const res = await map({ url: noSitemap.url('/') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(new Set(res.body.links), new Set([`${o}/`, `${o}/a`, `${o}/b`, `${o}/a/deep`, `${o}/files/report.pdf`]));
    // Files are listed, never opened; each page is opened once.
    assert.equal(noSitemap.hits.get('/files/report.pdf'), undefined);
    for (const p of ['/', '/a', '/b', '/a/deep']) assert.equal(noSitemap.hits.get(p), 1, p);
  });

  test('MAP_MAX_CRAWL_PAGES caps the pages the fallback opens', async () => {
    const res = await map({ url: chain.url('/') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const opened = pageHits(chain);
    assert.equal(opened.length, MAX_CRAWL_PAGES, opened.join(' '));
    // Links seen on the opened pages are listed even when their pages were not opened.
    assert.ok(res.body.count > MAX_CRAWL_PAGES, String(res.body.count));
  });

  test('an unreachable site fails with an RFC 7807 error', async () => {
    const gone = await startSite();
    const url = gone.url('/');
    await gone.close();
    const res = await system.api('POST', '/api/v1/map', { url });
    assert.equal(res.status, 500, JSON.stringify(res.body));
    assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal((res.body as { code: string }).code, 'NETWORK_ERROR');
  });

  test('bad input is an RFC 7807 400 naming the field', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{}, 'VALIDATION_ERROR', /url is required/],
      [{ url: withSitemaps.url('/'), limit: 0 }, 'VALIDATION_ERROR', /limit/],
      [{ url: withSitemaps.url('/'), limit: 10_001 }, 'VALIDATION_ERROR', /limit/],
      [{ url: withSitemaps.url('/'), limit: '10' }, 'VALIDATION_ERROR', /limit must be of type integer/],
      [{ url: withSitemaps.url('/'), limit: 2.5 }, 'VALIDATION_ERROR', /limit/],
      [{ url: 42 }, 'VALIDATION_ERROR', /url must be of type string/],
      [{ url: withSitemaps.url('/'), ignoreSitemap: 'yes' }, 'VALIDATION_ERROR', /ignoreSitemap must be of type boolean/],
      [{ url: withSitemaps.url('/'), includeSubdomains: 1 }, 'VALIDATION_ERROR', /includeSubdomains/],
      [{ url: withSitemaps.url('/'), search: ['a'] }, 'VALIDATION_ERROR', /search/],
      [{ url: withSitemaps.url('/'), depth: 2 }, 'VALIDATION_ERROR', /depth is not a known field/],
      [{ url: 'ftp://example.com/' }, 'INVALID_URL', /http/],
      [{ url: 'not a url' }, 'INVALID_URL', /valid URL/],
      [{ url: 'http://169.254.169.254/latest/meta-data/' }, 'URL_NOT_ALLOWED', /SSRF/],
    ];
    for (const [body, code, detail] of cases) {
      const res = await system.api<{ status: number; code: string; detail: string; type: string; title: string }>('POST', '/api/v1/map', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.status} ${JSON.stringify(res.body)}`);
      assert.match(String(res.headers.get('content-type')), /^application\/problem\+json/);
      assert.equal(res.body.code, code, JSON.stringify(body));
      assert.equal(res.body.status, 400);
      assert.match(res.body.detail, detail, JSON.stringify(res.body));
      assert.ok(res.body.type.endsWith(`/${code}`));
    }
    const unauthenticated = await system.api('POST', '/api/v1/map', { url: withSitemaps.url('/') }, { authorization: '' });
    assert.equal(unauthenticated.status, 401);
  });

  test('a 50,000-URL sitemap index (10 children, one gzip)', async (t) => {
    const big = await startSite();
    try {
      const o = big.origin;
      big.route('/sitemap_index.xml', { body: sitemapIndex(Array.from({ length: 10 }, (_, i) => `${o}/sitemap-${i}.xml${i === 7 ? '.gz' : ''}`)), contentType: XML });
      for (let i = 0; i < 10; i++) {
        const body = urlset(Array.from({ length: 5000 }, (_, j) => `${o}/section-${i}/article-${j}-with-a-slug-of-typical-length`));
        big.route(`/sitemap-${i}.xml${i === 7 ? '.gz' : ''}`, i === 7 ? { body: zlib.gzipSync(body), contentType: 'application/gzip' } : { body, contentType: XML });
      }
      // A search reads every sitemap to rank all matches; the matches are the last child's.
      let started = performance.now();
      const searched = await map({ url: big.url('/'), search: 'section-9', limit: 10_000 });
      const searchMs = performance.now() - started;
      assert.equal(searched.status, 200);
      assert.equal(searched.body.count, 5000);
      assert.ok(searched.body.links.every((l) => l.includes('/section-9/')));
      started = performance.now();
      const first = await map({ url: big.url('/'), limit: 10_000 });
      const limitMs = performance.now() - started;
      assert.equal(first.body.count, 10_000);
      assert.equal(new Set(first.body.links).size, 10_000);
      t.diagnostic(`50,000-URL index through the API: search over all ${searchMs.toFixed(0)} ms, first 10,000 ${limitMs.toFixed(0)} ms`);
    } finally {
      await big.close();
    }
  });
});
