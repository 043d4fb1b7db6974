// Conditional fetches, the pure part: which validators a response gives, and when the key's
// last observation of a URL may answer a 304 for a request (shared/src/domain/conditional-fetch.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { conditionalBasis, conditionalHeaders, contentFormats, resultOptionsHash, skipOnLastmod, storedBasis, validatorsOf } from '../../../shared/src/domain/conditional-fetch.js';
import type { UrlObserved } from '../../../shared/src/domain/events/index.js';
import { pageResult, resultStoredAt } from '../../../shared/src/domain/reused-result.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';

const DAY = 86_400_000;
const limits = { payloadTtlMs: 7 * DAY, baselineTtlMs: 30 * DAY };
const now = new Date('2026-03-10T00:00:00.000Z');

function observation(over: Partial<UrlObserved> = {}, asked = normalizeScrapeOptions({})): { seq: number; data: UrlObserved } {
  return {
    seq: 42,
    data: {
      apiKeyId: 'k1', url: 'https://example.com/a', source: { kind: 'crawl', jobId: 'j1', part: 'p1' },
      observedAt: '2026-03-09T00:00:00.000Z', statusCode: 200, state: 'present', markdownHash: 'h', changeStatus: 'new',
      baseline: { bucket: 'trawl-baselines', name: 'k1/p/h.md', size: 1, contentType: 'text/markdown' },
      validators: { etag: '"v1"' }, resultOptionsHash: resultOptionsHash(asked), formats: contentFormats(asked),
      ...over,
    },
  };
}

