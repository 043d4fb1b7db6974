// The console's store methods (accounts, invites, sessions, keys by account, pages per
// day), one contract for SQLite and MongoDB (when MONGODB_URL is set).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AccountDoc, ApiKeyDoc, InviteDoc, SessionDoc } from '../../../shared/src/infra/store/index.js';
import { storeContract } from '../../support/store-contract.js';

const account = (id: string, createdAt: string, extra: Partial<AccountDoc> = {}): AccountDoc => ({
  id, email: `${id}@example.com`, passwordHash: 'scrypt$1$1$1$a$b', role: 'member', plan: 'free', status: 'ACTIVE', createdAt, lastSeq: 1, ...extra,
});
const key = (id: string, createdAt: string, accountId?: string): ApiKeyDoc => ({
  id, keyHash: id.padEnd(64, '0'), plan: 'free', label: id, createdAt, ...(accountId ? { accountId } : {}), lastSeq: 1,
});

storeContract('console store contract', 'console', (store) => {
  test('accounts round-trip and list newest first', async () => {
    assert.equal(await store().accounts.get('a1'), null);
    await store().accounts.put(account('a1', '2026-01-01T00:00:00.000Z'));
    await store().accounts.put(account('a2', '2026-01-02T00:00:00.000Z', { role: 'admin' }));
    await store().accounts.put({ ...account('a1', '2026-01-01T00:00:00.000Z'), status: 'DISABLED', plan: 'pro', lastSeq: 5 });
    assert.deepEqual(await store().accounts.get('a1'), { ...account('a1', '2026-01-01T00:00:00.000Z'), status: 'DISABLED', plan: 'pro', lastSeq: 5 });
    assert.deepEqual((await store().accounts.list({ limit: 10, offset: 0 })).map((a) => a.id), ['a2', 'a1']);
    assert.deepEqual((await store().accounts.list({ limit: 1, offset: 1 })).map((a) => a.id), ['a1']);
  });

  test('invites and sessions round-trip', async () => {
    const invite: InviteDoc = { id: 'i1', tokenHash: 'f'.repeat(64), role: 'admin', createdAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-08T00:00:00.000Z', createdBy: 'operator', lastSeq: 2 };
    await store().invites.put(invite);
    await store().invites.put({ ...invite, id: 'i2', createdAt: '2026-01-03T00:00:00.000Z' });
    await store().invites.put({ ...invite, redeemedAt: '2026-01-02T00:00:00.000Z', redeemedBy: 'a1', lastSeq: 3 });
    assert.equal((await store().invites.get('i1'))?.redeemedBy, 'a1');
    assert.deepEqual((await store().invites.list({ limit: 10, offset: 0 })).map((i) => i.id), ['i2', 'i1']);
    const session: SessionDoc = { id: 'e'.repeat(64), accountId: 'a1', startedAt: '2026-01-01T00:00:00.000Z', expiresAt: '2026-01-08T00:00:00.000Z', lastSeq: 4 };
    await store().sessions.put(session);
    assert.deepEqual(await store().sessions.get('e'.repeat(64)), session);
    await store().sessions.put({ ...session, endedAt: '2026-01-02T00:00:00.000Z', lastSeq: 6 });
    assert.equal((await store().sessions.get('e'.repeat(64)))?.endedAt, '2026-01-02T00:00:00.000Z');
    assert.equal(await store().sessions.get('nope'), null);
  });

  test('an account lists only its own keys, newest first; unowned keys belong to no account', async () => {
    await store().apiKeys.put(key('k1', '2026-01-01T00:00:00.000Z', 'acc1'));
    await store().apiKeys.put(key('k2', '2026-01-02T00:00:00.000Z', 'acc1'));
    await store().apiKeys.put(key('k3', '2026-01-03T00:00:00.000Z', 'acc2'));
    await store().apiKeys.put(key('k4', '2026-01-04T00:00:00.000Z'));
    await store().apiKeys.put({ ...key('k1', '2026-01-01T00:00:00.000Z', 'acc1'), revokedAt: '2026-01-05T00:00:00.000Z', lastSeq: 2 });
    const own = await store().apiKeys.listBy('acc1', { limit: 10, offset: 0 });
    assert.deepEqual(own.map((k) => k.id), ['k2', 'k1']);
    assert.equal(own[1]?.revokedAt, '2026-01-05T00:00:00.000Z');
    assert.deepEqual((await store().apiKeys.listBy('acc2', { limit: 10, offset: 0 })).map((k) => k.id), ['k3']);
    assert.equal((await store().apiKeys.find('k4'.padEnd(64, '0')))?.accountId, undefined);
    // An adopted key (key_adopted) is listed under its account from then on.
    await store().apiKeys.put({ ...key('k4', '2026-01-04T00:00:00.000Z', 'acc2'), adoptedAt: '2026-01-06T00:00:00.000Z', lastSeq: 3 });
    assert.deepEqual((await store().apiKeys.listBy('acc2', { limit: 10, offset: 0 })).map((k) => k.id), ['k4', 'k3']);
  });

  test('map jobs round-trip; a key\'s list is newest first and leaves the links out', async () => {
    const map = { id: 'm1', apiKeyId: 'k1', url: 'https://a.example', status: 'PROCESSING' as const, createdAt: '2026-01-01T00:00:00.000Z', lastSeq: 1 };
    assert.equal(await store().mapJobs.get('m1'), null);
    await store().mapJobs.put(map);
    await store().mapJobs.put({ ...map, id: 'm2', createdAt: '2026-01-02T00:00:00.000Z' });
    await store().mapJobs.put({ ...map, id: 'm3', apiKeyId: 'k2' });
    const done = { ...map, status: 'COMPLETED' as const, completedAt: '2026-01-01T00:00:01.000Z', count: 2, partial: false, links: ['https://a.example/1', 'https://a.example/2'], lastSeq: 2 };
    await store().mapJobs.put(done);
    assert.deepEqual(await store().mapJobs.get('m1'), done);
    const listed = await store().mapJobs.listBy('k1', { limit: 10, offset: 0 });
    assert.deepEqual(listed.map((m) => m.id), ['m2', 'm1']);
    assert.equal(listed[1]?.count, 2);
    assert.equal(listed[1]?.links, undefined);
  });

  test('pages per day round-trip', async () => {
    assert.equal(await store().keyDailyPages.get('k1'), null);
    await store().keyDailyPages.put({ id: 'k1', days: { '2026-01-01': 3 }, lastSeq: 9 });
    assert.deepEqual(await store().keyDailyPages.get('k1'), { id: 'k1', days: { '2026-01-01': 3 }, lastSeq: 9 });
  });
});
