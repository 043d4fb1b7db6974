// The engine a page asks for: the request's engine, else its job kind's default; a server
// default of http never refuses options that need a browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENGINE_DEFAULTS, normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { resolveEngine } from '../../../services/fetcher/src/engine/resolve-engine.js';

test('the request names the engine: it is the one asked for, whatever the job kind', () => {
  assert.deepEqual(resolveEngine('crawl', normalizeScrapeOptions({ engine: 'browser' }), ENGINE_DEFAULTS), { requested: 'browser', browserNeeds: [] });
  assert.deepEqual(resolveEngine('scrape', normalizeScrapeOptions({ engine: 'http', mobile: true }), ENGINE_DEFAULTS), { requested: 'http', browserNeeds: [] });
});

test('no engine named: the job kind default applies', () => {
  const plain = normalizeScrapeOptions({});
  assert.equal(resolveEngine('scrape', plain, ENGINE_DEFAULTS).requested, 'browser');
  assert.equal(resolveEngine('crawl', plain, ENGINE_DEFAULTS).requested, 'auto');
  assert.equal(resolveEngine('batch', plain, ENGINE_DEFAULTS).requested, 'auto');
  assert.equal(resolveEngine('map', plain, ENGINE_DEFAULTS).requested, 'browser');
});

test('a server default of http with options that need a browser becomes auto, naming them', () => {
  const httpEverywhere = { scrape: 'http', crawl: 'http', batch: 'http', map: 'http' } as const;
  assert.deepEqual(resolveEngine('scrape', normalizeScrapeOptions({ formats: ['screenshot'], darkMode: true }), httpEverywhere), { requested: 'auto', browserNeeds: ['the screenshot format', 'darkMode'] });
  assert.deepEqual(resolveEngine('scrape', normalizeScrapeOptions({ viewport: { width: 1280 } }), httpEverywhere), { requested: 'http', browserNeeds: [] });
});
