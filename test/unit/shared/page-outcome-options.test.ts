// The page outcome's scrape options (docs/api.md "Page outcome"): acceptOutcomes and consent
// resolve to one canonical form (absent when not given, so older requests keep their cache
// key), and consent needs the browser.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationError } from '../../../shared/src/domain/errors.js';
import { browserOnlyOptions, normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';

test('acceptOutcomes and consent are absent unless given; acceptOutcomes is sorted', () => {
  const plain = normalizeScrapeOptions({});
  assert.equal('acceptOutcomes' in plain || 'consent' in plain, false);
  assert.equal('acceptOutcomes' in normalizeScrapeOptions({ acceptOutcomes: [] }), false);
  const given = normalizeScrapeOptions({ acceptOutcomes: ['empty', 'challenge'], consent: 'reject' });
  assert.deepEqual([given.acceptOutcomes, given.consent], [['challenge', 'empty'], 'reject']);
});

test('consent needs the browser: engine http refuses it, auto sends the page to the browser', () => {
  assert.throws(() => normalizeScrapeOptions({ engine: 'http', consent: 'reject' }), (err: unknown) => err instanceof ValidationError && /consent/.test(err.message));
  assert.deepEqual(browserOnlyOptions(normalizeScrapeOptions({ engine: 'auto', consent: 'accept' })), ['consent']);
});
