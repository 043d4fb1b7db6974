// The scrape result cache read model, as given(events) / then(entry).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { ScrapeCacheDoc } from '../../../shared/src/infra/store/index.js';
import { readModelSpec } from '../../support/decider.js';
import { evolve } from '../../../services/projector/src/read-models/scrape-cache/index.js';

let seq = 0;
const ev = (event: string, id: string, data: Record<string, unknown>, kind = 'scrape'): StoredEvent =>
  ({ kind, id, part: 'p', event, eventId: 'e', occurredAt: 'x', seq: ++seq, data: { cacheKey: 'K', ...data } }) as unknown as StoredEvent;
const { given } = readModelSpec<ScrapeCacheDoc, StoredEvent>(evolve);
const requested = (id: string, at = '2026-01-01T00:00:00.000Z') => ev('page_requested', id, { requestedAt: at });
const completed = (id: string, at: string) => ev('page_completed', id, { completedAt: at });

test('a loading scrape is the running entry; its completion becomes the cached result', () => {
  assert.deepEqual(given([requested('j1')])?.running, { jobId: 'j1', createdAt: '2026-01-01T00:00:00.000Z' });
  const done = given([requested('j1'), completed('j1', '2026-01-01T00:00:05.000Z')])!;
  assert.equal(done.running, undefined);
  assert.deepEqual(done.completed, { jobId: 'j1', completedAt: '2026-01-01T00:00:05.000Z' });
});

test('the newest result wins; a failure clears only its own running entry', () => {
  const doc = given([
    requested('j1'), requested('j2'),
    completed('j2', '2026-01-01T00:00:09.000Z'), completed('j1', '2026-01-01T00:00:05.000Z'),
  ])!;
  assert.equal(doc.completed?.jobId, 'j2');
  const failed = given([requested('j1'), requested('j2'), ev('page_failed', 'j1', {})])!;
  assert.equal(failed.running?.jobId, 'j2');
});

test('crawl pages and events without a cache key are not the cache', () => {
  assert.equal(evolve(null, ev('page_requested', 'c1', { requestedAt: 'x' }, 'crawl')), null);
  assert.equal(evolve(null, ev('page_requested', 'j9', { cacheKey: undefined, requestedAt: 'x' })), null);
});
