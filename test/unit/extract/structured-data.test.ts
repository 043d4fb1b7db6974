// metadata.structured (structured-data.ts, microdata.ts): given a page, when the transformer
// reads it, then JSON-LD, Open Graph, Twitter cards and microdata come out in the documented shape.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { readMicrodata } from '../../../packages/extract/src/microdata.js';
import { bound, readStructuredData, type StructuredData } from '../../../packages/extract/src/structured-data.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const BASE = new URL('https://shop.example.com/p/42');
const read = (html: string) => readStructuredData(parseDocument(html), BASE);
const microdata = (html: string) => readMicrodata(parseDocument(`<html><body>${html}</body></html>`), BASE);

describe('microdata', () => {
  test('given a product with nested offers, then items follow the HTML standard value rules', () => {
    const items = microdata(`
      <div itemscope itemtype="https://schema.org/Product" itemid="/p/42">
        <h1 itemprop="name">  Trail
          runner </h1>
        <img itemprop="image" src="/img/42.jpg" alt="">
        <a itemprop="url" href="42">link</a>
        <meta itemprop="sku" content="TR-42">
        <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
          <span itemprop="price" content="129.00">$129</span>
          <meta itemprop="priceCurrency" content="USD">
          <link itemprop="availability" href="https://schema.org/InStock">
          <time itemprop="priceValidUntil" datetime="2030-01-01">New year</time>
          <data itemprop="inventoryLevel" value="7">seven</data>
          <meter itemprop="ratio" value="0.5" min="0" max="1"></meter>
          <object itemprop="manual" data="/manual.pdf"></object>
        </div>
        <span itemprop="color material">red</span>
      </div>`);
    assert.deepEqual(items, [{
      type: ['https://schema.org/Product'],
      id: 'https://shop.example.com/p/42',
      properties: {
        name: ['Trail runner'],
        image: ['https://shop.example.com/img/42.jpg'],
        url: ['https://shop.example.com/p/42'],
        sku: ['TR-42'],
        offers: [{
          type: ['https://schema.org/Offer'],
          properties: {
            // a <span> value is its text: content is for <meta> only
            price: ['$129'],
            priceCurrency: ['USD'],
            availability: ['https://schema.org/InStock'],
            priceValidUntil: ['2030-01-01'],
            inventoryLevel: ['7'],
            ratio: ['0.5'],
            manual: ['https://shop.example.com/manual.pdf'],
          },
        }],
        color: ['red'],
        material: ['red'],
      },
    }]);
  });

  test('given itemref, repeated properties and several top-level items, then each item gets its own properties in tree order', () => {
    const items = microdata(`
      <div itemscope itemtype="https://schema.org/Person" itemref="addr"><span itemprop="name">Ann</span><span itemprop="knows">Bob</span><span itemprop="knows">Cy</span></div>
      <p id="addr" itemprop="address">1 Main St</p>
      <div itemscope><span itemprop="note">untyped</span></div>`);
    assert.deepEqual(items, [
      { type: ['https://schema.org/Person'], properties: { name: ['Ann'], knows: ['Bob', 'Cy'], address: ['1 Main St'] } },
      { type: [], properties: { note: ['untyped'] } },
    ]);
  });

  test('given property names like __proto__, then they are plain keys (no prototype games)', () => {
    const items = microdata('<div itemscope><span itemprop="__proto__">p</span><span itemprop="constructor">c</span></div>');
    assert.equal(items.length, 1);
    assert.deepEqual(Object.keys(items[0]!.properties), ['__proto__', 'constructor']);
    assert.deepEqual(JSON.parse(JSON.stringify(items[0]!.properties)), JSON.parse('{"__proto__":["p"],"constructor":["c"]}'));
  });

  test('given an item that references itself through itemref, then the cycle is "ERROR", not a hang', () => {
    const items = microdata('<div itemscope><div id="p" itemprop="a" itemscope><div itemprop="b" itemscope itemref="p"></div></div></div>');
    assert.deepEqual(items, [{ type: [], properties: { a: [{ type: [], properties: { b: [{ type: [], properties: { a: ['ERROR'] } }] } }] } }]);
  });
});

