// The fleet's per-host bound on a real 3-node JetStream cluster at R3 (nats-server 2.9, where
// a KV compare-and-set is checked before proposing, not when applied: nats-io/nats-server#4320):
// governors (fetcher replicas) asking at once through different servers never load more of
// one host at once than the bound; a slot whose holder process was SIGKILLed is free again
// within the holders' TTL, not before; a slot message is only ever deleted by its own
// sequence, so a late delete never frees a newer holder's slot.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { connect, headers, type NatsConnection } from 'nats';
import { HostGovernor } from '../../../services/fetcher/src/fleet/host-governor.js';
import { HostSlots, slotSubject } from '../../../services/fetcher/src/fleet/host-slots.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';
import { startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'slot-holder-child.js');
/** A short holder TTL for the test (the service's is slot-holders.ts' default). */
const TTL_MS = 3_000;

describe('fleet politeness on a 3-node cluster at R3', { timeout: 180_000 }, () => {
  let cluster: NatsClusterHandle;
  const conns: NatsConnection[] = [];
  const stops: (() => Promise<void>)[] = [];
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
    await Promise.all(stops.map((stop) => stop()));
    await site.close();
    await Promise.all(conns.map((nc) => nc.close()));
    await cluster.stop();
  });

  const governor = (nc: NatsConnection, holderId: string, maxInFlight: number): HostGovernor => {
    const g = new HostGovernor(nc.jetstream(), { maxInFlight, intervalMs: 0, holderId, holderTtlMs: TTL_MS, holderRenewMs: 500, leaseMs: 60_000 } as ConstructorParameters<typeof HostGovernor>[1]);
    stops.push(() => g.stop?.() ?? Promise.resolve());
    return g;
  };
  /** A taker whose heartbeat is written and whose first slot went through (streams just created at R3 answer 503 until their leader is elected). */
  const slots = async (nc: NatsConnection, holderId: string): Promise<HostSlots> => {
    const s = new HostSlots(nc.jetstream(), { holderId, ttlMs: TTL_MS, renewMs: 500 });
    stops.push(() => s.stop());
    await until(async () => {
      const warm = await s.take(`warm-up-${holderId}.test`, 1);
      if (warm) await s.release(warm);
      return warm !== undefined;
    }, { timeoutMs: 30_000, intervalMs: 200 });
    return s;
  };

  async function page(g: HostGovernor, host: string, signal = AbortSignal.timeout(90_000)): Promise<void> {
    const leave = await g.enter(host, signal);
    try {
      await (await fetch(site.url('/page'))).arrayBuffer();
    } finally {
      await leave();
    }
  }

  test('four replicas asking through three servers keep a bound of 2 exactly', async () => {
    const host = new URL(site.origin).host;
    const replicas = [...conns, conns[0]!].map((nc, i) => governor(nc, `bound-${i}`, 2));
    // A KV bucket just created at R3 answers its first reads late on 2.9: wait for every replica's.
    for (const g of replicas) await until(() => g.pace(host).then(() => true, () => false), { timeoutMs: 30_000, intervalMs: 200 });
    // Each replica would load 6 at once on its own, 5 times over: 120 pages.
    for (let wave = 0; wave < 5; wave++) {
      await Promise.all(replicas.flatMap((g) => Array.from({ length: 6 }, () => page(g, host))));
    }
    assert.equal(served, 120);
    assert.equal(mostAtOnce, 2);
  });

  test('a slot whose holder process was SIGKILLed is free again within the holders\' TTL, not while it lives', async () => {
    const host = 'killed-holder.test';
    const child = spawn(process.execPath, [CHILD, cluster.url, host, 'doomed', String(TTL_MS)], { stdio: ['ignore', 'pipe', 'inherit'] });
    stops.push(async () => { child.kill('SIGKILL'); });
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('held')) resolve(); });
      child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const other = governor(conns[2]!, 'survivor', 1);
    // While the holder lives (it renews its key), its slot stays its own past the TTL.
    await assert.rejects(other.enter(host, AbortSignal.timeout(TTL_MS + 2_000)), /timeout|abort/i);
    child.kill('SIGKILL');
    const killedAt = Date.now();
    const leave = await other.enter(host, AbortSignal.timeout(60_000));
    const waited = Date.now() - killedAt;
    await leave();
    assert.ok(waited < TTL_MS + 4_000, `taken again ${waited} ms after the kill`);
  });

  test('of six takers asking through three servers at once, exactly one holds a free slot, every round', async () => {
    const host = 'one-slot.test';
    const takers = await Promise.all(Array.from({ length: 6 }, (_, i) => slots(conns[i % 3]!, `taker-${i}`)));
    for (let round = 0; round < 40; round++) {
      const got = await Promise.all(takers.map((t) => t.take(host, 1).then((slot) => (slot ? { t, slot } : undefined))));
      const winners = got.filter((w) => w !== undefined);
      assert.equal(winners.length, 1, `round ${round}: ${winners.length} holders of one slot`);
      await winners[0]!.t.release(winners[0]!.slot);
    }
  });

  test('a release by sequence never frees a newer holder\'s slot; a gone holder\'s is taken over, a live one\'s is not', async () => {
    const host = 'release-by-seq.test';
    const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((id, i) => slots(conns[i]!, `seq-${id}`)));
    assert.ok(a && b && c);
    const first = await a.take(host, 1);
    assert.ok(first);
    await a.release(first);
    assert.ok(await b.take(host, 1), 'the first holder\'s slot is free once released');
    // A late, repeated release of the first holder's message (its delete retried after an outage).
    await a.release(first);
    assert.equal(await c.take(host, 1), undefined, 'the newer holder keeps its slot');
    // A slot message whose holder never had a heartbeat (a process gone long ago) is taken over.
    const js = conns[0]!.jetstream();
    const h = headers();
    h.set('Trawl-Slot-Holder', 'gone-long-ago');
    await js.publish(slotSubject('taken-over.test', 0), undefined, { headers: h });
    assert.ok(await c.take('taken-over.test', 1), 'a gone holder\'s slot is taken over');
    assert.equal(await a.take('taken-over.test', 1), undefined, 'and the live taker keeps it');
  });
});
