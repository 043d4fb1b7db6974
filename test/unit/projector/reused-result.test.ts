// A 304's page names an older page's result (page_completed.reusedResult): the crawl-pages
// read model points at the crawl page holding that content when it holds every format asked
// (no Object Store read, no copy: the store fills the content in when the page is read),
// else takes it from the stored payload; either way only the formats asked, with the page's
// own change report.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { CrawlPageOrigin } from '../../../shared/src/infra/store/index.js';
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
const origin = (fields: CrawlPageOrigin['fields'], at: Pick<CrawlPageOrigin, 'crawlId' | 'pageKey'> = { crawlId: 'first', pageKey: 'p1' }): CrawlPageOrigin => ({ ...at, fields });

describe('crawl pages: a reused result', () => {
  test('given the source page in the read model with the formats asked, then a pointer to it: no payload read, no content copied, the page\'s own report', async () => {
    let reads = 0;
    const asked: string[] = [];
    const hydrated = await crawlPagesReadModel.hydrate!(completed(['markdown', 'links']), {
      getJson: async () => { reads++; return {} as never; }, payloadTtlMs: 86_400_000,
      crawlPageOrigin: async (crawlId, pageKey) => { asked.push(`${crawlId}/${pageKey}`); return origin(['markdown', 'html']); },
    });
    assert.equal(reads, 0);
    assert.deepEqual(asked, ['first/p1']);
    assert.deepEqual(hydrated, { repeats: { crawlId: 'first', pageKey: 'p1', fields: ['markdown'] }, changeTracking: report });
  });

  test('given a source that itself repeats an older page, then the pointer names the page holding the content', async () => {
    const hydrated = await crawlPagesReadModel.hydrate!(completed(['markdown']), {
      getJson: async () => { throw new Error('no payload read expected'); }, payloadTtlMs: 86_400_000,
      crawlPageOrigin: async () => origin(['markdown'], { crawlId: 'oldest', pageKey: 'p1' }),
    });
    assert.deepEqual(hydrated, { repeats: { crawlId: 'oldest', pageKey: 'p1', fields: ['markdown'] }, changeTracking: report });
  });

  test('given a source without a format asked (applied without its payload) or no source here, then the stored payload', async () => {
    const payload = { markdown: '# A', html: '<h1>A</h1>', rawHtml: '<html>', changeTracking: { observed: true, changeStatus: 'new', previousScrapeAt: null } };
    for (const crawlPageOrigin of [async () => origin(['html']), async () => null]) {
      let reads = 0;
      const hydrated = await crawlPagesReadModel.hydrate!(completed(['markdown', 'html']), {
        getJson: async () => { reads++; return payload as never; }, payloadTtlMs: 86_400_000, crawlPageOrigin,
      });
      assert.equal(reads, 1);
      assert.deepEqual(hydrated, { markdown: '# A', html: '<h1>A</h1>', changeTracking: report }, 'rawHtml was not asked of it');
    }
  });

  test('given the pointer, then the page document names it and holds no content of its own', () => {
    const pending = crawlPagesReadModel.evolve(null, { kind: 'crawl', id: 'recrawl1', part: 'p1', event: 'page_requested', seq: 80, eventId: 'e80', occurredAt: '2026-03-03T00:00:00.000Z',
      data: { url: 'https://example.com/a', depth: 0 } } as unknown as StoredEvent, {});
    const doc = crawlPagesReadModel.evolve(pending, completed(['markdown']), { repeats: { crawlId: 'first', pageKey: 'p1', fields: ['markdown'] }, changeTracking: report });
    assert.equal(doc?.status, 'COMPLETED');
    assert.deepEqual(doc?.repeats, { crawlId: 'first', pageKey: 'p1', fields: ['markdown'] });
    assert.equal(doc?.markdown, undefined);
    assert.deepEqual(doc?.changeTracking, report);
  });
});
