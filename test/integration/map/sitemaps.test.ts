import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { discoverSitemaps, type SitemapDiscoveryOptions, type SitemapDiscoveryResult } from '../../../shared/src/net/sitemaps/discover.js';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { filterLinks } from '../../support/link-filter.js';
import { startSite, type TestSite } from '../../support/site.js';

const allow = parseCidrList('127.0.0.0/8');
const XML = 'application/xml';

/** Every page URL of the site's sitemaps, exact duplicates removed. */
async function collectSitemapUrls(siteUrl: string, opts: Omit<SitemapDiscoveryOptions, 'onUrl'>): Promise<SitemapDiscoveryResult & { urls: string[] }> {
  const found = new Set<string>();
  const result = await discoverSitemaps(siteUrl, { ...opts, onUrl: (url) => { found.add(url); } });
  return { ...result, urls: [...found] };
}

function urlset(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `  <url><loc>${u}</loc><lastmod>2024-05-01</lastmod></url>`).join('\n')}\n</urlset>\n`;
}

function sitemapIndex(urls: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((u) => `  <sitemap><loc>${u}</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;
}

async function withSite(routes: (origin: string) => Parameters<typeof startSite>[0], fn: (site: TestSite) => Promise<void>): Promise<void> {
  const site = await startSite();
  try {
    for (const [path, route] of Object.entries(routes(site.origin) ?? {})) site.route(path, route);
    await fn(site);
  } finally {
    await site.close();
  }
}

