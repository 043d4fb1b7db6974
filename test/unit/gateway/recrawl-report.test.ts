// The recrawl report, pure (services/gateway/src/recrawl/report.ts): statuses from each page's
// change-tracking report, unlinked pages removed only once the recrawl has finished, pages
// skipped on their sitemap lastmod listed apart, and errors that are no observation.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recrawlReport, SITEMAP_LASTMOD, type ReportPage } from '../../../services/gateway/src/recrawl/report.js';

const page = (key: string, over: Partial<ReportPage> = {}): ReportPage => ({
  pageKey: key, url: `https://example.com/${key}`, status: 'COMPLETED', metadata: { title: key, description: '' }, ...over,
});
const tracked = (key: string, changeStatus: 'new' | 'same' | 'changed' | 'removed', meta: Record<string, unknown> = {}): ReportPage =>
  page(key, { changeTracking: { observed: true, changeStatus, previousScrapeAt: null }, metadata: { title: key, description: '', ...meta } });

test('statuses come from the pages\' reports; a previous page not reached is removed once the recrawl finished', () => {
  const previous = [page('a'), page('b'), page('gone-before', { metadata: { title: '', description: '', statusCode: 404 } }), page('failed', { status: 'FAILED' })];
  const current = [tracked('a', 'same', { notModified: true }), tracked('n', 'new'), tracked('x', 'removed')];
  const report = recrawlReport({ id: 'r', recrawlOf: 'c', status: 'COMPLETED' }, previous, current);
  assert.deepEqual(report.pages, [
    { url: 'https://example.com/a', status: 'same', notModified: true },
    { url: 'https://example.com/n', status: 'new' },
    { url: 'https://example.com/x', status: 'removed', reason: 'gone' },
    { url: 'https://example.com/b', status: 'removed', reason: 'not-linked' },
  ]);
  assert.deepEqual(report.counts, { new: 1, same: 1, changed: 0, removed: 2, unchanged: 0, failed: 0 });
});

test('while running or when cancelled nothing is removed for being unlinked', () => {
  for (const status of ['PROCESSING', 'CANCELLED'] as const) {
    const report = recrawlReport({ id: 'r', recrawlOf: 'c', status }, [page('b')], [tracked('a', 'same')]);
    assert.deepEqual(report.pages.map((p) => p.status), ['same'], status);
    assert.equal(report.complete, status === 'CANCELLED');
  }
});

test('sitemap-skipped pages are unchangedUrls; failures and non-observations are failedUrls', () => {
  const current = [
    tracked('s', 'same', { notModified: true, notModifiedBy: SITEMAP_LASTMOD }),
    page('f', { status: 'FAILED' }),
    page('e', { changeTracking: { observed: false, previousScrapeAt: null, statusCode: 503 } }),
    page('p', { status: 'PENDING' }),
  ];
  const report = recrawlReport({ id: 'r', recrawlOf: 'c', status: 'COMPLETED' }, [page('s')], current);
  assert.deepEqual(report.pages, []);
  assert.deepEqual(report.unchangedUrls, ['https://example.com/s']);
  assert.deepEqual(report.failedUrls, ['https://example.com/f', 'https://example.com/e']);
});

test('a page no longer linked but still in the sitemap is unlinked, not removed', () => {
  const report = recrawlReport({ id: 'r', recrawlOf: 'c', status: 'COMPLETED' }, [page('a'), page('b')], [tracked('a', 'same')], new Set(['b']));
  assert.deepEqual(report.pages.map((p) => p.status), ['same']);
  assert.deepEqual(report.unlinkedUrls, ['https://example.com/b']);
  const without = recrawlReport({ id: 'r', recrawlOf: 'c', status: 'COMPLETED' }, [page('a'), page('b')], [tracked('a', 'same')]);
  assert.deepEqual(without.pages.map((p) => `${p.status}:${p.reason ?? ''}`), ['same:', 'removed:not-linked']);
});
