// The extract format's evaluation (packages/extract/src/schema-extract.ts): given a page and a
// schema, when the transformer runs, then json holds what the schema's selectors found.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ExtractSchemaInput } from '../../../shared/src/domain/extract-schema.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { extractJson, parseNumber } from '../../../packages/extract/src/schema-extract.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const PAGE_URL = 'https://shop.example.com/catalog/shoes/';

const CATALOG = `<!doctype html><html><head><title>Shoes</title><base href="/catalog/"></head><body>
<h1>  Running
   shoes </h1>
<div class="product" data-sku="A-1">
  <h2><a href="a-1.html">Trail runner</a></h2>
  <span class="price">$1,299.99</span>
  <img src="//cdn.example.com/a1.jpg" alt="A1">
  <span class="tag">trail</span><span class="tag">  </span><span class="tag">waterproof</span>
  <div class="seller"><span class="name">Acme</span><a class="site" href="https://acme.example/">site</a></div>
  <span class="stock in"></span>
</div>
<div class="product" data-sku="B-2">
  <h2><a href="javascript:void(0)">Road racer</a></h2>
  <span class="price">1.299,50 €</span>
  <div class="seller"><span class="name"></span></div>
</div>
<div class="product ad"><span class="price">Sponsored</span></div>
<p class="note">Free <b>shipping</b></p>
</body></html>`;

function run(schema: ExtractSchemaInput, html = CATALOG, maxChars?: number) {
  return extractJson(parseDocument(html), schema, new URL('https://shop.example.com/catalog/'), maxChars);
}

describe('extract: fields of a single object', () => {
  test('given text, html and attribute fields, then whitespace is collapsed and the first match wins', () => {
    const { json, truncated } = run({
      fields: {
        title: { selector: 'h1' },
        firstPrice: { selector: '.price' },
        note: { selector: '.note', type: 'html' },
        sku: { selector: '.product', type: 'attribute', attribute: 'data-sku' },
      },
    });
    assert.deepEqual(json, { title: 'Running shoes', firstPrice: '$1,299.99', note: 'Free <b>shipping</b>', sku: 'A-1' });
    assert.equal(truncated, false);
  });

  test('given url fields, then href/src resolve against <base href>, and non-http(s) links are null', () => {
    const { json } = run({
      baseSelector: '.product:not(.ad)',
      fields: { link: { selector: 'h2 a', type: 'url' }, image: { selector: 'img', type: 'url' }, seller: { selector: '.site', type: 'url', attribute: 'href' } },
    });
    assert.deepEqual(json, [
      { link: 'https://shop.example.com/catalog/a-1.html', image: 'https://cdn.example.com/a1.jpg', seller: 'https://acme.example/' },
      { link: null, image: null, seller: null },
    ]);
  });

  test('given number fields, then prices in either convention parse, and text without digits is null', () => {
    const { json } = run({ baseSelector: '.product', fields: { price: { selector: '.price', type: 'number' } } });
    assert.deepEqual(json, [{ price: 1299.99 }, { price: 1299.5 }, { price: null }]);
  });

  test('given boolean fields, then they say whether the selector (and attribute) matched', () => {
    const { json } = run({
      baseSelector: '.product',
      maxItems: 2,
      fields: { inStock: { selector: '.stock.in', type: 'boolean' }, hasSku: { type: 'boolean', attribute: 'data-sku' } },
    });
    assert.deepEqual(json, [{ inStock: true, hasSku: true }, { inStock: false, hasSku: true }]);
  });

  test('given missing elements, then the value is the default, else null', () => {
    const { json } = run({
      fields: {
        missing: { selector: '.nope' },
        withDefault: { selector: '.nope', default: 'n/a' },
        emptyText: { selector: '.seller .name', default: 'unknown' },
        count: { selector: '.nope', type: 'number', default: 0 },
      },
    }, '<html><body><div class="seller"><span class="name"> </span></div></body></html>');
    assert.deepEqual(json, { missing: null, withDefault: 'n/a', emptyText: 'unknown', count: 0 });
  });
});

