import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scrapeCacheKey } from '../../../shared/src/domain/cache-key.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';

const key = (opts: Parameters<typeof normalizeScrapeOptions>[0], apiKey = 'k1', url = 'https://example.com/a') => scrapeCacheKey(url, normalizeScrapeOptions(opts), apiKey);

test('same request, same key; format order and header name case do not matter', () => {
  assert.equal(key({}), key({ formats: ['markdown'] }));
  assert.equal(key({ formats: ['links', 'markdown'] }), key({ formats: ['markdown', 'links'] }));
  assert.equal(key({ headers: { 'X-A': '1' } }), key({ headers: { 'x-a': '1' } }));
  assert.match(key({}), /^[0-9a-f]{64}$/);
});

test('options that change the result change the key', () => {
  const base = key({});
  for (const o of [
    { formats: ['html'] as const }, { onlyMainContent: false }, { includeTags: ['main'] }, { excludeTags: ['nav'] },
    { viewport: { width: 800 } }, { mobile: true }, { device: 'tablet' as const }, { darkMode: true }, { waitFor: 100 },
    { actions: [{ type: 'click' as const, selector: '#more' }] }, { headers: { 'x-a': '1' } },
  ]) assert.notEqual(key(o as never), base, JSON.stringify(o));
  assert.notEqual(key({}, 'k1', 'https://example.com/b'), base);
});

test('timeout, screenshot response form and conditional do not', () => {
  assert.equal(key({ timeout: 60000 }), key({}));
  assert.equal(key({ conditional: false }), key({}));
  assert.equal(key({ formats: ['screenshot'], screenshotOptions: { response: 'base64' } }), key({ formats: ['screenshot'] }));
  assert.notEqual(key({ formats: ['screenshot'], screenshotOptions: { fullPage: true } }), key({ formats: ['screenshot'] }));
});

test('shared across keys, except when custom headers are sent', () => {
  assert.equal(key({}, 'k1'), key({}, 'k2'));
  assert.notEqual(key({ headers: { cookie: 'a=1' } }, 'k1'), key({ headers: { cookie: 'a=1' } }, 'k2'));
});
