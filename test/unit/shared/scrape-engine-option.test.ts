// The `engine` scrape option: kept only when asked for (the fetcher applies the per-kind
// default), and engine http refused with options only a browser can honour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationError } from '../../../shared/src/domain/errors.js';
import { normalizeCrawlRequest } from '../../../shared/src/domain/crawl-options.js';
import { browserOnlyOptions, normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';

test('engine is carried only when the request names it', () => {
  assert.equal(normalizeScrapeOptions({}).engine, undefined);
  assert.equal(normalizeScrapeOptions({ engine: 'auto' }).engine, 'auto');
  assert.equal(normalizeScrapeOptions({ engine: 'http', mobile: true, headers: { a: 'b' } }).engine, 'http');
});

test('engine http with browser-only options is a validation error naming them and the field', () => {
  assert.throws(
    () => normalizeScrapeOptions({ engine: 'http', formats: ['markdown', 'screenshot'], waitFor: '#x' }),
    (err: unknown) => err instanceof ValidationError && err.field === 'engine' && err.status === 400
      && /engine "http" fetches without a browser, but the screenshot format, waitFor need one/.test(err.message),
  );
  assert.throws(
    () => normalizeCrawlRequest({ url: 'https://example.com/', scrapeOptions: { engine: 'http', darkMode: true } }),
    (err: unknown) => err instanceof ValidationError && err.field === 'scrapeOptions.engine' && /darkMode needs one/.test(err.message),
  );
  // browser and auto take them all
  assert.doesNotThrow(() => normalizeScrapeOptions({ engine: 'auto', actions: [{ type: 'wait', milliseconds: 1 }], viewport: { width: 500 } }));
});

test('a viewport equal to the default needs no browser, at validation and in the fetcher alike', () => {
  // One rule: validation once refused what the fetcher would have served over HTTP.
  for (const viewport of [{ width: 1280, height: 800 }, { width: 1280 }, { height: 800 }]) {
    const options = normalizeScrapeOptions({ engine: 'http', viewport });
    assert.deepEqual(browserOnlyOptions(options), []);
  }
  assert.deepEqual(browserOnlyOptions(normalizeScrapeOptions({ viewport: { height: 801 } })), ['viewport']);
  assert.throws(() => normalizeScrapeOptions({ engine: 'http', viewport: { height: 801 } }), /viewport needs one/);
});

test('what the fetcher sees: resolved options that need a browser', () => {
  assert.deepEqual(browserOnlyOptions(normalizeScrapeOptions({})), []);
  assert.deepEqual(browserOnlyOptions(normalizeScrapeOptions({ mobile: true, device: 'tablet', headers: { x: 'y' } })), []);
  assert.deepEqual(
    browserOnlyOptions(normalizeScrapeOptions({ formats: ['screenshot'], actions: [{ type: 'scroll' }], waitFor: 10, darkMode: true, viewport: { width: 600 } })),
    ['the screenshot format', 'actions', 'waitFor', 'darkMode', 'viewport'],
  );
});
