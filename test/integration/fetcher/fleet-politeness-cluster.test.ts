// The fleet's per-host bound on a real 3-node JetStream cluster at R3 (nats-server 2.9, where
// a KV compare-and-set is checked before proposing, not when applied: nats-io/nats-server#4320):
// four host governors (four fetcher replicas) asking at once through different servers never
// load more of one host at once than the bound, and a place whose holder died is taken again
// once its lease runs out.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { HostGovernor } from '../../../services/fetcher/src/fleet/host-governor.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';
import { startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';

describe('fleet politeness on a 3-node cluster at R3', { timeout: 120_000 }, () => {
  let cluster: NatsClusterHandle;
  const conns: NatsConnection[] = [];
  let site: TestSite;
  let loading = 0;
  let mostAtOnce = 0;
  let served = 0;
  before(async () => {
    cluster = await startNatsCluster(3);
    for (const node of cluster.nodes) conns.push(await connect({ servers: `nats://127.0.0.1:${node.clientPort}` }));
    // The log at R3: the slots and the pace follow its replicas.
    await ensureInfrastructure(conns[0]!, { eventRetentionMs: 0, payloadTtlMs: 60_000, replicas: 3 });
    site = await startSite({
      '/page': (_req: http.IncomingMessage, res: http.ServerResponse) => {
        loading++;
        served++;
        mostAtOnce = Math.max(mostAtOnce, loading);
        setTimeout(() => { loading--; res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>'); }, 30);
      },
    });
  });
  after(async () => {
    await site.close();
    await Promise.all(conns.map((nc) => nc.close()));
    await cluster.stop();
  });

  async function page(governor: HostGovernor): Promise<void> {
    const host = new URL(site.origin).host;
    const leave = await governor.enter(host, AbortSignal.timeout(90_000));
    try {
      await (await fetch(site.url('/page'))).arrayBuffer();
    } finally {
      await leave();
    }
  }

  test('four replicas asking through three servers keep a bound of 2 exactly', async () => {
    const limits = { maxInFlight: 2, intervalMs: 0, leaseMs: 60_000 };
    const replicas = conns.concat(conns[0]!).map((nc) => new HostGovernor(nc.jetstream(), limits));
    // A KV bucket just created at R3 answers its first direct reads late on 2.9: wait for every replica's.
    const host = new URL(site.origin).host;
    for (const g of replicas) await until(() => g.pace(host).then(() => true, () => false), { timeoutMs: 30_000, intervalMs: 200 });
    // Each replica would load 6 at once on its own, 5 times over: 120 pages.
    for (let wave = 0; wave < 5; wave++) {
      await Promise.all(replicas.flatMap((g) => Array.from({ length: 6 }, () => page(g))));
    }
    assert.equal(served, 120);
    assert.equal(mostAtOnce, 2);
  });

  test('a place whose holder died is taken again once its lease runs out', async () => {
    const limits = { maxInFlight: 1, intervalMs: 0, leaseMs: 1_500 };
    const host = new URL(site.origin).host;
    const dead = new HostGovernor(conns[1]!.jetstream(), limits);
    await dead.enter(host, AbortSignal.timeout(10_000)); // never released: its holder "died"
    const heldAt = Date.now();
    await page(new HostGovernor(conns[2]!.jetstream(), limits));
    const waited = Date.now() - heldAt;
    assert.ok(waited >= 1_400 && waited < 10_000, `taken again after ${waited} ms`);
  });
});
