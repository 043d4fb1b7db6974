// The one KV compare-and-set helper (shared/src/infra/nats/kv-cas.ts) against a real nats-server:
// a write that lands between the read and the write is noticed and the decision is taken
// again on the new value; a key that never stops changing ends in KvContentionError.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type KV, type NatsConnection } from 'nats';
import { casUpdate, KnownRevisions, KvContentionError } from '../../../shared/src/infra/nats/kv-cas.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

describe('casUpdate', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let kv: KV;

  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    kv = await nc.jetstream().views.kv('kv-cas-test', { history: 1 });
  });
  after(async () => {
    await nc?.drain();
    await nats?.stop();
  });

  const increment = (text: string | null) => {
    const n = text === null ? 0 : Number(text);
    return { value: String(n + 1), result: n + 1 };
  };

  test('another writer between the read and the write: decided again on its value', async () => {
    await kv.put('counter', '5');
    const seen: Array<string | null> = [];
    const result = await casUpdate(kv, 'counter', async (text) => {
      seen.push(text);
      // The first round loses: another replica writes after this read.
      if (seen.length === 1) await kv.put('counter', '10');
      return increment(text);
    });
    assert.deepEqual(seen, ['5', '10']);
    assert.equal(result, 11);
    assert.equal((await kv.get('counter'))?.string(), '11');
  });

  test('a key created by another writer after an empty read: the create conflicts and is retried', async () => {
    const seen: Array<string | null> = [];
    const result = await casUpdate(kv, 'fresh', async (text) => {
      seen.push(text);
      if (seen.length === 1) await kv.create('fresh', '1');
      return increment(text);
    });
    assert.deepEqual(seen, [null, '1']);
    assert.equal(result, 2);
  });

  test('concurrent writers through two connections lose no update', async () => {
    const other = await connect({ servers: nats.url });
    try {
      const otherKv = await other.jetstream().views.kv('kv-cas-test', { history: 1 });
      const writes = Array.from({ length: 40 }, (_, i) => casUpdate(i % 2 ? kv : otherKv, 'shared', increment, { maxAttempts: 200 }));
      const results = await Promise.all(writes);
      assert.equal((await kv.get('shared'))?.string(), '40');
      assert.deepEqual([...results].sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));
    } finally {
      await other.drain();
    }
  });

  test('no value decided: nothing is written', async () => {
    await kv.put('untouched', 'a');
    const before = (await kv.get('untouched'))!.revision;
    assert.equal(await casUpdate(kv, 'untouched', () => ({ result: 'kept' })), 'kept');
    assert.equal((await kv.get('untouched'))!.revision, before);
  });

  test('a refusal thrown by decide reaches the caller', async () => {
    await assert.rejects(casUpdate(kv, 'counter', () => { throw new RangeError('full'); }), RangeError);
  });

  test('still contended after every attempt: KvContentionError', async () => {
    let rounds = 0;
    await assert.rejects(
      casUpdate(kv, 'busy', async (text) => {
        rounds++;
        await kv.put('busy', String(rounds));
        return increment(text);
      }, { maxAttempts: 3, backoffMaxMs: 0 }),
      (err: unknown) => err instanceof KvContentionError && err.attempts === 3 && err.key === 'busy',
    );
    assert.equal(rounds, 3);
  });

  /** The KV with its reads counted (the server and the bucket are real). */
  const countingReads = (): { kv: KV; reads: () => number } => {
    let reads = 0;
    const counted = Object.create(kv) as KV;
    counted.get = (key, opts) => { reads++; return kv.get(key, opts); };
    return { kv: counted, reads: () => reads };
  };

  test('given a revision this process wrote, when it writes again, then no read goes first', async () => {
    const known = new KnownRevisions();
    const { kv: counted, reads } = countingReads();
    await kv.put('mine', '1');
    assert.equal(await casUpdate(counted, 'mine', increment, { known }), 2);
    assert.equal(reads(), 1);
    assert.equal(await casUpdate(counted, 'mine', increment, { known }), 3);
    assert.equal(await casUpdate(counted, 'mine', increment, { known }), 4);
    assert.equal(reads(), 1);
    assert.equal((await kv.get('mine'))?.string(), '4');
  });

  test('given a remembered revision, when another writer wrote since, then the write is refused and decided again on its value', async () => {
    const known = new KnownRevisions();
    await kv.put('theirs', '1');
    await casUpdate(kv, 'theirs', increment, { known });
    await kv.put('theirs', '10'); // another replica
    const seen: Array<string | null> = [];
    const result = await casUpdate(kv, 'theirs', (text) => { seen.push(text); return increment(text); }, { known });
    assert.deepEqual(seen, ['2', '10']);
    assert.equal(result, 11);
    assert.equal((await kv.get('theirs'))?.string(), '11');
  });

  test('given a remembered value, when the decision is to write nothing or to refuse, then it is taken again on a read', async () => {
    const known = new KnownRevisions();
    await kv.put('stale', '1');
    await casUpdate(kv, 'stale', increment, { known });
    await kv.put('stale', '7');
    const seen: Array<string | null> = [];
    assert.equal(await casUpdate(kv, 'stale', (text) => { seen.push(text); return { result: text }; }, { known }), '7');
    assert.deepEqual(seen, ['2', '7']);
    const refused: Array<string | null> = [];
    await assert.rejects(casUpdate(kv, 'stale', (text) => { refused.push(text); throw new RangeError(`full at ${text}`); }, { known }), /full at 7/);
    assert.deepEqual(refused, ['7', '7']); // on the value the read above left remembered, then on a fresh read
  });
});
