// The key-usage read model: pages per month and running jobs, as given(events) / then(doc).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { committedPages, type KeyUsageDoc } from '../../../shared/src/infra/store/index.js';
import { readModelSpec } from '../../support/decider.js';
import { evolve } from '../../../services/projector/src/read-models/key-usage/index.js';

const blank: KeyUsageDoc = { id: 'k1', month: '', pages: 0, activeJobs: {}, lastSeq: 0 };
let seq = 0;
const ev = (event: string, kind: string, id: string, data: Record<string, unknown> = {}): StoredEvent =>
  ({ kind, id, part: 'p', event, eventId: 'e', occurredAt: '2026-11-01T00:00:00.000Z', seq: ++seq, data: { apiKeyId: 'k1', requestedAt: '2026-11-05T10:00:00.000Z', ...data } }) as unknown as StoredEvent;
const { given } = readModelSpec<KeyUsageDoc, StoredEvent, undefined, KeyUsageDoc>(evolve, blank);

test('each page loaded for the key counts one; map requests one; cache hits and joins none', () => {
  const doc = given([
    ev('page_requested', 'scrape', 's1'),
    ev('page_requested', 'crawl', 'c1'), ev('page_requested', 'crawl', 'c1'),
    ev('page_requested', 'map', 'm1'), ev('map_requested', 'map', 'm1'),
    ev('page_shared', 'scrape', 's2'),
    ev('page_served_from_cache', 'scrape', 's3'),
  ]);
  assert.equal(doc.pages, 4);
  assert.equal(doc.month, '2026-11');
});

test('scrapes and crawls hold a concurrency slot until they end', () => {
  const running = given([ev('page_requested', 'scrape', 's1'), ev('crawl_requested', 'crawl', 'c1'), ev('page_shared', 'scrape', 's2')]);
  assert.deepEqual(Object.keys(running.activeJobs).sort(), ['c1', 's1', 's2']);
  const done = given([
    ev('page_requested', 'scrape', 's1'), ev('crawl_requested', 'crawl', 'c1'), ev('page_shared', 'scrape', 's2'),
    ev('page_completed', 'scrape', 's1'), ev('page_failed', 'scrape', 's2'), ev('crawl_finished', 'crawl', 'c1'),
    ev('page_completed', 'crawl', 'c1'),
  ]);
  assert.deepEqual(done.activeJobs, {});
});

test('a new month starts the count again; a late event of the old month does not', () => {
  const doc = given([
    ev('page_requested', 'scrape', 'a', { requestedAt: '2026-10-31T23:59:59.000Z' }),
    ev('page_requested', 'scrape', 'b', { requestedAt: '2026-11-01T00:00:01.000Z' }),
    ev('page_requested', 'crawl', 'c', { requestedAt: '2026-10-31T23:59:59.500Z' }),
  ]);
  assert.equal(doc.month, '2026-11');
  assert.equal(doc.pages, 1);
});

test('events that are not about usage change nothing', () => {
  assert.equal(evolve(blank, ev('page_fetched', 'scrape', 's1')), null);
  assert.equal(evolve(null, ev('page_requested', 'scrape', 's1')), null);
});

test('crawls and batches hold the pages they may still load until they end', () => {
  const pages = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://a.test/${i}`, pageKey: `p${i}` }));
  const running = given([
    ev('crawl_requested', 'crawl', 'c1', { limit: 10 }),
    ev('page_requested', 'crawl', 'c1'), ev('page_requested', 'crawl', 'c1'),
    ev('batch_requested', 'batch', 'b1', { pages: pages(3) }),
    ev('page_requested', 'batch', 'b1'),
  ]);
  assert.deepEqual(running.committedPages, { c1: 8, b1: 2 });
  assert.equal(committedPages(running), 10);
  assert.equal(running.pages, 3);
  const ended = given([
    ev('crawl_requested', 'crawl', 'c1', { limit: 10 }), ev('page_requested', 'crawl', 'c1'),
    ev('batch_requested', 'batch', 'b1', { pages: pages(3) }),
    ev('crawl_finished', 'crawl', 'c1'), ev('batch_finished', 'batch', 'b1'),
  ]);
  assert.deepEqual(ended.committedPages, {});
  assert.deepEqual(ended.activeJobs, {});
  assert.equal(committedPages(ended), 0);
});

test('usage written before committed pages existed reads as none held', () => {
  assert.equal(committedPages(blank), 0);
  const doc = evolve(blank, ev('page_requested', 'crawl', 'old'));
  assert.equal(doc?.committedPages, undefined);
  assert.equal(doc?.pages, 1);
});

test('a scrape that failed as a challenge, block or empty page is given back; other failures and crawl pages are not', () => {
  const failed = (id: string, code: string, kind = 'scrape') => ev('page_failed', kind, id, { error: { code, message: 'x' }, failedAt: '2026-11-05T10:00:05.000Z' });
  const doc = given([
    ev('page_requested', 'scrape', 's1'), ev('page_requested', 'scrape', 's2'), ev('page_requested', 'scrape', 's3'), ev('page_requested', 'scrape', 's4'),
    ev('page_requested', 'crawl', 'c1'),
    failed('s1', 'PAGE_CHALLENGE'), failed('s2', 'PAGE_BLOCKED'), failed('s3', 'PAGE_TIMEOUT'), failed('c1', 'PAGE_CHALLENGE', 'crawl'),
  ]);
  assert.equal(doc.pages, 3);
  assert.deepEqual(Object.keys(doc.activeJobs), ['s4']);
  // A failure dated in another month than the one counted changes nothing.
  const late = given([ev('page_requested', 'scrape', 'a', { requestedAt: '2026-11-30T23:59:59.000Z' }),
    ev('page_failed', 'scrape', 'a', { error: { code: 'PAGE_EMPTY', message: 'x' }, failedAt: '2026-12-01T00:00:02.000Z' })]);
  assert.deepEqual([late.month, late.pages], ['2026-11', 1]);
});
