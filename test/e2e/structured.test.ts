// Structured data without an LLM, through the whole system (gateway -> fetcher with Chromium
// -> transformer -> projector): metadata.structured and the extract format on a product page
// and an article page the test serves, in a scrape, a cache hit, a crawl and a batch, and
// invalid schemas refused with a 400 that names the field.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { scrapeFinished, scrapeToEnd } from '../support/scrape-job.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

const PRODUCT_LD = {
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Trail Runner 42',
  sku: 'TR-42',
  brand: { '@type': 'Brand', name: 'Acme' },
  offers: { '@type': 'Offer', price: '129.00', priceCurrency: 'USD' },
};

const PRODUCT = `<!doctype html><html lang="en"><head><title>Trail Runner 42 | Acme shop</title>
<meta property="og:title" content="Trail Runner 42">
<meta property="og:type" content="product">
<meta property="og:image" content="/img/tr42.jpg">
<meta property="og:image" content="/img/tr42-side.jpg">
<meta property="product:price:amount" content="129.00">
<script type="application/ld+json">${JSON.stringify(PRODUCT_LD)}</script>
</head><body>
<nav><a href="/article">Journal</a></nav>
<main>
<div itemscope itemtype="https://schema.org/Product" itemid="/p/tr42">
  <h1 itemprop="name">Trail Runner 42</h1>
  <img itemprop="image" src="/img/tr42.jpg" alt="Trail Runner 42">
  <p class="lead">Light trail shoe for long days.</p>
  <ul class="offers">
    <li itemprop="offers" itemscope itemtype="https://schema.org/Offer" class="offer" data-seller="acme">
      <span class="seller">Acme</span> <span class="price" itemprop="price" content="129.00">$129.00</span>
      <meta itemprop="priceCurrency" content="USD"><link itemprop="availability" href="https://schema.org/InStock">
      <a class="buy" href="/buy?offer=1">Buy</a>
    </li>
    <li itemprop="offers" itemscope itemtype="https://schema.org/Offer" class="offer" data-seller="outlet">
      <span class="seller">Outlet</span> <span class="price" itemprop="price" content="99.50">$99.50</span>
      <meta itemprop="priceCurrency" content="USD"><link itemprop="availability" href="https://schema.org/OutOfStock">
      <a class="buy" href="/buy?offer=2">Buy</a> <span class="sold-out">sold out</span>
    </li>
  </ul>
</div>
</main>
<script>document.querySelector('.lead').insertAdjacentHTML('afterend', '<p class="rendered">Rendered by script</p>');</script>
</body></html>`;

const ARTICLE_LD = {
  '@context': 'https://schema.org',
  '@type': 'NewsArticle',
  headline: 'Harbour bridge opens',
  datePublished: '2026-05-06T08:00:00Z',
  author: [{ '@type': 'Person', name: 'Jane Doe' }],
};

const ARTICLE = `<!doctype html><html lang="en"><head><title>Harbour bridge opens</title>
<meta name="twitter:card" content="summary_large_image">
<meta name="twitter:site" content="@harbournews">
<meta name="twitter:title" content="Harbour bridge opens">
<script type="application/ld+json">${JSON.stringify(ARTICLE_LD)}</script>
</head><body>
<article>
<h1>Harbour bridge opens</h1>
<p class="byline">By <a rel="author" href="/staff/jane">Jane Doe</a>, <time datetime="2026-05-06T08:00:00Z">6 May</time></p>
<p>The bridge opened on Monday after three years of work, the city said.</p>
<p>Traffic is expected to ease across the harbour within weeks.</p>
<ul class="tags"><li>city</li><li>transport</li></ul>
<a href="/product">Shop</a>
</article>
</body></html>`;

const PRODUCT_SCHEMA = {
  fields: {
    name: { selector: 'h1' },
    image: { selector: '[itemprop=image]', type: 'url' },
    rendered: { selector: '.rendered' },
    offers: {
      selector: '.offer', list: true, type: 'object',
      fields: {
        seller: { selector: '.seller', required: true },
        sellerId: { type: 'attribute', attribute: 'data-seller' },
        price: { selector: '.price', type: 'number' },
        buy: { selector: 'a.buy', type: 'url' },
        soldOut: { selector: '.sold-out', type: 'boolean' },
      },
    },
    rating: { selector: '.rating', type: 'number', default: 0 },
  },
};

