// The extract option's validation: given a request, when the gateway validates it (the
// route's TypeBox schema through Ajv, then normalizeScrapeOptions' semantic checks), then a
// bad schema is a 400 naming the exact field, and a good one is carried (and keyed) as given.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scrapeCacheKey } from '../../../shared/src/domain/cache-key.js';
import { normalizeCrawlRequest } from '../../../shared/src/domain/crawl-options.js';
import { ValidationError } from '../../../shared/src/domain/errors.js';
import { MAX_EXTRACT_DEPTH } from '../../../shared/src/domain/extract-schema.js';
import { normalizeScrapeOptions, ScrapeRequestSchema, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';
import { validatorCompiler } from '../../../shared/src/api/validation.js';

const validate = validatorCompiler({ schema: ScrapeRequestSchema, httpPart: 'body', method: 'POST', url: '/scrape' });

/** The ValidationError the gateway answers with (schema first, then semantics), or null. */
function check(body: Record<string, unknown>): ValidationError | null {
  const result = validate({ url: 'https://example.com/', ...body }) as { error?: ValidationError };
  if (result.error) return result.error;
  try {
    normalizeScrapeOptions(body as ScrapeOptionsInput);
    return null;
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
}

const withSchema = (schema: unknown) => ({ formats: ['extract'], extract: { schema } });

function assertRejected(body: Record<string, unknown>, field: string, message?: RegExp) {
  const err = check(body);
  assert.ok(err, `expected a 400 naming ${field}`);
  assert.equal(err.status, 400);
  assert.equal(err.field, field, err.message);
  if (message) assert.match(err.message, message);
}

describe('extract schema validation', () => {
  test('given a full schema, then it is accepted and carried as given', () => {
    const schema = {
      baseSelector: '.product',
      maxItems: 50,
      fields: {
        name: { selector: 'h2', required: true },
        price: { selector: '.price', type: 'number', default: 0 },
        link: { selector: 'a', type: 'url' },
        sku: { type: 'attribute', attribute: 'data-sku' },
        inStock: { selector: '.in-stock', type: 'boolean' },
        tags: { selector: '.tag', list: true, maxItems: 5 },
        seller: { selector: '.seller', type: 'object', fields: { name: { selector: '.name' } } },
      },
    };
    assert.equal(check(withSchema(schema)), null);
    assert.deepEqual(normalizeScrapeOptions({ formats: ['extract', 'markdown'], extract: { schema } } as ScrapeOptionsInput).extract, { schema });
    assert.deepEqual(normalizeScrapeOptions({ formats: ['extract', 'markdown'], extract: { schema } } as ScrapeOptionsInput).formats, ['markdown', 'extract']);
  });

  test('given an invalid selector, then the 400 names its path', () => {
    assertRejected(withSchema({ fields: { price: { selector: 'div[' } } }), 'extract.schema.fields.price.selector', /not a valid CSS selector/);
    assertRejected(withSchema({ baseSelector: 'p:first', fields: { a: {} } }), 'extract.schema.baseSelector');
    assertRejected(withSchema({ fields: { seller: { selector: '.s', type: 'object', fields: { name: { selector: 'div[x' } } } } }), 'extract.schema.fields.seller.fields.name.selector');
  });

  test('given a selector css-what parses but the DOM cannot run, then the 400 names it', () => {
    assertRejected(withSchema({ fields: { a: { selector: 'a::before' } } }), 'extract.schema.fields.a.selector', /can run/);
  });

  test('given kind-specific mistakes, then each names the field to fix', () => {
    assertRejected(withSchema({ fields: { sku: { type: 'attribute' } } }), 'extract.schema.fields.sku.attribute', /required when type is "attribute"/);
    assertRejected(withSchema({ fields: { t: { type: 'html', attribute: 'x' } } }), 'extract.schema.fields.t.attribute');
    assertRejected(withSchema({ fields: { o: { type: 'object' } } }), 'extract.schema.fields.o.fields');
    assertRejected(withSchema({ fields: { o: { fields: { a: {} } } } }), 'extract.schema.fields.o.fields', /only applies to type "object"/);
    assertRejected(withSchema({ fields: { p: { type: 'number', default: 'zero' } } }), 'extract.schema.fields.p.default', /must be a number/);
    assertRejected(withSchema({ fields: { p: { list: true, default: 'x' } } }), 'extract.schema.fields.p.default');
    assertRejected(withSchema({ fields: { p: { maxItems: 3 } } }), 'extract.schema.fields.p.maxItems');
    assertRejected(withSchema({ fields: { p: { type: 'date' } } }), 'extract.schema.fields.p.type', /must be one of: text, html, attribute, url, number, boolean, object/);
    assertRejected(withSchema({ fields: { p: { selector: 'a', color: 'red' } } }), 'extract.schema.fields.p.color', /not a known field/);
  });

  test('given bad shapes, then the schema names them', () => {
    assertRejected(withSchema({ fields: {} }), 'extract.schema.fields');
    assertRejected(withSchema({}), 'extract.schema.fields', /required/);
    assertRejected({ formats: ['extract'], extract: {} }, 'extract.schema', /required/);
    assertRejected(withSchema({ fields: { 'bad name': {} } }), 'extract.schema.fields.bad name', /a field name is a letter/);
    assertRejected(withSchema({ fields: { a: { default: {} } } }), 'extract.schema.fields.a.default', /must be of type string,number,boolean,null/);
    assertRejected(withSchema({ fields: { a: { selector: 5 } } }), 'extract.schema.fields.a.selector', /must be of type string/);
  });

  test('given nesting deeper than the bound, then it is refused at the first level too deep', () => {
    let fields: Record<string, unknown> = { leaf: {} };
    for (let i = 0; i <= MAX_EXTRACT_DEPTH; i++) fields = { [`l${i}`]: { type: 'object', fields } };
    assertRejected(withSchema({ fields }), 'extract.schema.fields.l4.fields.l3.fields.l2.fields.l1.fields.l0.fields', /objects nest at most 4 levels/);
    // One level less is fine.
    assert.equal(check(withSchema({ fields: (fields.l4 as { fields: Record<string, unknown> }).fields })), null);
  });

  test('given more fields than the bound, then it is refused', () => {
    const many = (n: number, prefix: string) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, {}]));
    const fields = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`o${i}`, { type: 'object', fields: many(45, 'f') }]));
    assertRejected(withSchema({ fields }), 'extract.schema.fields.o4.fields.f15', /more than 200 fields/);
  });

  test('given the format without the schema or the schema without the format, then 400', () => {
    assertRejected({ formats: ['markdown', 'extract'] }, 'extract', /needs an extraction schema/);
    assertRejected({ formats: ['markdown'], extract: { schema: { fields: { a: {} } } } }, 'formats', /does not include "extract"/);
    assertRejected({ extract: { schema: { fields: { a: {} } } } }, 'formats');
  });

  test('given a crawl, then the paths are under scrapeOptions', () => {
    assert.throws(
      () => normalizeCrawlRequest({ url: 'https://example.com/', scrapeOptions: { formats: ['extract'], extract: { schema: { fields: { a: { type: 'attribute' } } } } } as never }),
      (err: unknown) => err instanceof ValidationError && err.field === 'scrapeOptions.extract.schema.fields.a.attribute',
    );
  });
});

describe('extract in the cache key', () => {
  const key = (schema?: unknown) => scrapeCacheKey('https://example.com/', normalizeScrapeOptions(schema ? { formats: ['markdown', 'extract'], extract: { schema } } as ScrapeOptionsInput : {}), 'k');

  test('given different schemas, then different keys; the same schema, the same key', () => {
    const a = key({ fields: { title: { selector: 'h1' } } });
    assert.notEqual(a, key({ fields: { title: { selector: 'h2' } } }));
    assert.equal(a, key({ fields: { title: { selector: 'h1' } } }));
    assert.notEqual(a, key());
  });

  test('given no extract, then the key is the one it always was (existing cache entries stay valid)', () => {
    assert.equal(key(), scrapeCacheKey('https://example.com/', normalizeScrapeOptions({ formats: ['markdown'] }), 'k'));
  });
});
