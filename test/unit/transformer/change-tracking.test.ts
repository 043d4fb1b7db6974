// Change tracking's pure pieces, given/when/then: which answers are observations, the
// status decision, the unified diff, and the observation chain under redelivery.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyPatch } from 'diff';
import { contentOptionsHash, decideChangeStatus, observedState, type ObservedContent } from '../../../shared/src/domain/change-tracking.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { nextStep, summarize, type PageSource, type StoredObservation } from '../../../shared/src/domain/observations/chain.js';
import { buildDiff } from '../../../shared/src/domain/observations/diff.js';
import type { UrlObserved } from '../../../shared/src/domain/events/index.js';

const present = (markdownHash: string): ObservedContent => ({ state: 'present', markdownHash });
const gone: ObservedContent = { state: 'gone' };

describe('change tracking: which answers are observations', () => {
  test('given 2xx or 3xx, then the page is present', () => {
    for (const code of [200, 203, 204, 301]) assert.equal(observedState(code), 'present');
  });
  test('given 404 or 410, then the page is gone', () => {
    assert.equal(observedState(404), 'gone');
    assert.equal(observedState(410), 'gone');
  });
  test('given any other error, then it is no observation (an error page is not the page)', () => {
    for (const code of [400, 401, 403, 429, 500, 502, 503]) assert.equal(observedState(code), null);
  });
});

describe('change tracking: the status decision', () => {
  const cases: [string, ObservedContent | undefined, ObservedContent, string][] = [
    ['no earlier observation, present now', undefined, present('a'), 'new'],
    ['the same markdown as before', present('a'), present('a'), 'same'],
    ['different markdown', present('a'), present('b'), 'changed'],
    ['present before, 404/410 now', present('a'), gone, 'removed'],
    ['gone before and still gone', gone, gone, 'same'],
    ['gone before, back now', gone, present('a'), 'new'],
    ['never seen and gone', undefined, gone, 'new'],
  ];
  for (const [given, previous, current, expected] of cases) {
    test(`given ${given}, then ${expected}`, () => assert.equal(decideChangeStatus(previous, current), expected));
  }
});

describe('change tracking: the unified diff', () => {
  test('given two versions, then a unified diff that turns the first into the second', () => {
    const before = '# Prices\n\nStarter: $9/mo\nPro: $29/mo\n\nContact us';
    const after = '# Prices\n\nStarter: $12/mo\nPro: $29/mo\n\nContact us';
    const out = buildDiff({ markdown: before, label: '2026-01-01T00:00:00.000Z' }, { markdown: after, label: '2026-01-08T00:00:00.000Z' });
    assert.ok('diff' in out);
    assert.match(out.diff, /^--- previous\t2026-01-01T00:00:00\.000Z\n/, 'starts with the file headers, as diff -u prints');
    assert.match(out.diff, /^\+\+\+ current\t2026-01-08T00:00:00\.000Z$/m);
    assert.match(out.diff, /^-Starter: \$9\/mo$/m);
    assert.match(out.diff, /^\+Starter: \$12\/mo$/m);
    assert.match(out.diff, /^@@ -1,6 \+1,6 @@$/m);
    assert.doesNotMatch(out.diff, /No newline at end of file/);
    assert.equal(applyPatch(`${before}\n`, out.diff), `${after}\n`);
  });
  test('given a diff past its time cap, then too_large instead of blocking', () => {
    const lines = (seed: number) => Array.from({ length: 40_000 }, (_, i) => `line ${(i * seed) % 9973} ${i % 7}`).join('\n');
    const out = buildDiff({ markdown: lines(7), label: 'a' }, { markdown: lines(13), label: 'b' }, 1);
    assert.deepEqual(out, { diffUnavailable: 'too_large' });
  });
});

const source: PageSource = { kind: 'scrape', jobId: 'job-b', part: 'p' };
function observation(seq: number, data: Partial<UrlObserved> & Pick<UrlObserved, 'source'>): StoredObservation {
  return {
    kind: 'observation', id: 'key1', part: 'p', event: 'url_observed', eventId: `e${seq}`, occurredAt: '2026-01-01T00:00:00.000Z', seq,
    data: {
      apiKeyId: 'key1', url: 'https://example.com/p', observedAt: `2026-01-0${seq % 9}T00:00:00.000Z`, statusCode: 200, state: 'present',
      markdownHash: `h${seq}`, changeStatus: 'new', ...data,
    },
  };
}

