// A 304's page names an older page's result (page_completed.reusedResult): the crawl-pages
// read model takes its content from that page's document when it holds every format asked
// (no Object Store read), else from the stored payload; either way only the formats asked,
// with the page's own change report, expiring from when the result was stored.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { CrawlPageDoc } from '../../../shared/src/infra/store/index.js';
import { crawlPagesReadModel } from '../../../services/projector/src/read-models/crawl-pages/index.js';

const STORED_AT = '2026-03-01T00:00:00.000Z';
const report = { observed: true, changeStatus: 'same' as const, previousScrapeAt: '2026-03-02T00:00:00.000Z', notModified: true };
const completed = (formats: string[]): StoredEvent => ({
  kind: 'crawl', id: 'recrawl1', part: 'p1', event: 'page_completed', seq: 90, eventId: 'e90', occurredAt: '2026-03-03T00:00:00.000Z',
  data: {
    result: { bucket: 'trawl-payloads', name: 'crawl/first/p1/result.json', size: 10, contentType: 'application/json' },
    metadata: { title: 'A', description: '', notModified: true }, links: [], completedAt: '2026-03-03T00:00:00.000Z',
    timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 0, screenshotMs: 0, transformMs: 0, totalMs: 1 },
    reusedResult: { formats, storedAt: STORED_AT, source: { kind: 'crawl', jobId: 'first', part: 'p1' }, changeTracking: report },
  },
} as unknown as StoredEvent);
const sourceDoc = (over: Partial<CrawlPageDoc> = {}): CrawlPageDoc => ({
  crawlId: 'first', pageKey: 'p1', url: 'https://example.com/a', depth: 0, status: 'COMPLETED', requestedSeq: 1, lastSeq: 5,
  markdown: '# A', html: '<h1>A</h1>', changeTracking: { observed: true, changeStatus: 'new', previousScrapeAt: null }, ...over,
});

describe('crawl pages: a reused result', () => {
  test('given the source page in the read model, then its content with no payload read, the formats asked and the page\'s own report', async () => {
    let reads = 0;
    const hydrated = await crawlPagesReadModel.hydrate!(completed(['markdown']), {
      getJson: async () => { reads++; return {} as never; }, payloadTtlMs: 86_400_000, crawlPage: async () => sourceDoc(),
    });
    assert.equal(reads, 0);
    assert.deepEqual(hydrated, { markdown: '# A', changeTracking: report });
  });

  test('given a source without a format asked (applied without its payload) or no source here, then the stored payload', async () => {
    const payload = { markdown: '# A', html: '<h1>A</h1>', rawHtml: '<html>', changeTracking: { observed: true, changeStatus: 'new', previousScrapeAt: null } };
    for (const crawlPage of [async () => sourceDoc({ markdown: undefined }), async () => null]) {
      let reads = 0;
      const hydrated = await crawlPagesReadModel.hydrate!(completed(['markdown', 'html']), {
        getJson: async () => { reads++; return payload as never; }, payloadTtlMs: 86_400_000, crawlPage,
      });
      assert.equal(reads, 1);
      assert.deepEqual(hydrated, { markdown: '# A', html: '<h1>A</h1>', changeTracking: report }, 'rawHtml was not asked of it');
    }
  });
});