const ARTICLE_SCHEMA = {
  fields: {
    headline: { selector: 'h1' },
    author: { selector: '[rel=author]' },
    authorUrl: { selector: '[rel=author]', type: 'url' },
    published: { selector: 'time', type: 'attribute', attribute: 'datetime' },
    paragraphs: { selector: 'article > p:not(.byline)', list: true },
    tags: { selector: '.tags li', list: true },
  },
};

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

describe('structured data end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  before(async () => {
    site = await startSite({ '/product': PRODUCT, '/article': ARTICLE });
    system = await startSystem({ env: { CRAWL_ENGINE: 'browser', BATCH_ENGINE: 'browser' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  async function scrape(body: object): Promise<any> {
    const job = await scrapeToEnd(system, body);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    return job;
  }

  const expectedProductJson = () => ({
    name: 'Trail Runner 42',
    image: site.url('/img/tr42.jpg'),
    rendered: 'Rendered by script',
    offers: [
      { seller: 'Acme', sellerId: 'acme', price: 129, buy: site.url('/buy?offer=1'), soldOut: false },
      { seller: 'Outlet', sellerId: 'outlet', price: 99.5, buy: site.url('/buy?offer=2'), soldOut: true },
    ],
    rating: 0,
  });

  const expectedArticleJson = () => ({
    headline: 'Harbour bridge opens',
    author: 'Jane Doe',
    authorUrl: site.url('/staff/jane'),
    published: '2026-05-06T08:00:00Z',
    paragraphs: ['The bridge opened on Monday after three years of work, the city said.', 'Traffic is expected to ease across the harbour within weeks.'],
    tags: ['city', 'transport'],
  });

  test('a product page: metadata.structured has its JSON-LD, Open Graph and microdata offers; extract returns the schema json', async () => {
    const job = await scrape({ url: site.url('/product'), formats: ['markdown', 'extract'], extract: { schema: PRODUCT_SCHEMA } });
    assert.deepEqual(job.json, expectedProductJson());
    assert.match(job.markdown, /Light trail shoe/);
    const s = job.metadata.structured;
    assert.deepEqual(s.jsonLd, [PRODUCT_LD]);
    assert.deepEqual(s.openGraph, {
      'og:title': 'Trail Runner 42',
      'og:type': 'product',
      'og:image': [site.url('/img/tr42.jpg'), site.url('/img/tr42-side.jpg')],
      'product:price:amount': '129.00',
    });
    assert.deepEqual(s.twitter, {});
    assert.equal(s.truncated, undefined);
    assert.equal(s.microdata.length, 1);
    const product = s.microdata[0];
    assert.deepEqual(product.type, ['https://schema.org/Product']);
    assert.equal(product.id, site.url('/p/tr42'));
    assert.deepEqual(product.properties.name, ['Trail Runner 42']);
    assert.deepEqual(product.properties.image, [site.url('/img/tr42.jpg')]);
    assert.deepEqual(product.properties.offers.map((o: any) => [o.type, o.properties.price, o.properties.priceCurrency, o.properties.availability]), [
      [['https://schema.org/Offer'], ['$129.00'], ['USD'], ['https://schema.org/InStock']],
      [['https://schema.org/Offer'], ['$99.50'], ['USD'], ['https://schema.org/OutOfStock']],
    ]);
  });

  test('an article page: JSON-LD NewsArticle and the twitter card; extract alone returns json without content formats', async () => {
    const job = await scrape({ url: site.url('/article'), formats: ['extract'], extract: { schema: ARTICLE_SCHEMA } });
    assert.deepEqual(job.json, expectedArticleJson());
    assert.equal(job.markdown, undefined);
    assert.deepEqual(job.metadata.structured, {
      jsonLd: [ARTICLE_LD],
      openGraph: {},
      twitter: { 'twitter:card': 'summary_large_image', 'twitter:site': '@harbournews', 'twitter:title': 'Harbour bridge opens' },
      microdata: [],
    });
    assert.equal(job.metadata.author, 'Jane Doe', 'the JSON-LD still fills metadata fields');
  });

  test('a repeated extract request is a cache hit with the same json; another schema is not', async () => {
    const body = { url: site.url('/article'), formats: ['extract', 'markdown'], extract: { schema: ARTICLE_SCHEMA } };
    const first = await scrape(body);
    const hits = site.hits.get('/article');
    const again = await system.api('POST', '/api/v1/scrape', body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.fromCache, true);
    assert.deepEqual(again.body.json, expectedArticleJson());
    assert.deepEqual(again.body.metadata.structured, first.metadata.structured);
    assert.equal(site.hits.get('/article'), hits, 'no second page load');
    const viaGet = (await system.api('GET', `/api/v1/scrape/${again.body.id}`)).body;
    assert.deepEqual(viaGet.json, expectedArticleJson());

    const other = await system.api('POST', '/api/v1/scrape', { ...body, extract: { schema: { fields: { headline: { selector: 'title' } } } } });
    assert.equal(other.status, 202, 'a different schema is a different cache entry');
    const otherJob = await system.poll(`/api/v1/scrape/${other.body.id}`, scrapeFinished);
    assert.deepEqual(otherJob.json, { headline: 'Harbour bridge opens' });
  });

  test('a crawl with extract in scrapeOptions returns json per page', async () => {
    const schema = { fields: { title: { selector: 'h1' }, links: { selector: 'a', type: 'url', list: true } } };
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/product'), limit: 2, scrapeOptions: { formats: ['markdown', 'extract'], extract: { schema } } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
    assert.equal(job.status, 'COMPLETED');
    const byPath = new Map(job.data.map((d: any) => [new URL(d.url).pathname, d]));
    assert.deepEqual([...byPath.keys()].sort(), ['/article', '/product']);
    assert.deepEqual((byPath.get('/product') as any).json, { title: 'Trail Runner 42', links: [site.url('/article'), site.url('/buy?offer=1'), site.url('/buy?offer=2')] });
    assert.deepEqual((byPath.get('/article') as any).json, { title: 'Harbour bridge opens', links: [site.url('/staff/jane'), site.url('/product')] });
    assert.equal((byPath.get('/article') as any).metadata.structured.jsonLd[0]['@type'], 'NewsArticle');
  });

  test('a batch with extract returns json per page', async () => {
    const created = await system.api('POST', '/api/v1/batch/scrape', { urls: [site.url('/product'), site.url('/article')], formats: ['extract'], extract: { schema: { baseSelector: 'h1', fields: { text: {} } } } });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/batch/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
    assert.equal(job.status, 'COMPLETED');
    assert.deepEqual(job.data.map((d: any) => [new URL(d.url).pathname, d.json]), [['/product', [{ text: 'Trail Runner 42' }]], ['/article', [{ text: 'Harbour bridge opens' }]]]);
  });

  test('invalid schemas are a 400 that names the field, for scrape, crawl and batch', async () => {
    const url = site.url('/product');
    const cases: Array<[string, object, RegExp]> = [
      ['/api/v1/scrape', { url, formats: ['extract'], extract: { schema: { fields: { price: { selector: 'div[' } } } } }, /extract\.schema\.fields\.price\.selector is not a valid CSS selector/],
      ['/api/v1/scrape', { url, formats: ['extract'], extract: { schema: { fields: { price: { selector: 'p:first' } } } } }, /extract\.schema\.fields\.price\.selector/],
      ['/api/v1/scrape', { url, formats: ['extract'], extract: { schema: { fields: { sku: { type: 'attribute' } } } } }, /extract\.schema\.fields\.sku\.attribute is required/],
      ['/api/v1/scrape', { url, formats: ['extract'], extract: { schema: { fields: { p: { type: 'float' } } } } }, /extract\.schema\.fields\.p\.type must be one of/],
      ['/api/v1/scrape', { url, formats: ['extract'] }, /extract format needs an extraction schema/],
      ['/api/v1/scrape', { url, extract: { schema: { fields: { a: {} } } } }, /formats does not include "extract"/],
      ['/api/v1/crawl', { url, scrapeOptions: { formats: ['extract'], extract: { schema: { fields: { o: { type: 'object', fields: { x: { selector: 'a::before' } } } } } } } }, /scrapeOptions\.extract\.schema\.fields\.o\.fields\.x\.selector/],
      ['/api/v1/batch/scrape', { urls: [url], formats: ['extract'], extract: { schema: { fields: { n: { type: 'number', default: 'none' } } } } }, /extract\.schema\.fields\.n\.default must be a number/],
    ];
    for (const [path, body, detail] of cases) {
      const res = await system.api('POST', path, body);
      const label = `${path} ${JSON.stringify(body).slice(0, 160)}`;
      assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDATION_ERROR', label);
      assert.match(res.body.detail, detail, label);
    }
  });

  test('the OpenAPI document carries the extract option, the format and json', async () => {
    const doc = (await system.api('GET', '/openapi.json')).body;
    const text = JSON.stringify(doc);
    assert.match(text, /"extract"/);
    assert.match(text, /baseSelector/);
    assert.match(text, /"enum":\["markdown","html","rawHtml","links","screenshot","extract"\]/);
    assert.match(text, /"json":/);
  });
});
