// Reads while one server of a real 3-node cluster (R3) is frozen (SIGSTOP): the event
// stream's leader.
// - At the freeze, before the others elect a new leader: the log's replication factor is
//   an outage, not one copy (read as one, every bucket opened then was scaled down to a
//   single copy), and a leader get asked then is answered by the leader elected meanwhile
//   (it was asked once, of the frozen leader, and timed out).
// - After the election: nats-server 2.9 still routes some direct gets to the frozen replica
//   (its routes stay open), and those waited out their whole timeout until the thaw. Through
//   connectNats each is answered within about DIRECT_GET_ATTEMPT_MS, by the stream's leader
//   when its replica does not answer, in the direct get's shape: a point read (seq,
//   next_by_subj), a last-by-subject read, a KV read, and a read of nothing.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredMsg } from 'nats';
import { DIRECT_GET_ATTEMPT_MS } from '../../../shared/src/infra/nats/direct-get-failover.js';
import { leaderMessageGet } from '../../../shared/src/infra/nats/leader-message-get.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';
import { logReplicas } from '../../../shared/src/infra/nats/replicas.js';
import { STREAM_NAME as STREAM } from '../../../shared/src/infra/subjects.js';
import { frozenClusterPerSuite } from '../../support/nats-cluster.js';
import { until } from '../../support/wait.js';

const BUCKET = 'failover-kv';
/** Reads asked while the server is frozen: a read routed to it is all but sure among them. */
const READS = 12;
/** The timeout each read is given (nats.js's JetStream default): one that waited it out fails the test. */
const READ_TIMEOUT_MS = 5_000;
/** How long the leader get asked at the freeze may wait: well past the others' election (about 10 s). */
const ELECTION_WITHIN_MS = 40_000;

describe('reads with the stream leader of three servers frozen', { timeout: 120_000 }, () => {
  // The stream's leader freezes; the client is on another server.
  const suite = frozenClusterPerSuite({
    freeze: 'leader',
    freezeBeforeTests: true,
    setup: async (js) => {
      for (let i = 0; i < 3; i++) await js.publish(`trawl.failover.a.${i}`, `a${i}`);
      const kv = await js.views.kv(BUCKET, { replicas: 3 });
      await kv.put('k', 'v1');
    },
  });

  // First: it must ask before the others elect a new leader (nats-server 2.9's election
  // timeout is 4 s at the least; this takes 1 s).
  test('the log\'s replication factor is an outage, not one copy, while its leader is frozen', async () => {
    // As a bucket opened lazily reads it (replicas.ts), with a timeout short enough to ask before the election.
    const read = logReplicas(suite.nc.jetstream({ timeout: 1_000, checkAPI: false }));
    await assert.rejects(read, (err: unknown) => isNatsOutage(err), 'before: 1, and a bucket opened then was scaled down to one copy');
  });

  // Waits out the election, which the direct gets below wait for anyway.
  test('a leader get asked at the freeze is answered by the leader elected meanwhile', async () => {
    const startedAt = Date.now();
    const answer = await leaderMessageGet(suite.nc, STREAM, { last_by_subj: 'trawl.failover.a.1' }, ELECTION_WITHIN_MS);
    assert.equal(answer.message?.seq, 2);
    process.stdout.write(`# a leader get asked at the freeze answered after ${Date.now() - startedAt} ms\n`);
  });

  test('each direct get is answered well inside its timeout once the others have a leader', async () => {
    const { nc, cluster, frozen } = suite;
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
        const m = await direct.getMessage(STREAM, { seq: 1, next_by_subj: 'trawl.failover.a.2' });
        assert.equal(m.subject, 'trawl.failover.a.2');
        assert.equal(m.string(), 'a2');
        assert.equal(m.seq, 3);
      } else if (kind === 1) {
        const m = await direct.getMessage(STREAM, { last_by_subj: 'trawl.failover.a.1' });
        assert.equal(m.string(), 'a1');
        assert.equal(m.header.get('Nats-Stream'), STREAM);
      } else if (kind === 2) {
        assert.equal((await kv.get('k'))?.string(), 'v1');
      } else {
        await assert.rejects(direct.getMessage(STREAM, { last_by_subj: 'trawl.failover.none' }), (err: { code?: string }) => err.code === '404');
      }
      slowest.push(Date.now() - startedAt);
    }
    process.stdout.write(`# read times (ms) with one server frozen: ${slowest.join(', ')}\n`);
    assert.ok(Math.max(...slowest) < READ_TIMEOUT_MS - 1_000, `a read took ${Math.max(...slowest)} ms (asked again after ${DIRECT_GET_ATTEMPT_MS} ms)`);
  });
});
