// The batches section of the read-model store, same contract for SQLite and MongoDB
// (MongoDB when MONGODB_URL is set): batch jobs by owner (summaries, newest first) and
// batch page contents by key.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import type { BatchJobDoc, BatchPageDoc } from '../../../shared/src/infra/store/index.js';
import { storeContract } from '../../support/store-contract.js';

function job(id: string, apiKeyId: string, createdAt: string, extra: Partial<BatchJobDoc> = {}): BatchJobDoc {
  return {
    id, apiKeyId, status: 'PROCESSING', createdAt, options: normalizeScrapeOptions({ formats: ['markdown', 'links'] }),
    pages: [
      { url: 'https://site.test/a', pageKey: 'ka', status: 'COMPLETED' },
      { url: 'https://site.test/b', pageKey: 'kb', status: 'FAILED', error: { code: 'NETWORK_ERROR', message: 'refused' } },
    ],
    totalUrls: 2, completedUrls: 1, failedUrls: 1, lastSeq: 3, ...extra,
  };
}

function pageDoc(batchId: string, pageKey: string): BatchPageDoc {
  return {
    batchId, pageKey, resultSeq: 5, lastSeq: 5, metadata: { title: pageKey, description: 'd', statusCode: 200 },
    content: {
      markdown: `# ${pageKey}`, links: ['https://x.test/'],
      screenshot: { name: `batch/${batchId}/${pageKey}/screenshot.png`, width: 10, height: 20, format: 'png', fileSize: 99, expiresAt: '2026-02-01T00:00:00.000Z' },
    },
  };
}

storeContract('batch store', 'batches', (store) => {
  test('batch jobs round-trip, and list as summaries by owner, newest first', async () => {
    for (let i = 0; i < 4; i++) await store().batchJobs.put(job(`b${i}`, 'owner', `2026-02-0${i + 1}T00:00:00.000Z`));
    await store().batchJobs.put(job('x', 'someone-else', '2026-03-01T00:00:00.000Z'));
    await store().batchJobs.put(job('b3', 'owner', '2026-02-04T00:00:00.000Z', { status: 'COMPLETED', completedAt: '2026-02-04T00:01:00.000Z', lastSeq: 9 }));
    assert.deepEqual(await store().batchJobs.get('b1'), job('b1', 'owner', '2026-02-02T00:00:00.000Z'));
    assert.equal((await store().batchJobs.get('b3'))?.lastSeq, 9);
    assert.equal(await store().batchJobs.get('missing'), null);
    const list = await store().batchJobs.listBy('owner', { limit: 2, offset: 0 });
    assert.deepEqual(list, [
      { id: 'b3', status: 'COMPLETED', totalUrls: 2, completedUrls: 1, failedUrls: 1, createdAt: '2026-02-04T00:00:00.000Z', completedAt: '2026-02-04T00:01:00.000Z' },
      { id: 'b2', status: 'PROCESSING', totalUrls: 2, completedUrls: 1, failedUrls: 1, createdAt: '2026-02-03T00:00:00.000Z' },
    ]);
    assert.deepEqual((await store().batchJobs.listBy('owner', { limit: 10, offset: 2 })).map((j) => j.id), ['b1', 'b0']);
    assert.deepEqual(await store().batchJobs.listBy('nobody', { limit: 10, offset: 0 }), []);
  });

  test('batch pages: by key, and a set of keys of one batch', async () => {
    await store().saveBatchPage(pageDoc('bp', 'k1'));
    await store().saveBatchPage(pageDoc('bp', 'k2'));
    await store().saveBatchPage(pageDoc('other', 'k1'));
    assert.deepEqual(await store().getBatchPage('bp', 'k1'), pageDoc('bp', 'k1'));
    assert.equal(await store().getBatchPage('bp', 'nope'), null);
    const some = await store().getBatchPages('bp', ['k2', 'k1', 'missing']);
    assert.deepEqual(some.map((p) => p.pageKey).sort(), ['k1', 'k2']);
    assert.ok(some.every((p) => p.batchId === 'bp'));
    assert.deepEqual(await store().getBatchPages('bp', []), []);
    await store().saveBatchPage({ ...pageDoc('bp', 'k1'), lastSeq: 8 });
    assert.equal((await store().getBatchPage('bp', 'k1'))?.lastSeq, 8);
  });

  test('reset clears batches too', async () => {
    await store().reset();
    assert.equal(await store().batchJobs.get('b1'), null);
    assert.equal(await store().getBatchPage('bp', 'k1'), null);
    assert.deepEqual(await store().batchJobs.listBy('owner', { limit: 10, offset: 0 }), []);
  });
});