test('validators: ETag and Last-Modified when sent, trimmed; none without them or when absurdly long', () => {
  assert.deepEqual(validatorsOf({ etag: ' "a" ', 'last-modified': 'Wed, 01 Jan 2025 00:00:00 GMT' }), { etag: '"a"', lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT' });
  assert.deepEqual(validatorsOf({ etag: 'W/"weak"' }), { etag: 'W/"weak"' });
  assert.equal(validatorsOf({ 'content-type': 'text/html' }), undefined);
  assert.equal(validatorsOf({ etag: 'x'.repeat(300) }), undefined);
  assert.deepEqual(conditionalHeaders({ etag: '"a"', lastModified: 'L' }), { 'if-none-match': '"a"', 'if-modified-since': 'L' });
});

test('a present observation with validators, the same options and the formats asked is a basis', () => {
  const basis = conditionalBasis(observation(), normalizeScrapeOptions({}), now, limits);
  assert.deepEqual(basis?.validators, { etag: '"v1"' });
  assert.equal(basis?.observationSeq, 42);
  assert.deepEqual(basis?.source, { kind: 'crawl', jobId: 'j1', part: 'p1' });
  // engine, timeout and the change-tracking format do not matter; markdown is in the baseline.
  const asked = normalizeScrapeOptions({ formats: ['changeTracking'], engine: 'http', timeout: 5000 });
  assert.ok(conditionalBasis(observation({}, normalizeScrapeOptions({ formats: ['links'] })), normalizeScrapeOptions({ formats: ['markdown', 'links'] }), now, limits));
  assert.ok(conditionalBasis(observation(), asked, now, limits));
});

test('no basis: turned off, no observation, gone, no validators, other options, missing formats, too old', () => {
  const options = normalizeScrapeOptions({});
  assert.equal(conditionalBasis(observation(), normalizeScrapeOptions({ conditional: false }), now, limits), undefined);
  assert.equal(conditionalBasis(null, options, now, limits), undefined);
  assert.equal(conditionalBasis(observation({ state: 'gone' }), options, now, limits), undefined);
  const { validators: _v, ...withoutValidators } = observation().data;
  assert.equal(conditionalBasis({ seq: 1, data: withoutValidators }, options, now, limits), undefined);
  assert.equal(conditionalBasis(observation(), normalizeScrapeOptions({ onlyMainContent: false }), now, limits), undefined);
  assert.equal(conditionalBasis(observation(), normalizeScrapeOptions({ formats: ['markdown', 'html'] }), now, limits), undefined);
  // Half the stored result's lifetime (7 days) at most.
  assert.ok(conditionalBasis(observation({ observedAt: new Date(now.getTime() - 3 * DAY).toISOString() }), options, now, limits));
  assert.equal(conditionalBasis(observation({ observedAt: new Date(now.getTime() - 4 * DAY).toISOString() }), options, now, limits), undefined);
  assert.ok(conditionalBasis(observation({ observedAt: '2020-01-01T00:00:00.000Z' }), options, now, { payloadTtlMs: 0, baselineTtlMs: 0 }));
});

test('`conditional` is carried only when false', () => {
  assert.equal(normalizeScrapeOptions({}).conditional, undefined);
  assert.equal(normalizeScrapeOptions({ conditional: true }).conditional, undefined);
  assert.equal(normalizeScrapeOptions({ conditional: false }).conditional, false);
});

test('sitemap lastmod: skip when not newer than the observation; a page without validators can still be skipped', () => {
  const observed = { observedAt: '2026-03-09T00:00:00.000Z' };
  assert.equal(skipOnLastmod('2026-03-01', observed), true);
  assert.equal(skipOnLastmod('2026-03-09T00:00:00Z', observed), true, 'equal is not newer');
  assert.equal(skipOnLastmod('2026-03-09T01:00:00+02:00', observed), true, 'time zones: 23:00Z the day before');
  assert.equal(skipOnLastmod('2026-03-09T00:00:01Z', observed), false);
  assert.equal(skipOnLastmod(null, observed), false);
  assert.equal(skipOnLastmod('last tuesday', observed), false, 'unreadable: fetch');
  const { validators: _v, ...rendered } = observation().data;
  assert.ok(storedBasis({ seq: 1, data: rendered }, normalizeScrapeOptions({}), now, limits));
  assert.equal(conditionalBasis({ seq: 1, data: rendered }, normalizeScrapeOptions({}), now, limits), undefined);
});

test('a 304\'s observation names an older result: its age counts from when that result was stored', () => {
  const options = normalizeScrapeOptions({});
  const fresh = new Date(now.getTime() - DAY).toISOString();
  // Observed yesterday, but its result was stored four days ago: past half of its 7 days.
  assert.equal(conditionalBasis(observation({ observedAt: fresh, resultStoredAt: new Date(now.getTime() - 4 * DAY).toISOString() }), options, now, limits), undefined);
  const basis = conditionalBasis(observation({ observedAt: fresh, resultStoredAt: new Date(now.getTime() - 2 * DAY).toISOString() }), options, now, limits);
  assert.equal(basis?.resultStoredAt, new Date(now.getTime() - 2 * DAY).toISOString());
  assert.deepEqual(basis?.formats, ['markdown']);
  assert.equal(conditionalBasis(observation(), options, now, limits)?.resultStoredAt, '2026-03-09T00:00:00.000Z', 'a result stored when observed');
});

test('a reused result reads as a copy would: the formats asked of it and its own change report; payloads age from when it was stored', () => {
  const stored = { markdown: '# A', html: '<h1>A</h1>', links: ['https://example.com/b'], changeTracking: { observed: true, changeStatus: 'new' as const, previousScrapeAt: null } };
  const report = { observed: true, changeStatus: 'same' as const, previousScrapeAt: '2026-03-09T00:00:00.000Z', notModified: true };
  assert.deepEqual(pageResult(stored, { reusedResult: { formats: ['markdown'], storedAt: '2026-03-09T00:00:00.000Z', changeTracking: report } }), { markdown: '# A', changeTracking: report });
  assert.deepEqual(pageResult(stored, { reusedResult: { formats: ['links'], storedAt: '2026-03-09T00:00:00.000Z' } }), { links: ['https://example.com/b'] }, 'no stale report');
  assert.equal(pageResult(stored, {}), stored, 'a result of its own is as stored');
  assert.equal(resultStoredAt({ completedAt: '2026-03-10T00:00:00.000Z', reusedResult: { formats: [], storedAt: '2026-03-09T00:00:00.000Z' } }), '2026-03-09T00:00:00.000Z');
  assert.equal(resultStoredAt({ completedAt: '2026-03-10T00:00:00.000Z' }), '2026-03-10T00:00:00.000Z');
});
