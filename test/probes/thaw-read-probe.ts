// A probe, not a test (issue 26; docs/benchmarks.md): on a real 3-node cluster, six writers
// append events and four readers read them back by ordered consumers (as EventLog.read does)
// while the stream's leader is frozen (SIGSTOP) for 15 s and thawed, ROUNDS times; prints
// every delivery whose body does not decode, the connection's status changes, and the
// counters of shared/src/infra/nats/reader-handover.ts. Run after a build:
//   ROUNDS=4 node dist/test/probes/thaw-read-probe.js
// Before that fix, 3 runs of 4 printed deliveries with another message's bytes spliced in
// ("MSG _INBOX... {"stream":"TRAWL"...") and nats.js's "reader closed ... parse error".
import { DeliverPolicy, StorageType, type JsMsg } from 'nats';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeEvent, makeEvent } from '../../shared/src/domain/events/index.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import { connectNats } from '../../shared/src/infra/nats/connect.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { STREAM_NAME } from '../../shared/src/infra/subjects.js';
import { startNatsCluster } from '../support/nats-cluster.js';
import { connect } from 'nats';
import { chunksOfReplacedSockets, closesOfLeftSockets } from '../../shared/src/infra/nats/reader-handover.js';

const cluster = await startNatsCluster(3);
const setup = await connect({ servers: cluster.url.split(',') });
const jsm0 = await setup.jetstreamManager();
for (;;) { try { await jsm0.streams.add({ name: STREAM_NAME, subjects: ['trawl.>'], num_replicas: 3, allow_direct: true, storage: StorageType.File, duplicate_window: 120e9, max_msg_size: 1 << 20 }); break; } catch { await sleep(250); } }
await setup.close();
const logger = createLogger('probe', 'silent');
const nc = await connectNats(cluster.url, 'probe', logger);
void (async () => { for await (const st of nc.status()) if (st.type !== 'pingTimer') console.log(`${new Date().toISOString()} status ${st.type} ${String(st.data)}`); })();
const log = new EventLog(nc.jetstream(), await nc.jetstreamManager(), () => !nc.isClosed());
const JOBS = ['probeJob00000000000001', 'probeJob00000000000002', 'probeJob00000000000003'];
let stop = false; let n = 0; let id = 0;
const bad: string[] = [];
const writer = async (w: number) => {
  while (!stop) {
    const job = JOBS[n % JOBS.length]!; const i = n++;
    const ev = makeEvent('crawl_links_discovered', { kind: 'crawl', id: job, part: i.toString(16).padStart(16, '0') }, { depth: 1, urls: [`http://site.test/${i}/${'x'.repeat(200 + (i % 700))}`], skipped: {}, discoveredAt: new Date().toISOString() } as never, { eventId: `e${w}-${id++}`, now: new Date() });
    try { await log.append(ev, { once: true }); } catch (e) { await sleep(200); }
  }
};
const reader = async (r: number) => {
  while (!stop) {
    const job = JOBS[r % JOBS.length]!;
    try {
      const c = await nc.jetstream().consumers.get(STREAM_NAME, { filterSubjects: `trawl.crawl.${job}.>`, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: 1, inactive_threshold: 10_000 });
      const info = await Promise.race([c.info(), sleep(2000).then(() => null)]);
      if (!info) { void c.delete().catch(() => {}); continue; }
      let pending = info.num_pending;
      while (pending > 0) {
        const batch = await c.fetch({ max_messages: Math.min(pending, 500), expires: 2000 });
        let got = 0;
        for await (const m of batch) {
          got++; pending = m.info.pending;
          try { decodeEvent(m.subject, m.data, m.seq); } catch (e) {
            bad.push(`${new Date().toISOString()} reader ${r} consumer on ${info.cluster?.leader}: ${String(e)} seq ${m.seq} dseq ${m.info.deliverySequence} len ${m.data.length} hdrs ${m.headers ? [...m.headers.keys()].join(',') : '-'} body ${Buffer.from(m.data.subarray(0, 80)).toString('hex')} ${JSON.stringify(Buffer.from(m.data.subarray(0,80)).toString())}`);
            console.log(bad.at(-1));
          }
          if (pending === 0) break;
        }
        if (got === 0) break;
      }
      void c.delete().catch(() => {});
    } catch (e) { await sleep(200); }
  }
};
const ws = Array.from({ length: 6 }, (_, w) => writer(w));
const rs = Array.from({ length: 4 }, (_, r) => reader(r));
const rounds = Number(process.env.ROUNDS ?? 3);
for (let round = 0; round < rounds; round++) {
  await sleep(4000);
  const leader = await cluster.leaderOf(STREAM_NAME);
  console.log(`${new Date().toISOString()} round ${round}: freeze n${leader + 1}, events ${n}`);
  cluster.freeze(leader);
  await sleep(Number(process.env.FREEZE_MS ?? 15000));
  cluster.thaw(leader);
  console.log(`${new Date().toISOString()} thawed, events ${n}, bad so far ${bad.length}, replaced-socket chunks dropped ${chunksOfReplacedSockets()}, left sockets' closes kept from reconnecting ${closesOfLeftSockets()}`);
  await sleep(10000);
}
stop = true;
await Promise.all([...ws, ...rs]);
console.log(`done: ${n} events, ${bad.length} undecodable deliveries, replaced-socket chunks dropped ${chunksOfReplacedSockets()}, left sockets' closes kept from reconnecting ${closesOfLeftSockets()}`);
await nc.close();
await cluster.stop();
process.exit(0);
