// One contract for every read-model store: the embedded SQLite store always, MongoDB when
// MONGODB_URL is set (skipped otherwise). Same calls, same answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import type { ScrapeJobDoc } from '../../../shared/src/infra/store/index.js';
import { storeContract } from '../../support/store-contract.js';

const options = normalizeScrapeOptions({});

function job(id: string, apiKeyId: string, createdAt: string, extra: Partial<ScrapeJobDoc> = {}): ScrapeJobDoc {
  return { id, apiKeyId, url: `https://example.com/${id}`, status: 'PENDING', fromCache: false, createdAt, options, attempts: 0, lastSeq: 1, ...extra };
}

storeContract('read-model store contract', 'contract', (store) => {
  test('init is idempotent and ping answers', async () => {
    await store().init();
    assert.equal(await store().ping(), true);
  });

  test('checkpoints start at 0 and only move forward', async () => {
    assert.equal(await store().getCheckpoint('p'), 0);
    await store().setCheckpoint('p', 10);
    await store().setCheckpoint('p', 5);
    assert.equal(await store().getCheckpoint('p'), 10);
  });

  test('scrape jobs round-trip, including content', async () => {
    const doc = job('j1', 'k1', '2026-01-01T00:00:00.000Z', { status: 'COMPLETED', content: { markdown: '# Hi', links: ['https://a/'] }, metadata: { title: 't', description: 'd' } });
    await store().scrapeJobs.put(doc);
    assert.deepEqual(await store().scrapeJobs.get('j1'), doc);
    await store().scrapeJobs.put({ ...doc, lastSeq: 7 });
    assert.equal((await store().scrapeJobs.get('j1'))?.lastSeq, 7);
    assert.equal(await store().scrapeJobs.get('missing'), null);
  });

  test('lists only the key\'s own jobs, newest first, with limit and offset', async () => {
    for (let i = 0; i < 5; i++) await store().scrapeJobs.put(job(`a${i}`, 'owner', `2026-02-0${i + 1}T00:00:00.000Z`));
    await store().scrapeJobs.put(job('b0', 'someone-else', '2026-03-01T00:00:00.000Z'));
    const all = await store().scrapeJobs.listBy('owner', { limit: 20, offset: 0 });
    assert.deepEqual(all.map((j) => j.id), ['a4', 'a3', 'a2', 'a1', 'a0']);
    const page = await store().scrapeJobs.listBy('owner', { limit: 2, offset: 1 });
    assert.deepEqual(page.map((j) => j.id), ['a3', 'a2']);
    assert.deepEqual(Object.keys(all[0]!).sort(), ['createdAt', 'fromCache', 'id', 'status', 'url']);
  });

  test('a listed job is its summary with its types, whatever content it holds', async () => {
    const big = { markdown: 'x'.repeat(200_000), links: ['https://a/'] };
    await store().scrapeJobs.put(job('c1', 'lister', '2026-04-01T00:00:00.000Z', { status: 'COMPLETED', fromCache: true, completedAt: '2026-04-01T00:00:01.000Z', content: big, metadata: { title: 't', description: 'd' } }));
    const [listed] = await store().scrapeJobs.listBy('lister', { limit: 10, offset: 0 });
    assert.deepEqual(listed, { id: 'c1', url: 'https://example.com/c1', status: 'COMPLETED', fromCache: true, createdAt: '2026-04-01T00:00:00.000Z', completedAt: '2026-04-01T00:00:01.000Z' });
    assert.equal((await store().scrapeJobs.get('c1'))?.content?.markdown, big.markdown, 'the job itself keeps its content');
  });

  test('api keys are found by id and by hash', async () => {
    const key = { id: 'key1', keyHash: 'a'.repeat(64), plan: 'pro' as const, label: 'x', createdAt: '2026-01-01T00:00:00.000Z', lastSeq: 3 };
    await store().apiKeys.put(key);
    assert.deepEqual(await store().apiKeys.get('key1'), key);
    assert.deepEqual(await store().apiKeys.find('a'.repeat(64)), key);
    assert.equal(await store().apiKeys.find('b'.repeat(64)), null);
  });

  test('an api key\'s plan change and revocation are saved over it and found by hash', async () => {
    const key = { id: 'key2', keyHash: 'd'.repeat(64), plan: 'free' as const, label: 'x', createdAt: '2026-01-01T00:00:00.000Z', lastSeq: 3 };
    await store().apiKeys.put(key);
    await store().apiKeys.put({ ...key, plan: 'team', lastSeq: 4 });
    assert.deepEqual(await store().apiKeys.find('d'.repeat(64)), { ...key, plan: 'team', lastSeq: 4 });
    const revoked = { ...key, plan: 'team' as const, revokedAt: '2026-02-01T00:00:00.000Z', lastSeq: 5 };
    await store().apiKeys.put(revoked);
    assert.deepEqual(await store().apiKeys.find('d'.repeat(64)), revoked, 'a revoked key is still found, with revokedAt');
    assert.deepEqual(await store().apiKeys.get('key2'), revoked);
  });

  test('scrape cache entries round-trip', async () => {
    assert.equal(await store().scrapeCache.get('k'.repeat(64)), null);
    const entry = { id: 'k'.repeat(64), completed: { jobId: 'j1', completedAt: '2026-01-01T00:00:00.000Z' }, lastSeq: 3 };
    await store().scrapeCache.put(entry);
    assert.deepEqual(await store().scrapeCache.get('k'.repeat(64)), entry);
  });

  test('key usage round-trips', async () => {
    assert.equal(await store().keyUsage.get('k9'), null);
    const usage = { id: 'k9', month: '2026-11', pages: 12, activeJobs: { j1: '2026-11-01T00:00:00.000Z' }, lastSeq: 4 };
    await store().keyUsage.put(usage);
    assert.deepEqual(await store().keyUsage.get('k9'), usage);
    await store().keyUsage.put({ ...usage, pages: 13, activeJobs: {} });
    assert.deepEqual(await store().keyUsage.get('k9'), { ...usage, pages: 13, activeJobs: {} });
  });

  test('a deleted document is gone, from its list too; deleting a missing one is no error', async () => {
    await store().scrapeJobs.put(job('d1', 'deleter', '2026-05-01T00:00:00.000Z'));
    await store().scrapeJobs.delete('d1');
    await store().scrapeJobs.delete('never-there');
    assert.equal(await store().scrapeJobs.get('d1'), null);
    assert.deepEqual(await store().scrapeJobs.listBy('deleter', { limit: 10, offset: 0 }), []);
  });

  test('reset empties everything', async () => {
    await store().reset();
    assert.equal(await store().scrapeJobs.get('j1'), null);
    assert.equal(await store().getCheckpoint('p'), 0);
  });
});
