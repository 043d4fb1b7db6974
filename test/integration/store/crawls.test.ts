// The crawls section of the read-model store, same contract for SQLite and MongoDB
// (MongoDB when MONGODB_URL is set): crawl jobs by owner, crawl pages in requested order
// with the `next` cursor, and counts up to a cancel's freeze point.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CrawlJobDoc, CrawlPageDoc, ReadModelStore } from '../../../shared/src/infra/store/index.js';
import { storeContract } from '../../support/store-contract.js';

function job(id: string, apiKeyId: string, createdAt: string, extra: Partial<CrawlJobDoc> = {}): CrawlJobDoc {
  return {
    id, apiKeyId, startUrl: `https://site.test/${id}`, status: 'PROCESSING', createdAt, maxDepth: 3, limit: 100,
    totalUrls: 1, completedUrls: 0, failedUrls: 0, countersFinal: false, lastSeq: 1, ...extra,
  };
}

function pageDoc(crawlId: string, n: number, status: CrawlPageDoc['status'], resultSeq?: number): CrawlPageDoc {
  return {
    crawlId, pageKey: `k${n}`, url: `https://site.test/p${n}`, depth: 1, status, requestedSeq: n * 10,
    ...(resultSeq !== undefined ? { resultSeq } : {}), ...(status === 'COMPLETED' ? { markdown: `# ${n}`, metadata: { title: `${n}`, description: '' }, links: [] } : {}),
    lastSeq: resultSeq ?? n * 10,
  };
}

