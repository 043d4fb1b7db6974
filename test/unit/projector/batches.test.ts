// The batch read models' evolve functions: status, per-page states in request order,
// counters, first result wins, the cancel freeze; batch-pages content; and batch scrapes
// as jobs in key-usage.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { uniquePages } from '../../../shared/src/domain/batch-options.js';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import type { BatchJobDoc, KeyUsageDoc } from '../../../shared/src/infra/store/index.js';
import { readModelSpec } from '../../support/decider.js';
import { evolve as evolveJob } from '../../../services/projector/src/read-models/batch-jobs/index.js';
import { evolve as evolvePage } from '../../../services/projector/src/read-models/batch-pages/index.js';
import { evolve as evolveUsage } from '../../../services/projector/src/read-models/key-usage/index.js';

const AT = '2026-01-01T00:00:00.000Z';
const LATER = '2026-01-01T00:00:09.000Z';
const pages = uniquePages(['https://site.test/a', 'https://site.test/b', 'https://site.test/c']);
const [A, B, C] = pages.map((p) => p.pageKey) as [string, string, string];
let seq = 0;
const ev = (event: string, data: unknown, part = 'job'): StoredEvent =>
  ({ kind: 'batch', id: 'b1', part, event, data, eventId: `e${seq}`, occurredAt: AT, seq: ++seq }) as StoredEvent;

const requested = () => ev('batch_requested', {
  pages, requestedUrls: 4, invalidUrls: 0, options: normalizeScrapeOptions({}), apiKeyId: 'k1', requestedAt: AT, webhookUrl: 'https://h.test/',
});
const completed = (part: string) => ev('page_completed', {
  result: { bucket: 'b', name: 'n', size: 1, contentType: 'application/json' }, metadata: { title: part, description: '' }, links: [],
  timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: AT,
}, part);
const failed = (part: string) => ev('page_failed', { error: { code: 'NETWORK_ERROR', message: 'refused' }, failedAt: AT, attempt: 1 }, part);
const pageStarted = (part: string) => ev('page_started', { attempt: 1, startedAt: AT, worker: 'w' }, part);

const fold = readModelSpec<BatchJobDoc, StoredEvent>(evolveJob).given;
const statuses = (doc: BatchJobDoc): string[] => doc.pages.map((p) => p.status);

describe('batch-jobs read model', () => {
  test('PENDING -> PROCESSING -> COMPLETED, pages in request order with their states and errors', () => {
    const doc = fold([requested(), ev('batch_started', { startedAt: AT }), pageStarted(A), pageStarted(B), completed(A), failed(B)])!;
    assert.deepEqual([doc.status, doc.totalUrls, doc.completedUrls, doc.failedUrls, doc.startedAt], ['PROCESSING', 3, 1, 1, AT]);
    assert.deepEqual(doc.pages.map((p) => p.url), ['https://site.test/a', 'https://site.test/b', 'https://site.test/c']);
    assert.deepEqual(statuses(doc), ['COMPLETED', 'FAILED', 'PENDING']);
    assert.deepEqual(doc.pages[1]!.error, { code: 'NETWORK_ERROR', message: 'refused' });
    assert.equal(doc.webhookUrl, 'https://h.test/');
    const done = evolveJob(evolveJob(doc, completed(C)), ev('batch_finished', { status: 'COMPLETED', totalUrls: 3, completedUrls: 2, failedUrls: 1, finishedAt: LATER }))!;
    assert.deepEqual([done.status, done.completedUrls, done.failedUrls, done.completedAt], ['COMPLETED', 2, 1, LATER]);
    assert.deepEqual(statuses(done), ['COMPLETED', 'FAILED', 'COMPLETED']);
  });

  test('the first result of a page wins; a repeated one does not count again', () => {
    const doc = fold([requested(), ev('batch_started', { startedAt: AT }), completed(A), completed(A), failed(A)])!;
    assert.deepEqual([doc.completedUrls, doc.failedUrls, doc.pages[0]!.status], [1, 0, 'COMPLETED']);
  });

  test('a cancel shows at once: pages without a result are CANCELLED, later results do not count', () => {
    const doc = fold([requested(), ev('batch_started', { startedAt: AT }), pageStarted(A), completed(B), ev('batch_cancel_requested', { requestedAt: LATER }), completed(A)])!;
    assert.deepEqual([doc.status, doc.completedAt, doc.completedUrls], ['CANCELLED', LATER, 1]);
    assert.deepEqual(statuses(doc), ['CANCELLED', 'COMPLETED', 'CANCELLED']);
    const finished = evolveJob(doc, ev('batch_finished', { status: 'CANCELLED', totalUrls: 3, completedUrls: 1, failedUrls: 0, finishedAt: '2026-01-01T00:01:00.000Z' }))!;
    assert.deepEqual([finished.status, finished.completedAt, finished.completedUrls], ['CANCELLED', LATER, 1]);
  });

  test('FAILED carries its reason; a cancel after the end changes nothing', () => {
    const doc = fold([
      requested(), ev('batch_started', { startedAt: AT }), failed(A), failed(B), failed(C),
      ev('batch_finished', { status: 'FAILED', totalUrls: 3, completedUrls: 0, failedUrls: 3, reason: 'all 3 pages failed', finishedAt: LATER }),
      ev('batch_cancel_requested', { requestedAt: '2026-01-01T00:02:00.000Z' }),
    ])!;
    assert.deepEqual([doc.status, doc.error?.message, doc.completedAt], ['FAILED', 'all 3 pages failed', LATER]);
  });

  test('events before the batch exists are dropped; a second batch_requested changes nothing', () => {
    assert.equal(evolveJob(null, completed(A)), null);
    const doc = fold([requested()])!;
    assert.equal(evolveJob(doc, requested()), doc);
  });
});

describe('batch-pages read model', () => {
  test('a completed page keeps its hydrated content and metadata; the first result wins', () => {
    const first = completed(A);
    const doc = evolvePage(null, first, { content: { markdown: '# A', links: ['https://x.test/'] } })!;
    assert.deepEqual(doc, {
      batchId: 'b1', pageKey: A, content: { markdown: '# A', links: ['https://x.test/'] }, metadata: { title: A, description: '' },
      resultSeq: first.seq, lastSeq: first.seq,
    });
    const again = evolvePage(doc, completed(A), { content: { markdown: 'other' } })!;
    assert.equal(again.content.markdown, '# A');
    assert.equal(again.resultSeq, first.seq);
  });
});

describe('key-usage: a batch scrape is one job', () => {
  test('batch_requested starts the job, batch_finished ends it; its pages count one each', () => {
    let doc: KeyUsageDoc | null = { id: 'k1', month: '', pages: 0, activeJobs: {}, lastSeq: 0 };
    doc = evolveUsage(doc, requested())!;
    assert.deepEqual(Object.keys(doc.activeJobs), ['b1']);
    doc = evolveUsage(doc, ev('page_requested', { url: 'https://site.test/a', options: normalizeScrapeOptions({}), apiKeyId: 'k1', depth: 0, requestedAt: AT }, A))!;
    assert.equal(doc.pages, 1);
    assert.equal(evolveUsage(doc, completed(A)), null, 'a batch page result does not end the job');
    doc = evolveUsage(doc, ev('batch_finished', { status: 'COMPLETED', totalUrls: 1, completedUrls: 1, failedUrls: 0, finishedAt: AT }))!;
    assert.deepEqual(doc.activeJobs, {});
  });
});