describe('sitemap discovery', () => {
  let site: TestSite;
  before(async () => {
    site = await startSite();
    const o = site.origin;
    site.route('/sitemap.xml', { body: sitemapIndex([`${o}/sitemaps/pages.xml`, `${o}/sitemaps/nested-index.xml`]), contentType: XML });
    site.route('/sitemaps/pages.xml', { body: urlset([`${o}/`, `${o}/about`, `${o}/about/`, `${o}/about#team`, 'https://external.example/x']), contentType: XML });
    site.route('/sitemaps/nested-index.xml', { body: sitemapIndex([`${o}/sitemaps/blog.xml.gz`, `${o}/sitemaps/encoded.xml`]), contentType: XML });
    // A gzip file served as a plain binary: detected by its magic bytes.
    site.route('/sitemaps/blog.xml.gz', { body: zlib.gzipSync(urlset([`${o}/blog/one`, `${o}/blog/two`])), contentType: 'application/octet-stream' });
    // Gzip as a transfer encoding: undone by safe-http.
    site.route('/sitemaps/encoded.xml', { body: zlib.gzipSync(urlset([`${o}/docs/start`])), contentType: XML, headers: { 'content-encoding': 'gzip' } });
    site.route('/robots.txt', { body: `User-agent: *\nDisallow: /private\nSitemap: ${o}/from-robots.xml\nSitemap: ${o}/sitemap.xml\n`, contentType: 'text/plain' });
    site.route('/from-robots.xml', { body: urlset([`${o}/robots-listed`]), contentType: XML });
  });
  after(() => site.close());

  test('follows a nested index with gzip children, robots.txt Sitemap lines and well-known paths', async () => {
    const result = await collectSitemapUrls(site.url('/'), { allow });
    const o = site.origin;
    assert.deepEqual(new Set(result.urls), new Set([
      `${o}/robots-listed`, `${o}/`, `${o}/about`, `${o}/about/`, `${o}/about#team`, 'https://external.example/x',
      `${o}/blog/one`, `${o}/blog/two`, `${o}/docs/start`,
    ]));
    assert.equal(result.partial, false);
    // /sitemap.xml listed twice (robots and well-known) is fetched once; /sitemap_index.xml is a 404.
    assert.equal(site.hits.get('/sitemap.xml'), 1);
    assert.equal(result.sitemapsFetched, 7);
    assert.ok(result.errors.some((e) => e.url.endsWith('/sitemap_index.xml') && /404/.test(e.message)));
    // Duplicates and the external URL go in the filter.
    const links = filterLinks(result.urls, { baseUrl: site.url('/'), includeSubdomains: false, limit: 100 });
    assert.equal(links.length, 6);
    assert.ok(!links.some((l) => l.includes('external.example')));
    assert.equal(links.filter((l) => l.includes('/about')).length, 1);
  });

  test('tolerates a malformed sitemap and keeps what parsed', async () => {
    await withSite((o) => ({
      '/sitemap.xml': { body: `<urlset><url><loc>${o}/ok-1</loc></url><url><loc>${o}/a?x=1&y=2</loc></url><url><loc>${o}/ok-2</loc></url><url><loc>${o}/cut`, contentType: XML },
    }), async (s) => {
      const result = await collectSitemapUrls(s.url('/'), { allow });
      assert.deepEqual(result.urls, [`${s.origin}/ok-1`, `${s.origin}/a?x=1&y=2`, `${s.origin}/ok-2`]);
      assert.ok(result.errors.some((e) => /malformed/.test(e.message)));
    });
  });

  test('a cycle of indexes ends: each sitemap is fetched once', async () => {
    await withSite((o) => ({
      '/sitemap.xml': { body: sitemapIndex([`${o}/sitemap.xml`, `${o}/b.xml`, `${o}/sitemap.xml#again`]), contentType: XML },
      '/b.xml': { body: sitemapIndex([`${o}/sitemap.xml`, `${o}/c.xml`]), contentType: XML },
      '/c.xml': { body: urlset([`${o}/page`]), contentType: XML },
    }), async (s) => {
      const result = await collectSitemapUrls(s.url('/'), { allow });
      assert.deepEqual(result.urls, [`${s.origin}/page`]);
      assert.equal(s.hits.get('/sitemap.xml'), 1);
      assert.equal(s.hits.get('/b.xml'), 1);
      assert.equal(s.hits.get('/c.xml'), 1);
    });
  });

  test('bounds the number of sitemap files fetched', async () => {
    await withSite((o) => {
      const routes: Record<string, { body: string; contentType: string }> = {
        '/sitemap.xml': { body: sitemapIndex(Array.from({ length: 50 }, (_, i) => `${o}/child-${i}.xml`)), contentType: XML },
      };
      for (let i = 0; i < 50; i++) routes[`/child-${i}.xml`] = { body: urlset([`${o}/p${i}`]), contentType: XML };
      return routes;
    }, async (s) => {
      const result = await collectSitemapUrls(s.url('/'), { allow, maxSitemaps: 10 });
      assert.equal(result.sitemapsFetched, 10);
      assert.equal(result.partial, true);
      assert.equal(result.stoppedBy, 'sitemapLimit');
      const childHits = [...s.hits.keys()].filter((p) => p.startsWith('/child-')).length;
      assert.equal(childHits, 8);
      assert.equal(result.urls.length, 8);
    });
  });

  test('refuses sitemap URLs that point at blocked addresses, and keeps going', async () => {
    await withSite((o) => ({
      '/robots.txt': { body: 'Sitemap: http://169.254.169.254/latest/meta-data/sitemap.xml\n', contentType: 'text/plain' },
      '/sitemap.xml': { body: sitemapIndex(['http://169.254.169.254/latest/meta-data/', `${o}/redirect.xml`, `${o}/fine.xml`]), contentType: XML },
      '/redirect.xml': { body: '', status: 302, headers: { location: 'http://169.254.169.254/sitemap.xml' } },
      '/fine.xml': { body: urlset([`${o}/fine`]), contentType: XML },
    }), async (s) => {
      const result = await collectSitemapUrls(s.url('/'), { allow });
      assert.deepEqual(result.urls, [`${s.origin}/fine`]);
      const refused = result.errors.filter((e) => /SSRF/.test(e.message));
      assert.equal(refused.length, 3, JSON.stringify(result.errors));
    });
  });

  test('an oversized sitemap is truncated at the byte cap, plain or as a gzip bomb', async () => {
    const many = (o: string, n: number): string => urlset(Array.from({ length: n }, (_, i) => `${o}/page-${i}`));
    await withSite((o) => ({
      '/sitemap.xml': { body: many(o, 20_000), contentType: XML },
      // 20 MB of whitespace after the first URL, 20 KB compressed.
      '/sitemap_index.xml': {
        body: zlib.gzipSync(Buffer.concat([Buffer.from(`<urlset><url><loc>${o}/bomb-first</loc></url>`), Buffer.alloc(20 * 1024 * 1024, 0x20)])),
        contentType: 'application/x-gzip',
      },
    }), async (s) => {
      const maxBytes = 256 * 1024;
      const rssBefore = process.memoryUsage().rss;
      const result = await collectSitemapUrls(s.url('/'), { allow, maxBytesPerSitemap: maxBytes });
      const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
      assert.equal(result.partial, true);
      assert.ok(result.urls.length > 1000 && result.urls.length < 20_000, String(result.urls.length));
      assert.ok(result.urls.includes(`${s.origin}/bomb-first`));
      assert.equal(result.errors.filter((e) => /truncated/.test(e.message)).length, 2);
      assert.ok(rssGrowthMb < 80, `rss grew ${rssGrowthMb.toFixed(1)} MB`);
    });
  });

  test('the deadline stops discovery and returns what was found', async () => {
    await withSite((o) => ({
      '/sitemap.xml': { body: sitemapIndex([`${o}/fast.xml`, `${o}/slow.xml`]), contentType: XML },
      '/fast.xml': { body: urlset([`${o}/fast`]), contentType: XML },
      // Sends its first entries, then hangs.
      '/slow.xml': (_req, res) => { res.writeHead(200, { 'content-type': XML }); res.write(`<urlset><url><loc>${o}/slow-1</loc></url><url><loc>${o}/sl`); },
    }), async (s) => {
      const result = await collectSitemapUrls(s.url('/'), { allow, signal: AbortSignal.timeout(1500) });
      assert.deepEqual(result.urls.sort(), [`${s.origin}/fast`, `${s.origin}/slow-1`]);
      assert.equal(result.partial, true);
      assert.equal(result.stoppedBy, 'deadline');
    });
  });

  test('stops when the consumer has enough', async () => {
    await withSite((o) => ({ '/sitemap.xml': { body: urlset(Array.from({ length: 1000 }, (_, i) => `${o}/p${i}`)), contentType: XML } }), async (s) => {
      const seen: string[] = [];
      const result = await discoverSitemaps(s.url('/'), { allow, onUrl: (u) => { seen.push(u); return seen.length < 10; } });
      assert.equal(seen.length, 10);
      assert.equal(result.stoppedBy, 'consumer');
      assert.equal(result.partial, false);
    });
  });

  test('a site without sitemaps yields nothing, without error', async () => {
    await withSite(() => ({ '/': '<html><body>home</body></html>' }), async (s) => {
      const result = await collectSitemapUrls(s.url('/'), { allow });
      assert.deepEqual(result.urls, []);
      assert.equal(result.sitemapsFetched, 2);
      assert.equal(result.partial, false);
    });
  });

  test('a 50,000-URL sitemap index (10 children, one gzip) streams through', async (t) => {
    await withSite((o) => {
      const routes: Record<string, { body: string | Buffer; contentType: string }> = {
        '/sitemap_index.xml': { body: sitemapIndex(Array.from({ length: 10 }, (_, i) => `${o}/sitemap-${i}.xml${i === 3 ? '.gz' : ''}`)), contentType: XML },
      };
      for (let i = 0; i < 10; i++) {
        const body = urlset(Array.from({ length: 5000 }, (_, j) => `${o}/section-${i}/article-${j}-with-a-slug-of-typical-length`));
        routes[`/sitemap-${i}.xml${i === 3 ? '.gz' : ''}`] = i === 3 ? { body: zlib.gzipSync(body), contentType: 'application/gzip' } : { body, contentType: XML };
      }
      return routes;
    }, async (s) => {
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const heapBefore = process.memoryUsage().heapUsed;
      let rssPeak = rssBefore;
      const sampler = setInterval(() => { rssPeak = Math.max(rssPeak, process.memoryUsage().rss); }, 5);
      const started = performance.now();
      const result = await collectSitemapUrls(s.url('/'), { allow });
      const links = filterLinks(result.urls, { baseUrl: s.url('/'), includeSubdomains: false, limit: 10_000, search: 'section-9' });
      const wallMs = performance.now() - started;
      clearInterval(sampler);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      assert.equal(result.urls.length, 50_000);
      assert.equal(result.sitemapsFetched, 12);
      assert.equal(links.length, 5000);
      const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
      t.diagnostic(`50,000-URL index: ${wallMs.toFixed(0)} ms wall, peak RSS +${mb(rssPeak - rssBefore)} MB (rss ${mb(rssPeak)} MB), heap used +${mb(process.memoryUsage().heapUsed - heapBefore)} MB`);
    });
  });
});
