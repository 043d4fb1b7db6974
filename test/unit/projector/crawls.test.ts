// The crawl read models' evolve functions: status, counters, the cancel freeze point and
// first-result-wins for pages.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { readModelSpec } from '../../support/decider.js';
import { evolve as evolveJob } from '../../../services/projector/src/read-models/crawl-jobs/index.js';
import { evolve as evolvePage } from '../../../services/projector/src/read-models/crawl-pages/index.js';

const AT = '2026-01-01T00:00:00.000Z';
let seq = 0;
const ev = (event: string, data: unknown, part = 'job'): StoredEvent =>
  ({ kind: 'crawl', id: 'c1', part, event, data, eventId: `e${seq}`, occurredAt: AT, seq: ++seq }) as StoredEvent;

const requested = () => ev('crawl_requested', {
  startUrl: 'https://site.test/', maxDepth: 3, limit: 3, includePaths: [], excludePaths: [], allowExternalLinks: false,
  ignoreRobots: false, scrapeOptions: normalizeScrapeOptions({}), apiKeyId: 'k1', requestedAt: AT, webhookUrl: 'https://h.test/',
});

const fold = <D>(evolve: (d: D | null, e: StoredEvent) => D | null, events: StoredEvent[]): D | null => readModelSpec(evolve).given(events);

describe('crawl-jobs read model', () => {
  test('PENDING -> PROCESSING -> COMPLETED with the final counters', () => {
    const doc = fold(evolveJob, [
      requested(),
      ev('crawl_started', { startedAt: AT }),
      ev('crawl_links_discovered', { depth: 1, urls: ['https://site.test/a', 'https://site.test/b', 'https://site.test/c'], skipped: {}, discoveredAt: AT }, 'p1'),
    ])!;
    assert.deepEqual([doc.status, doc.totalUrls, doc.countersFinal], ['PROCESSING', 3, false]);
    const done = evolveJob(doc, ev('crawl_finished', { status: 'COMPLETED', totalUrls: 3, completedUrls: 2, failedUrls: 1, finishedAt: AT }))!;
    assert.deepEqual([done.status, done.totalUrls, done.completedUrls, done.failedUrls, done.countersFinal, done.completedAt], ['COMPLETED', 3, 2, 1, true, AT]);
    assert.equal(done.webhookUrl, 'https://h.test/');
  });

  test('a cancel shows at once and records the freeze point', () => {
    const events = [requested(), ev('crawl_started', { startedAt: AT })];
    const cancel = ev('crawl_cancel_requested', { requestedAt: AT });
    const doc = fold(evolveJob, [...events, cancel])!;
    assert.deepEqual([doc.status, doc.frozenAtSeq], ['CANCELLED', cancel.seq]);
    const finished = evolveJob(doc, ev('crawl_finished', { status: 'CANCELLED', totalUrls: 1, completedUrls: 0, failedUrls: 0, finishedAt: AT }))!;
    assert.deepEqual([finished.status, finished.countersFinal], ['CANCELLED', true]);
  });

  test('a cancel after the end changes nothing; FAILED carries its reason', () => {
    const doc = fold(evolveJob, [
      requested(), ev('crawl_started', { startedAt: AT }),
      ev('crawl_finished', { status: 'FAILED', totalUrls: 1, completedUrls: 0, failedUrls: 1, reason: 'start page failed: x', finishedAt: AT }),
      ev('crawl_cancel_requested', { requestedAt: AT }),
    ])!;
    assert.equal(doc.status, 'FAILED');
    assert.equal(doc.frozenAtSeq, undefined);
    assert.deepEqual(doc.error, { message: 'start page failed: x' });
  });
});

describe('crawl-pages read model', () => {
  const requestedPage = () => ev('page_requested', { url: 'https://site.test/a', options: normalizeScrapeOptions({}), apiKeyId: 'k1', depth: 1, requestedAt: AT }, 'p1');
  const completed = () => ev('page_completed', {
    result: { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' },
    metadata: { title: 'A', description: 'd' }, links: ['https://site.test/b'],
    timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: AT,
  }, 'p1');

  test('a page gets its first result, with the hydrated content', () => {
    const r = requestedPage();
    const c = completed();
    const doc = evolvePage(evolvePage(null, r), c, { markdown: '# A' })!;
    assert.deepEqual(doc, {
      crawlId: 'c1', pageKey: 'p1', url: 'https://site.test/a', depth: 1, status: 'COMPLETED', requestedSeq: r.seq, resultSeq: c.seq,
      metadata: { title: 'A', description: 'd' }, links: ['https://site.test/b'], markdown: '# A', lastSeq: c.seq,
    });
    const failedLater = evolvePage(doc, ev('page_failed', { error: { code: 'NETWORK_ERROR', message: 'x' }, failedAt: AT, attempt: 1 }, 'p1'))!;
    assert.equal(failedLater.status, 'COMPLETED');
  });

  test('results of pages never requested are ignored', () => {
    assert.equal(evolvePage(null, completed()), null);
  });
});