describe('change tracking: the observation chain', () => {
  const earlier = observation(5, { source: { kind: 'crawl', jobId: 'job-a', part: 'p' } });

  test('given no observation of the URL, then append the first (expected last sequence 0)', () => {
    assert.deepEqual(nextStep(source, 10, null, []), { kind: 'append', previous: undefined, expectedLastSeq: 0 });
  });

  test('given an observation before this page was fetched, then append after it, with it as the predecessor', () => {
    assert.deepEqual(nextStep(source, 10, earlier, []), { kind: 'append', previous: summarize(earlier), expectedLastSeq: 5 });
    assert.deepEqual(summarize(earlier), {
      seq: 5, observedAt: earlier.data.observedAt, jobKind: 'crawl', jobId: 'job-a', statusCode: 200, state: 'present', markdownHash: 'h5',
    });
  });

  test('given a redelivery that finds its own observation last, then answer from it and append nothing', () => {
    const own = observation(12, { source, changeStatus: 'changed', previous: summarize(earlier) });
    const step = nextStep(source, 10, own, [own]);
    assert.deepEqual(step, { kind: 'own', observation: own });
    // ...whose embedded predecessor is the real one, not itself.
    assert.equal(step.kind === 'own' && step.observation.data.previous?.seq, 5);
  });

  test('given a redelivery after another job observed the URL too, then its own observation is still found', () => {
    const own = observation(12, { source, previous: summarize(earlier) });
    const later = observation(14, { source: { kind: 'batch', jobId: 'job-c', part: 'p' }, previous: summarize(own) });
    assert.deepEqual(nextStep(source, 10, later, [own, later]), { kind: 'own', observation: own });
  });

  test('given observations after the fetch by other jobs only, then append after the latest', () => {
    const other = observation(12, { source: { kind: 'batch', jobId: 'job-c', part: 'p' } });
    assert.deepEqual(nextStep(source, 10, other, [other]), { kind: 'append', previous: summarize(other), expectedLastSeq: 12 });
  });

  test('given the same job and page observed before this fetch (an earlier crawl round), then it is a predecessor, not its own', () => {
    const old = observation(8, { source });
    assert.deepEqual(nextStep(source, 10, old, []), { kind: 'append', previous: summarize(old), expectedLastSeq: 8 });
  });
});

describe('change tracking: options', () => {
  test('given changeTrackingOptions.tag with the format, then the resolved options carry the tag', () => {
    assert.equal(normalizeScrapeOptions({ formats: ['changeTracking'], changeTrackingOptions: { tag: 'daily' } }).changeTrackingTag, 'daily');
    assert.equal(normalizeScrapeOptions({ formats: ['changeTracking'] }).changeTrackingTag, undefined);
  });
  test('given changeTrackingOptions without the format, then a validation error naming the field (with its prefix in a crawl)', () => {
    assert.throws(() => normalizeScrapeOptions({ changeTrackingOptions: {} }, 'scrapeOptions.'), (err: Error & { field?: string }) =>
      /needs the changeTracking format/.test(err.message) && err.field === 'scrapeOptions.changeTrackingOptions');
  });
});

describe('change tracking: the content options hash', () => {
  const hash = (input: Parameters<typeof normalizeScrapeOptions>[0]) => contentOptionsHash(normalizeScrapeOptions(input));
  test('given options that do not shape the markdown (formats, timeout, engine, screenshots), then the same hash', () => {
    assert.equal(hash({}), hash({ formats: ['changeTracking', 'links', 'screenshot'], timeout: 60_000, engine: 'auto', screenshotOptions: { fullPage: true } }));
  });
  test('given options that shape it, then another hash', () => {
    const base = hash({});
    for (const other of [{ onlyMainContent: false }, { includeTags: ['main'] }, { excludeTags: ['nav'] }, { mobile: true }, { headers: { 'accept-language': 'de' } }, { actions: [{ type: 'click' as const, selector: 'a' }] }]) {
      assert.notEqual(hash(other), base, JSON.stringify(other));
    }
  });
});