storeContract('crawl store', 'crawls', (store) => {
  test('crawl jobs round-trip and list by owner, newest first', async () => {
    for (let i = 0; i < 4; i++) await store().crawlJobs.put(job(`c${i}`, 'owner', `2026-02-0${i + 1}T00:00:00.000Z`));
    await store().crawlJobs.put(job('x', 'someone-else', '2026-03-01T00:00:00.000Z'));
    assert.deepEqual(await store().crawlJobs.get('c1'), job('c1', 'owner', '2026-02-02T00:00:00.000Z'));
    assert.equal(await store().crawlJobs.get('missing'), null);
    assert.deepEqual((await store().crawlJobs.listBy('owner', { limit: 2, offset: 1 })).map((j) => j.id), ['c2', 'c1']);
  });

  test('crawl pages: completed ones in requested order, from a cursor, before a freeze point', async () => {
    await store().saveCrawlPage(pageDoc('cp', 3, 'COMPLETED', 100));
    await store().saveCrawlPage(pageDoc('cp', 1, 'COMPLETED', 50));
    await store().saveCrawlPage(pageDoc('cp', 2, 'FAILED', 60));
    await store().saveCrawlPage(pageDoc('cp', 4, 'PENDING'));
    await store().saveCrawlPage(pageDoc('cp', 5, 'COMPLETED', 200));
    await store().saveCrawlPage(pageDoc('other', 1, 'COMPLETED', 50));
    const urls = async (q: Parameters<ReadModelStore['listCrawlPages']>[1]) => (await store().listCrawlPages('cp', q)).map((p) => p.pageKey);
    assert.deepEqual(await urls({ afterRequestedSeq: 0, limit: 10 }), ['k1', 'k3', 'k5']);
    assert.deepEqual(await urls({ afterRequestedSeq: 10, limit: 1 }), ['k3']);
    assert.deepEqual(await urls({ afterRequestedSeq: 0, limit: 10, beforeResultSeq: 150 }), ['k1', 'k3']);
    // A running crawl's pages are walked in requested order whatever their status.
    assert.deepEqual(await urls({ afterRequestedSeq: 0, limit: 10, anyStatus: true }), ['k1', 'k2', 'k3', 'k4', 'k5']);
    assert.deepEqual(await urls({ afterRequestedSeq: 20, limit: 2, anyStatus: true }), ['k3', 'k4']);
    assert.deepEqual(await store().countCrawlPages('cp'), { completed: 3, failed: 1 });
    assert.deepEqual(await store().countCrawlPages('cp', 100), { completed: 1, failed: 1 });
    assert.deepEqual(await store().getCrawlPage('cp', 'k1'), pageDoc('cp', 1, 'COMPLETED', 50));
    assert.equal(await store().getCrawlPage('cp', 'nope'), null);
  });

  test('a completed error page (HTTP >= 400) counts as failed, and stays listed with its content', async () => {
    await store().saveCrawlPage({ ...pageDoc('err', 1, 'COMPLETED', 10), metadata: { title: 'ok', description: '', statusCode: 200 } });
    await store().saveCrawlPage({ ...pageDoc('err', 2, 'COMPLETED', 20), metadata: { title: 'Not found', description: '', statusCode: 404 } });
    await store().saveCrawlPage({ ...pageDoc('err', 3, 'COMPLETED', 30), metadata: { title: 'no status', description: '' } });
    await store().saveCrawlPage(pageDoc('err', 4, 'FAILED', 40));
    assert.deepEqual(await store().countCrawlPages('err'), { completed: 2, failed: 2 });
    assert.equal((await store().listCrawlPages('err', { afterRequestedSeq: 0, limit: 10 })).length, 3);
  });

  test('a completed soft 404 (metadata.pageOutcome soft-404) counts as failed like HTTP 404', async () => {
    await store().saveCrawlPage({ ...pageDoc('soft', 1, 'COMPLETED', 10), metadata: { title: 'ok', description: '', statusCode: 200, pageOutcome: 'ok' } });
    await store().saveCrawlPage({ ...pageDoc('soft', 2, 'COMPLETED', 20), metadata: { title: 'Page not found', description: '', statusCode: 200, pageOutcome: 'soft-404' } });
    await store().saveCrawlPage({ ...pageDoc('soft', 3, 'COMPLETED', 30), metadata: { title: 'wall', description: '', statusCode: 200, pageOutcome: 'login-wall' } });
    assert.deepEqual(await store().countCrawlPages('soft'), { completed: 2, failed: 1 });
  });

  test('a page that repeats another is read with that page\'s content (the fields it names), and tells where its content is', async () => {
    const first: CrawlPageDoc = { ...pageDoc('first', 1, 'COMPLETED', 10), html: '<h1>1</h1>', json: { price: 3 } };
    await store().saveCrawlPage(first);
    await store().saveCrawlPage(pageDoc('first', 2, 'PENDING'));
    const own = { observed: true, changeStatus: 'same' as const, previousScrapeAt: '2026-03-01T00:00:00.000Z' };
    const repeat = (crawlId: string, origin: string, resultSeq: number): CrawlPageDoc => ({
      crawlId, pageKey: 'k1', url: 'https://site.test/p1', depth: 1, status: 'COMPLETED', requestedSeq: 10, resultSeq, lastSeq: resultSeq,
      metadata: { title: '1', description: '', notModified: true }, links: [], changeTracking: own,
      repeats: { crawlId: origin, pageKey: 'k1', fields: ['markdown', 'json'] },
    });
    await store().saveCrawlPage(repeat('second', 'first', 20));
    const { repeats: _, ...asRead } = { ...repeat('second', 'first', 20), markdown: '# 1', json: { price: 3 } };
    assert.deepEqual(await store().getCrawlPage('second', 'k1'), asRead, 'the content asked of it, not html, and no pointer');
    assert.deepEqual(await store().listCrawlPages('second', { afterRequestedSeq: 0, limit: 10 }), [asRead]);
    assert.deepEqual(await store().getCrawlPage('second', 'k1', { asStored: true }), repeat('second', 'first', 20), 'as saved, for the projector');
    // Where the content is: the page itself, or the page it repeats (so a chain of recrawls points at the first).
    assert.deepEqual(await store().crawlPageOrigin('first', 'k1'), { crawlId: 'first', pageKey: 'k1', fields: ['markdown', 'html', 'json'] });
    assert.deepEqual(await store().crawlPageOrigin('second', 'k1'), { crawlId: 'first', pageKey: 'k1', fields: ['markdown', 'json'] });
    assert.equal(await store().crawlPageOrigin('first', 'k2'), null, 'not completed');
    assert.equal(await store().crawlPageOrigin('first', 'nope'), null);
  });

  test('reset clears crawls too', async () => {
    await store().reset();
    assert.equal(await store().crawlJobs.get('c1'), null);
    assert.deepEqual(await store().countCrawlPages('cp'), { completed: 0, failed: 0 });
  });
});
