// Events stay compatible across documents: page_fetched and page_requested written before
// documents existed (rawHtml always, no `document`, no parsers/maxPages) still validate
// and keep their cache key; the new shapes validate; options resolve as documented.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scrapeCacheKey } from '../../../shared/src/domain/cache-key.js';
import { validateEventData } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions, parsersOf } from '../../../shared/src/domain/scrape-options.js';

const ref = (name: string, contentType: string) => ({ bucket: 'trawl-payloads', name, size: 10, contentType });
const timings = { queueWaitMs: 0, fetchMs: 5, renderMs: 0, screenshotMs: 0, engine: 'http' as const };

describe('document events and options', () => {
  test('given a page_fetched from before documents (rawHtml, no document), then it still validates', () => {
    assert.doesNotThrow(() => validateEventData('page_fetched', {
      finalUrl: 'https://example.com/', statusCode: 200, contentType: 'text/html', rawHtml: ref('scrape/a/p/raw.html', 'text/html'),
      timings, fetchedAt: '2026-01-01T00:00:00.000Z',
    }));
  });

  test('given a document page_fetched (document, no rawHtml), then it validates; an unknown type does not', () => {
    const data = {
      finalUrl: 'https://example.com/download?id=7', statusCode: 200, contentType: 'application/octet-stream',
      document: { ref: ref('scrape/a/p/document', 'application/pdf'), type: 'pdf' }, timings, fetchedAt: '2026-01-01T00:00:00.000Z',
    };
    assert.doesNotThrow(() => validateEventData('page_fetched', data));
    assert.throws(() => validateEventData('page_fetched', { ...data, document: { ...data.document, type: 'exe' } }));
  });

  test('given a request without parsers or maxPages, then the resolved options and the cache key are what they were', () => {
    const plain = normalizeScrapeOptions({ formats: ['markdown'] });
    assert.equal('parsers' in plain, false);
    assert.equal('maxPages' in plain, false);
    assert.deepEqual(parsersOf(plain), ['pdf', 'docx']);
    // Naming the default parsers is the same request.
    const named = normalizeScrapeOptions({ formats: ['markdown'], parsers: ['docx', 'pdf'] });
    assert.equal(scrapeCacheKey('https://example.com/', named, 'k'), scrapeCacheKey('https://example.com/', plain, 'k'));
    assert.doesNotThrow(() => validateEventData('page_requested', { url: 'https://example.com/', options: plain, apiKeyId: 'k', depth: 0, requestedAt: '2026-01-01T00:00:00.000Z' }));
  });

  test('given parsers false, [] or a subset, and maxPages, then they resolve canonically and change the cache key', () => {
    const none = normalizeScrapeOptions({ parsers: false });
    assert.deepEqual(none.parsers, []);
    assert.deepEqual(normalizeScrapeOptions({ parsers: [] }).parsers, []);
    assert.deepEqual(normalizeScrapeOptions({ parsers: ['pdf'] }).parsers, ['pdf']);
    assert.equal(normalizeScrapeOptions({ maxPages: 5 }).maxPages, 5);
    const plain = normalizeScrapeOptions({});
    assert.notEqual(scrapeCacheKey('https://example.com/', none, 'k'), scrapeCacheKey('https://example.com/', plain, 'k'));
    assert.notEqual(scrapeCacheKey('https://example.com/', normalizeScrapeOptions({ maxPages: 5 }), 'k'), scrapeCacheKey('https://example.com/', plain, 'k'));
  });
});