describe('Open Graph and Twitter cards', () => {
  test('given og, article, product and twitter tags, then keys are the property names, repeats are arrays, URLs absolute', () => {
    const data = read(`<html><head>
      <meta property="og:title" content="Trail runner">
      <meta property="og:type" content="product">
      <meta property="og:image" content="/img/1.jpg"><meta property="og:image" content="https://cdn.example.com/2.jpg">
      <meta property="og:image:width" content="1200">
      <meta property="product:price:amount" content="129.00">
      <meta name="og:site_name" content="Shop">
      <meta name="twitter:card" content="summary_large_image">
      <meta property="twitter:site" content="@shop">
      <meta name="twitter:image" content="img/tw.jpg">
      <meta name="description" content="not structured">
    </head><body></body></html>`);
    assert.deepEqual(data, {
      jsonLd: [],
      openGraph: {
        'og:title': 'Trail runner',
        'og:type': 'product',
        'og:image': ['https://shop.example.com/img/1.jpg', 'https://cdn.example.com/2.jpg'],
        'og:image:width': '1200',
        'product:price:amount': '129.00',
        'og:site_name': 'Shop',
      },
      twitter: { 'twitter:card': 'summary_large_image', 'twitter:site': '@shop', 'twitter:image': 'https://shop.example.com/p/img/tw.jpg' },
      microdata: [],
    });
  });
});

describe('metadata.structured', () => {
  test('given JSON-LD blocks (one an array, one broken), then each valid node is kept in page order', () => {
    const data = read(`<html><head>
      <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"X"}</script>
      <script type="application/ld+json">[{"@type":"BreadcrumbList"},{"@type":"Organization","name":"Shop"}]</script>
      <script type="application/ld+json">{ broken </script>
    </head><body></body></html>`);
    assert.deepEqual(data?.jsonLd, [
      { '@context': 'https://schema.org', '@type': 'Product', name: 'X' },
      { '@type': 'BreadcrumbList' },
      { '@type': 'Organization', name: 'Shop' },
    ]);
  });

  test('given a page without structured data, then there is no metadata.structured', () => {
    assert.equal(read('<html><head><title>Plain</title><meta name="description" content="d"></head><body><p>x</p></body></html>'), undefined);
    const out = extractPage({ html: '<html><body><p>x</p></body></html>', url: BASE.href, options: normalizeScrapeOptions({}) });
    assert.equal(out.metadata.structured, undefined);
  });

  test('given a huge JSON-LD block between small ones, then it gives way and the rest stays within the bound', () => {
    const huge = { '@type': 'Dataset', data: 'x'.repeat(5 * 1024 * 1024) };
    const html = `<html><head><meta property="og:title" content="T">
      <script type="application/ld+json">{"@type":"Product","name":"A"}</script>
      <script type="application/ld+json">${JSON.stringify(huge)}</script>
      <script type="application/ld+json">{"@type":"Organization","name":"B"}</script></head><body></body></html>`;
    const out = extractPage({ html, url: BASE.href, options: normalizeScrapeOptions({}) });
    const data = out.metadata.structured!;
    assert.equal(data.truncated, true);
    assert.deepEqual(data.jsonLd, [{ '@type': 'Product', name: 'A' }, { '@type': 'Organization', name: 'B' }]);
    assert.deepEqual(data.openGraph, { 'og:title': 'T' });
    assert.ok(Buffer.byteLength(JSON.stringify(data)) <= 64 * 1024);
  });

  test('given data over the bound, then bound keeps items in page order while they fit', () => {
    const data: StructuredData = { jsonLd: [{ a: 'x'.repeat(40) }, { b: 'y'.repeat(40) }], openGraph: {}, twitter: {}, microdata: [{ type: [], properties: { c: ['z'] } }] };
    const cut = bound(data, 160);
    assert.equal(cut.truncated, true);
    assert.deepEqual(cut.jsonLd, [{ a: 'x'.repeat(40) }]);
    assert.deepEqual(cut.microdata, data.microdata);
    assert.ok(Buffer.byteLength(JSON.stringify(cut)) <= 160);
    assert.equal(bound(data, 10_000), data, 'within the bound: unchanged');
  });

  test('given structured data in the page chrome, then it is read from the whole page, not the main content', () => {
    const html = `<html><head><title>Article</title></head><body>
      <header><div itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Site</span></div></header>
      <main><article><h1>Article</h1>${'<p>Long enough paragraph of article text to be the main content of the page.</p>'.repeat(8)}</article></main>
      </body></html>`;
    const out = extractPage({ html, url: BASE.href, options: normalizeScrapeOptions({ formats: ['markdown'] }) });
    assert.doesNotMatch(out.markdown!, /Site/);
    assert.deepEqual(out.metadata.structured?.microdata, [{ type: ['https://schema.org/Organization'], properties: { name: ['Site'] } }]);
  });
});
