// The auto engine's host profiles in the JetStream KV bucket, against a real nats-server:
// two replicas (two stores on two connections) share one profile and lose no update when
// they write at once, and a profile survives a nats-server restart (file storage).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { hostKeyOf, KvHostProfiles } from '../../../services/fetcher/src/engine/host-profile-store.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

const POLICY = { agreements: 3, recheckEvery: 25 };
const logger = createLogger('host-profiles-test', 'silent');
const at = '2026-01-01T00:00:00.000Z';

describe('host profiles (KV)', () => {
  let server: NatsServerHandle;
  const connections: NatsConnection[] = [];
  const replica = async (): Promise<KvHostProfiles> => {
    const nc = await connect({ servers: server.url });
    connections.push(nc);
    return new KvHostProfiles(nc.jetstream(), POLICY, logger);
  };

  before(async () => { server = await startNatsServer(); });
  after(async () => {
    await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
    await server.stop();
  });

  test('host keys: host and port, KV-safe', () => {
    assert.equal(hostKeyOf('http://127.0.0.1:8080/a?b'), '127.0.0.1_8080');
    assert.equal(hostKeyOf('https://Docs.Example.com/x'), 'docs.example.com');
    assert.equal(hostKeyOf('http://[::1]:3000/'), '___1__3000');
  });

  test('an unknown host is learning; verdicts from two replicas at once all count', async () => {
    const [a, b] = [await replica(), await replica()];
    assert.equal((await a.get('h1')).mode, 'learning');
    await Promise.all([
      ...Array.from({ length: 10 }, () => a.record('h1', { type: 'seen' })),
      ...Array.from({ length: 10 }, () => b.record('h1', { type: 'seen' })),
    ]);
    assert.equal((await b.get('h1')).sinceCheck, 20, 'no lost update');
    for (const store of [a, b, a]) await store.record('h1', { type: 'verified', agreed: true, similarity: 1, url: 'http://h1/', at });
    const seen = await b.get('h1');
    assert.deepEqual([seen.mode, seen.agreeing, seen.verifications, seen.sinceCheck], ['static', 3, 3, 0]);
    await a.record('h1', { type: 'verified', agreed: false, similarity: 0.3, url: 'http://h1/js', at });
    assert.equal((await b.get('h1')).mode, 'browser', 'one disagreement, seen by the other replica');
  });

  test('a profile survives a nats-server restart', async () => {
    const a = await replica();
    for (let i = 0; i < 3; i++) await a.record('h2', { type: 'verified', agreed: true, similarity: 1, url: 'http://h2/', at });
    await server.restart();
    const b = await replica();
    assert.equal((await b.get('h2')).mode, 'static');
  });
});
