// The fleet's pace per host as a pure fold: starts spaced, 429/503 back-off honouring Retry-After and recovering on successes,
// robots.txt Crawl-delay spacing every replica's starts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshPace, observe, retryAfterMs, start, withCrawlDelay, type HostPace } from '../../../shared/src/domain/host-pace.js';

const granted = (r: ReturnType<typeof start>): HostPace => { assert.ok(r.granted); return r.pace; };

test('starts are spaced by the interval', () => {
  const pace = granted(start(freshPace(), 0, 500));
  const next = start(pace, 100, 500);
  assert.deepEqual(next, { granted: false, waitMs: 400 });
});

test('a 429 with Retry-After holds starts until then and says why; successes recover the pace', () => {
  let pace = observe(freshPace(), 0, 429, 30_000);
  assert.equal(pace.nextAt, 30_000);
  assert.match(pace.reason!, /HTTP 429 with Retry-After 30 s/);
  assert.equal(start(pace, 29_999, 0).granted, false);
  pace = observe(pace, 31_000, 503, undefined);
  assert.equal(pace.backoffMs, 2_000, 'each refusal doubles the spacing');
  pace = observe(pace, 32_000, 200, undefined);
  assert.equal(pace.backoffMs, 1_000);
  assert.ok(pace.reason);
  pace = observe(pace, 33_000, 200, undefined);
  assert.equal(pace.backoffMs, 0);
  assert.equal(pace.reason, undefined);
});

test('a page that started before the refusal does not recover the pace', () => {
  const pace = observe(freshPace(), 1_000, 429, undefined);
  assert.equal(observe(pace, 1_100, 200, undefined, 900), pace);
  assert.equal(observe(pace, 2_100, 200, undefined, 2_000).backoffMs, 0);
});

test('Retry-After as seconds or an HTTP date; a huge one is capped', () => {
  assert.equal(retryAfterMs('120', 0), 120_000);
  assert.equal(retryAfterMs(new Date(60_000).toUTCString(), 0), 60_000);
  assert.equal(retryAfterMs('soon', 0), undefined);
  assert.equal(observe(freshPace(), 0, 429, 86_400_000).nextAt, 600_000);
});

test('a robots.txt Crawl-delay spaces starts across the fleet, capped, and goes when the file drops it', () => {
  const paced = withCrawlDelay(freshPace(), 1.5);
  assert.equal(paced.crawlDelayMs, 1_500);
  assert.equal(withCrawlDelay(paced, 1.5), paced, 'the same delay changes nothing (nothing is written)');
  const first = granted(start(paced, 0, 200));
  assert.deepEqual(start(first, 1_000, 200), { granted: false, waitMs: 500 }, 'the delay wins over a shorter interval');
  assert.ok(start(first, 1_500, 200).granted);
  assert.equal(withCrawlDelay(freshPace(), 86_400).crawlDelayMs, 60_000, 'a huge delay is capped');
  assert.equal(withCrawlDelay(paced, undefined).crawlDelayMs, undefined);
  assert.equal(withCrawlDelay(paced, 0).crawlDelayMs, undefined);
  assert.equal(withCrawlDelay(paced, Number.NaN).crawlDelayMs, undefined);
  // A back-off longer than the delay still wins.
  const refused = observe(withCrawlDelay(freshPace(), 0.5), 0, 429, undefined);
  const next = granted(start({ ...refused, nextAt: 0 }, 0, 0));
  assert.equal(next.nextAt, 1_000);
});
