// The scrape-jobs read model as given(events) / then(document).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import type { ScrapeJobDoc } from '../../../shared/src/infra/store/index.js';
import { readModelSpec } from '../../support/decider.js';
import { evolve } from '../../../services/projector/src/read-models/scrape-jobs/index.js';

const options = normalizeScrapeOptions({});
const at = { kind: 'scrape' as const, id: 'job1', part: 'p1', eventId: 'e', occurredAt: '2026-01-01T00:00:00.000Z' };
const timings = { queueWaitMs: 1, fetchMs: 2, renderMs: 3, transformMs: 4, screenshotMs: 0, totalMs: 10 };
const ref = { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' };

const requested = { ...at, seq: 1, event: 'page_requested', data: { url: 'https://example.com/', options, apiKeyId: 'k1', depth: 0, requestedAt: '2026-01-01T00:00:00.000Z' } } as StoredEvent;
const started = (seq: number, attempt = 1) => ({ ...at, seq, event: 'page_started', data: { attempt, startedAt: `2026-01-01T00:00:0${seq}.000Z`, worker: 'w' } }) as StoredEvent;
const completed = (seq: number) => ({ ...at, seq, event: 'page_completed', data: { result: ref, metadata: { title: 'T', description: 'D' }, links: [], timings, completedAt: '2026-01-01T00:00:09.000Z' } }) as StoredEvent;
const failed = (seq: number) => ({ ...at, seq, event: 'page_failed', data: { error: { code: 'PAGE_TIMEOUT', message: 'slow' }, failedAt: '2026-01-01T00:00:09.000Z', attempt: 1 } }) as StoredEvent;

const scrapeJobs = readModelSpec<ScrapeJobDoc, StoredEvent, Parameters<typeof evolve>[2]>(evolve);
const given = (events: StoredEvent[], hydrated = {}): ScrapeJobDoc | null => scrapeJobs.given(events, (e) => (e.event === 'page_completed' ? hydrated : {}));

describe('scrape-jobs read model', () => {
  test('a request is PENDING, not from cache, owned by its key', () => {
    const doc = given([requested])!;
    assert.equal(doc.status, 'PENDING');
    assert.equal(doc.fromCache, false);
    assert.equal(doc.apiKeyId, 'k1');
    assert.equal(doc.lastSeq, 1);
  });

  test('started moves to PROCESSING and keeps the first start time across attempts', () => {
    const doc = given([requested, started(2), started(3, 2)])!;
    assert.equal(doc.status, 'PROCESSING');
    assert.equal(doc.startedAt, '2026-01-01T00:00:02.000Z');
    assert.equal(doc.attempts, 2);
  });

  test('completed carries content, metadata and timings', () => {
    const doc = given([requested, started(2), completed(3)], { content: { markdown: '# T' } })!;
    assert.equal(doc.status, 'COMPLETED');
    assert.equal(doc.content?.markdown, '# T');
    assert.deepEqual(doc.metadata, { title: 'T', description: 'D' });
    assert.deepEqual(doc.timings, timings);
  });

  test('timings show the engine the event records once, in the metadata (older events: in the timings)', () => {
    const withEngine = (data: object) => ({ ...completed(3), data: { ...completed(3).data, ...data } }) as StoredEvent;
    const now = given([requested, started(2), withEngine({ metadata: { title: 'T', description: 'D', engine: 'http' } })])!;
    assert.deepEqual(now.timings, { ...timings, engine: 'http' });
    const older = given([requested, started(2), withEngine({ metadata: { title: 'T', description: 'D', engine: 'http' }, timings: { ...timings, engine: 'http' } })])!;
    assert.deepEqual(older.timings, { ...timings, engine: 'http' });
  });

  test('the first terminal event wins', () => {
    assert.equal(given([requested, started(2), failed(3), completed(4)])!.status, 'FAILED');
    assert.equal(given([requested, started(2), completed(3), failed(4), started(5)])!.status, 'COMPLETED');
  });

  test('failed carries the error code and message', () => {
    const doc = given([requested, failed(2)])!;
    assert.deepEqual(doc.error, { code: 'PAGE_TIMEOUT', message: 'slow' });
    assert.equal(doc.completedAt, '2026-01-01T00:00:09.000Z');
  });

  test('events of an unknown job create nothing', () => {
    assert.equal(given([started(2)]), null);
  });
});
