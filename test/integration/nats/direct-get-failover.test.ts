// A direct get asked while one server of a 3-node cluster is frozen (SIGSTOP), after the
// others have elected the stream's new leader: nats-server 2.9 still routes some to the
// frozen replica (its routes stay open), and those waited out their whole timeout until
// the thaw. Through connectNats each is answered within about DIRECT_GET_ATTEMPT_MS, by
// the stream's leader when its replica does not answer, in the direct get's shape: a point
// read (seq, next_by_subj), a last-by-subject read, a KV read, and a read of nothing.
// Real 3-node JetStream cluster at R3.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection, type StoredMsg } from 'nats';
import { connectNats } from '../../../shared/src/infra/nats/connect.js';
import { DIRECT_GET_ATTEMPT_MS } from '../../../shared/src/infra/nats/direct-get-failover.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';
import { until } from '../../support/wait.js';

const STREAM = 'FAILOVER';
const BUCKET = 'failover-kv';
/** Reads asked while the server is frozen: a read routed to it is all but sure among them. */
const READS = 12;
/** The timeout each read is given (nats.js's JetStream default): one that waited it out fails the test. */
const READ_TIMEOUT_MS = 5_000;

describe('direct gets with one server of three frozen', { timeout: 120_000 }, () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection;
  let frozen = -1;

  before(async () => {
    cluster = await startNatsCluster(3);
    const setup = await connect({ servers: cluster.url.split(',') });
    const jsm = await setup.jetstreamManager();
    await jsm.streams.add({ name: STREAM, subjects: ['failover.>'], num_replicas: 3, allow_direct: true });
    const js = setup.jetstream();
    for (let i = 0; i < 3; i++) await js.publish(`failover.a.${i}`, `a${i}`);
    const kv = await js.views.kv(BUCKET, { replicas: 3 });
    await kv.put('k', 'v1');
    await setup.close();
    // The stream's leader freezes; the client is on another server.
    frozen = await cluster.leaderOf(STREAM);
    const on = [0, 1, 2].find((i) => i !== frozen)!;
    nc = await connectNats(`nats://127.0.0.1:${cluster.nodes[on]!.clientPort}`, 'failover-test', createLogger('failover-test', 'silent'));
    cluster.freeze(frozen);
  });
  after(async () => {
    if (frozen >= 0) cluster?.thaw(frozen);
    await nc?.close();
    await cluster?.stop();
  });

  test('each read is answered well inside its timeout once the others have a leader', async () => {
    const jsm = await nc.jetstreamManager({ checkAPI: false, timeout: READ_TIMEOUT_MS });
    // "The others have a leader": the meta group (it answers the KV bind's API check) and
    // both streams, the test's and the bucket's, each elected apart from the frozen server.
    // Waiting on the test's stream alone let a KV read go to a leader still frozen (CI 20).
    const frozenName = cluster.nodes[frozen]!.name;
    const leaderOff = async (stream: string) => {
      const leader = (await jsm.streams.info(stream).catch(() => undefined))?.cluster?.leader;
      return leader !== undefined && leader !== frozenName;
    };
    await until(async () => {
      const meta = (await jsm.getAccountInfo().catch(() => undefined)) !== undefined;
      return meta && (await leaderOff(STREAM)) && (await leaderOff(`KV_${BUCKET}`));
    }, { timeoutMs: 60_000, intervalMs: 500 });
    // nats.js implements `direct` on its manager without declaring it on the interface.
    const direct = (jsm as unknown as { direct: { getMessage(stream: string, query: object): Promise<StoredMsg> } }).direct;
    // Read as the services read their buckets: by direct get.
    const kv = await nc.jetstream({ timeout: READ_TIMEOUT_MS }).views.kv(BUCKET, { bindOnly: true, allow_direct: true });
    const slowest: number[] = [];
    for (let i = 0; i < READS; i++) {
      const startedAt = Date.now();
      const kind = i % 4;
      if (kind === 0) {
        const m = await direct.getMessage(STREAM, { seq: 1, next_by_subj: 'failover.a.2' });
        assert.equal(m.subject, 'failover.a.2');
        assert.equal(m.string(), 'a2');
        assert.equal(m.seq, 3);
      } else if (kind === 1) {
        const m = await direct.getMessage(STREAM, { last_by_subj: 'failover.a.1' });
        assert.equal(m.string(), 'a1');
        assert.equal(m.header.get('Nats-Stream'), STREAM);
      } else if (kind === 2) {
        assert.equal((await kv.get('k'))?.string(), 'v1');
      } else {
        await assert.rejects(direct.getMessage(STREAM, { last_by_subj: 'failover.none' }), (err: { code?: string }) => err.code === '404');
      }
      slowest.push(Date.now() - startedAt);
    }
    process.stdout.write(`# read times (ms) with one server frozen: ${slowest.join(', ')}\n`);
    assert.ok(Math.max(...slowest) < READ_TIMEOUT_MS - 1_000, `a read took ${Math.max(...slowest)} ms (asked again after ${DIRECT_GET_ATTEMPT_MS} ms)`);
  });
});