describe('extract: lists and nested objects', () => {
  test('given a baseSelector, then json is one object per match, and required drops items lacking the field', () => {
    const { json } = run({
      baseSelector: '.product',
      fields: {
        name: { selector: 'h2', required: true },
        sku: { type: 'attribute', attribute: 'data-sku' },
        tags: { selector: '.tag', list: true },
        seller: { selector: '.seller', type: 'object', fields: { name: { selector: '.name' }, site: { selector: '.site', type: 'url' } } },
      },
    });
    assert.deepEqual(json, [
      { name: 'Trail runner', sku: 'A-1', tags: ['trail', 'waterproof'], seller: { name: 'Acme', site: 'https://acme.example/' } },
      { name: 'Road racer', sku: 'B-2', tags: [], seller: { name: null, site: null } },
    ]);
  });

  test('given a list of objects with maxItems, then at most that many, in page order', () => {
    const { json } = run({
      fields: { products: { selector: '.product', list: true, maxItems: 2, type: 'object', fields: { price: { selector: '.price', type: 'number' } } } },
    });
    assert.deepEqual(json, { products: [{ price: 1299.99 }, { price: 1299.5 }] });
  });

  test('given a field named __proto__, then it is a key of json like any other', () => {
    // (The gateway's JSON parser refuses "__proto__" keys; the transformer must not depend on it.)
    const { json } = run(JSON.parse('{"fields":{"__proto__":{"selector":"h1"}}}'));
    assert.deepEqual(Object.keys(json as object), ['__proto__']);
    assert.equal(JSON.stringify(json), '{"__proto__":"Running shoes"}');
  });

  test('given a required field missing at the top level, then json is null', () => {
    assert.equal(run({ fields: { title: { selector: 'h1' }, price: { selector: '#price', required: true } } }).json, null);
  });

  test('given a page bigger than the output bound, then lists stop, strings are cut and truncated is set', () => {
    const html = `<html><body>${'<p>0123456789</p>'.repeat(50)}</body></html>`;
    const { json, truncated } = run({ fields: { paragraphs: { selector: 'p', list: true } } }, html, 45);
    assert.deepEqual(json, { paragraphs: ['0123456789', '0123456789', '0123456789', '0123456789', '01234'] });
    assert.equal(truncated, true);
  });

  test('given lists of empty objects (no text to count), then the item bound stops them and truncated is set', () => {
    // Nested lists of `div` multiply: without an item bound, empty objects grow without any text.
    const html = `<html><body>${'<div><div></div><div></div><div></div></div>'.repeat(20)}</body></html>`;
    const schema: ExtractSchemaInput = { baseSelector: 'div', fields: { inner: { selector: 'div', list: true, type: 'object', fields: { none: { selector: 'i' } } } } };
    const whole = extractJson(parseDocument(html), schema, new URL('https://shop.example.com/'));
    assert.equal(whole.truncated, false);
    const bounded = extractJson(parseDocument(html), schema, new URL('https://shop.example.com/'), undefined, 30);
    const items = (bounded.json as Array<{ inner: unknown[] }>).reduce((n, item) => n + 1 + item.inner.length, 0);
    assert.equal(items, 30, 'base items and inner items together');
    assert.equal(bounded.truncated, true);
  });
});

describe('extract: numbers', () => {
  const cases: Array<[string, number | null]> = [
    ['$1,299.99', 1299.99], ['1.299,99 €', 1299.99], ['12,50', 12.5], ['1 234', 1234], ['1\u00a0234,5', 1234.5], ['-3', -3],
    ['1,234', 1234], ['1.5', 1.5], ['1,234,567', 1234567], ['1.234.567', 1234567], ['4.5 out of 5', 4.5], ['Rating: 17.', 17], ['sizes 10 12', 10],
    ['no digits', null], ['', null],
  ];
  for (const [text, expected] of cases) {
    test(`given ${JSON.stringify(text)}, then ${expected}`, () => assert.equal(parseNumber(text), expected));
  }
});

describe('extract: through extractPage', () => {
  test('given the extract format, then json is computed on the whole page even with onlyMainContent', () => {
    const options = normalizeScrapeOptions({ formats: ['markdown', 'extract'], extract: { schema: { fields: { sku: { selector: '.product', type: 'attribute', attribute: 'data-sku' }, title: { selector: 'title' } } } } });
    const out = extractPage({ html: CATALOG, url: PAGE_URL, options });
    assert.deepEqual(out.json, { sku: 'A-1', title: 'Shoes' });
    assert.ok(out.markdown);
  });

  test('given no extract format, then no json', () => {
    const out = extractPage({ html: CATALOG, url: PAGE_URL, options: normalizeScrapeOptions({ formats: ['links'] }) });
    assert.equal(out.json, undefined);
  });
});
