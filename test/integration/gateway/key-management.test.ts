// Revoking a key and changing its plan, as the gateway sees it, with inject() against a real
// nats-server, the embedded store and a real projector in-process: the change is appended
// through the operator's commands (shared/src/domain/api-keys/admin.ts), projected, announced,
// and the next request follows it, although the key's earlier answer is still cached.
// The bound when the announcement is lost (the positive cache lifetime) is checked with
// the directory's own clock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { changeKeyPlan, createKey, revokeKey } from '../../../shared/src/domain/api-keys/admin.js';
import { apiKeyHash, apiKeyId, newId } from '../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { SqliteStore, type ApiKeyDoc } from '../../../shared/src/infra/store/index.js';
import { KeyDirectory, POSITIVE_TTL_MS } from '../../../services/gateway/src/plugins/auth.js';
import type { ProjectionWaiter } from '../../../services/gateway/src/projection-wait.js';
import { startGateway, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';

/** The store as the gateway reads it, with a hook that runs right after a key lookup has read. */
class ObservedStore extends SqliteStore {
  reads = 0;
  afterFind: (() => void) | undefined;
  constructor(file: string) {
    super(file);
    const find = this.apiKeys.find;
    this.apiKeys.find = async (keyHash: string): Promise<ApiKeyDoc | null> => {
      const doc = await find(keyHash);
      this.reads++;
      this.afterFind?.();
      return doc;
    };
  }
}

describe('gateway: revoked keys and plan changes', () => {
  let gateway: GatewayHarness<ObservedStore>;
  let app: GatewayApp;
  let store: ObservedStore;
  let log: EventLog;
  let waiter: ProjectionWaiter;

  before(async () => {
    gateway = await startGateway({
      env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', ERROR_TYPE_BASE: 'https://errors.example/trawl' },
      makeStore: (file) => new ObservedStore(file),
    });
    ({ app, store, log, waiter } = gateway);
  });

  after(() => gateway.close());

  /** A new key, projected (so the first request does not cache it as unknown). */
  async function newKey(plan: 'free' | 'team', label: string): Promise<{ key: string; keyId: string }> {
    const created = await createKey({ log }, plan, label);
    assert.ok(await waiter.waitFor(created.seq!), 'the projector applied key_created');
    return { key: created.key, keyId: created.keyId };
  }
  const list = (key: string) => app.inject({ method: 'GET', url: '/api/v1/scrape?limit=1', headers: { authorization: `Bearer ${key}` } });
  const scrape = (key: string) => app.inject({
    method: 'POST', url: '/api/v1/scrape',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, payload: JSON.stringify({ url: 'http://127.0.0.1:9/page' }),
  });

  test('a revoked key is refused with 401 UNAUTHORIZED "API key revoked" as soon as it is projected', async () => {
    const { key, keyId } = await newKey('team', 'to revoke');
    assert.equal((await list(key)).statusCode, 200, 'the key works, and its answer is now cached');
    const started = Date.now();
    const revoked = await revokeKey({ log }, keyId, 'leaked');
    assert.ok(await waiter.waitFor(revoked.seq!));
    // The projector announced the change before its checkpoint, on the connection the
    // gateway listens on: the cached answer is gone by now.
    const res = await list(key);
    const elapsedMs = Date.now() - started;
    assert.equal(res.statusCode, 401, res.body);
    assert.equal(res.json().code, 'UNAUTHORIZED');
    assert.equal(res.json().detail, 'API key revoked');
    assert.ok(elapsedMs < 1_000, `refused ${elapsedMs} ms after the revocation (the bound with the notice: well under 1 s)`);
    assert.equal((await scrape(key)).statusCode, 401, 'job creation too');
  });

  test('an unknown key is still "invalid API key": only a key\'s holder learns it was revoked', async () => {
    const res = await list('trawl_never_made_0000000000000000');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().detail, 'invalid API key');
  });

  test('a plan change applies to the limits of the next request', async () => {
    const { key, keyId } = await newKey('free', 'to upgrade');
    const first = await scrape(key);
    assert.equal(first.statusCode, 202, first.body);
    assert.equal(first.headers['x-ratelimit-limit'], '10', 'free: 10 requests per minute');
    const changed = await changeKeyPlan({ log }, keyId, 'team');
    assert.ok(await waiter.waitFor(changed.seq!));
    const second = await scrape(key);
    assert.equal(second.statusCode, 202, second.body);
    assert.equal(second.headers['x-ratelimit-limit'], '120', 'team: 120 requests per minute');
  });

  test('without the notice, the cached answer lasts at most the positive lifetime (the bound)', async () => {
    const { key, keyId } = await newKey('team', 'notice lost');
    let now = 1_000_000;
    const directory = new KeyDirectory(store, () => now); // not listening: every notice is "lost"
    assert.equal((await directory.lookup(key)).ok, true);
    const revoked = await revokeKey({ log }, keyId);
    assert.ok(await waiter.waitFor(revoked.seq!));
    now += POSITIVE_TTL_MS - 1;
    assert.equal((await directory.lookup(key)).ok, true, 'still cached just before the lifetime ends');
    now += 1;
    assert.deepEqual(await directory.lookup(key), { ok: false, reason: 'revoked' });
    assert.ok(POSITIVE_TTL_MS <= 5_000, 'docs/api.md promises 5 s');
  });

  test('a lookup that raced a change answers what it read but does not cache it', async () => {
    const { key } = await newKey('team', 'race');
    const directory = new KeyDirectory(store);
    store.afterFind = () => { store.afterFind = undefined; directory.evict(apiKeyHash(key)); };
    const before = store.reads;
    assert.equal((await directory.lookup(key)).ok, true);
    assert.equal((await directory.lookup(key)).ok, true);
    assert.equal(store.reads - before, 2, 'the raced answer was not kept: the second lookup read the store again');
    assert.equal((await directory.lookup(key)).ok, true);
    assert.equal(store.reads - before, 2, 'the second answer was kept');
  });

  test('a key created a moment after it was tried works at once (its "unknown" leaves the cache)', async () => {
    const key = `trawl_made_after_a_try_${newId()}`;
    assert.equal((await list(key)).statusCode, 401, 'unknown, and cached as unknown for 1 s');
    const created = await createKey({ log }, 'free', 'late', key);
    assert.equal(created.keyId, apiKeyId(key));
    assert.ok(await waiter.waitFor(created.seq!));
    assert.equal((await list(key)).statusCode, 200);
  });
});
