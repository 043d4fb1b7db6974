// NATS_REPLICAS on a real three-node JetStream cluster: the log, the object stores and
// every KV bucket opened later hold that many copies; resources created with fewer are
// raised in place; a factor the servers cannot hold is refused with a message naming the
// setting.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { openKv, ReplicationError } from '../../../shared/src/infra/nats/replicas.js';
import { loadServerSecret } from '../../../shared/src/domain/webhooks.js';
import { BASELINE_BUCKET, PAYLOAD_BUCKET, STREAM_NAME } from '../../../shared/src/infra/subjects.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';
import { startNatsServer } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const base = { eventRetentionMs: 0, payloadTtlMs: 60_000 };

async function replicasOf(jsm: JetStreamManager, stream: string): Promise<{ configured: number; current: number }> {
  const info = await jsm.streams.info(stream);
  // The leader plus the followers that are caught up.
  const current = 1 + (info.cluster?.replicas ?? []).filter((r) => r.current).length;
  return { configured: info.config.num_replicas, current };
}

describe('NATS_REPLICAS on a three-node cluster', { timeout: 120_000 }, () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  before(async () => {
    cluster = await startNatsCluster(3);
    nc = await connect({ servers: cluster.url });
    jsm = await nc.jetstreamManager();
  });
  after(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  test('resources created at one replica are raised to three, buckets opened later follow the log', async () => {
    await ensureInfrastructure(nc, { ...base, replicas: 1 });
    const js = nc.jetstream();
    await js.views.kv('trawl-older', { history: 1 }); // a bucket from before NATS_REPLICAS
    for (const stream of [STREAM_NAME, `OBJ_${PAYLOAD_BUCKET}`, `OBJ_${BASELINE_BUCKET}`, 'KV_trawl-older']) {
      assert.equal((await replicasOf(jsm, stream)).configured, 1, stream);
    }

    await ensureInfrastructure(nc, { ...base, replicas: 3 });
    await openKv(js, 'trawl-older', { history: 1 });
    await openKv(js, 'trawl-newer', { history: 1 });
    await loadServerSecret(js, undefined); // a real call site: the webhook secrets bucket
    for (const stream of [STREAM_NAME, `OBJ_${PAYLOAD_BUCKET}`, `OBJ_${BASELINE_BUCKET}`, 'KV_trawl-older', 'KV_trawl-newer', 'KV_trawl-secrets']) {
      await until(async () => (await replicasOf(jsm, stream)).current === 3, { timeoutMs: 20_000, intervalMs: 200 });
      assert.deepEqual(await replicasOf(jsm, stream), { configured: 3, current: 3 }, stream);
    }
  });

  test('the log keeps its events when the node that leads it is killed', async () => {
    const js = nc.jetstream();
    for (let i = 0; i < 20; i++) await js.publish(`trawl.test.replicas.${i}`, new TextEncoder().encode(String(i)));
    const before = (await jsm.streams.info(STREAM_NAME)).state.messages;
    const leader = await cluster.leaderOf(STREAM_NAME);
    await cluster.kill(leader);
    try {
      // A new leader is elected among the two left, and it has every event.
      await until(async () => {
        const info = await jsm.streams.info(STREAM_NAME);
        return info.cluster?.leader !== undefined && info.cluster.leader !== cluster.nodes[leader]!.name;
      }, { timeoutMs: 30_000, intervalMs: 250 });
      assert.equal((await jsm.streams.info(STREAM_NAME)).state.messages, before);
      await js.publish('trawl.test.replicas.after', new TextEncoder().encode('x'));
    } finally {
      await cluster.start(leader);
    }
  });

  test('ensureInfrastructure keeps a factor it is given again, and lowers it when told', async () => {
    await ensureInfrastructure(nc, { ...base, replicas: 3 });
    assert.equal((await replicasOf(jsm, STREAM_NAME)).configured, 3);
    await ensureInfrastructure(nc, { ...base, replicas: 1 });
    assert.equal((await replicasOf(jsm, STREAM_NAME)).configured, 1);
    await ensureInfrastructure(nc, { ...base, replicas: 3 });
  });
});

describe('NATS_REPLICAS on one server', { timeout: 60_000 }, () => {
  test('more than one replica is refused with a message naming NATS_REPLICAS', async () => {
    const server = await startNatsServer();
    const nc = await connect({ servers: server.url });
    try {
      await assert.rejects(ensureInfrastructure(nc, { ...base, replicas: 3 }), (err: unknown) => {
        assert.ok(err instanceof ReplicationError, String(err));
        assert.match(err.message, /NATS_REPLICAS/);
        return true;
      });
      // One replica, the default, works.
      await ensureInfrastructure(nc, base);
      assert.equal((await (await nc.jetstreamManager()).streams.info(STREAM_NAME)).config.num_replicas, 1);
    } finally {
      await nc.close();
      await server.stop();
    }
  });
});
