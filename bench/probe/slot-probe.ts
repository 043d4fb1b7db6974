// Probe (not part of `npm run bench`): is a "take this place if it is free" write exact on a
// 3-node JetStream cluster at R3 on the nats-server we have (Debian's 2.9.10)? Many takers ask
// for one place at once, round after round, and the probe counts how many were told yes per
// round (exact: never more than one). Three primitives:
//   kv-cas-update   the fleet governor's write today: a KV update naming the revision read
//                   (Nats-Expected-Last-Subject-Sequence > 0), checked by 2.9 before proposing
//                   only (nats-io/nats-server#4320);
//   expect-seq-0    a create: publish with Nats-Expected-Last-Subject-Sequence 0 on an empty
//                   subject, freed by deleting that message by its sequence;
//   discard-new     a stream with max_msgs_per_subject 1, discard new, discard_new_per_subject:
//                   the store refuses a second message on the subject, freed the same way.
// Usage: npx tsx bench/probe/slot-probe.ts  (PROBE_ROUNDS, PROBE_TAKERS, PROBE_ONLY=a,b)
import { connect, headers, type JetStreamClient, type NatsConnection } from 'nats';
import { casUpdate } from '../../shared/src/infra/nats/kv-cas.js';
import { startNatsCluster } from '../../test/support/nats-cluster.js';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 200);
const TAKERS = Number(process.env.PROBE_TAKERS ?? 6);
const ONLY = process.env.PROBE_ONLY?.split(',');

interface Tally { rounds: number; overTaken: number; mostTaken: number; none: number; errors: Record<string, number> }

type Take = (js: JetStreamClient, round: number, taker: number) => Promise<number | undefined>;
interface Primitive {
  name: string;
  setUp(js: JetStreamClient): Promise<void>;
  /** Before the round's takers fire (the place exists and is free). */
  prepare(js: JetStreamClient, round: number): Promise<void>;
  /** A taker's ask: the winner's sequence, or undefined when refused. */
  take: Take;
  /** After the round: frees the place the winners hold. */
  free(js: JetStreamClient, round: number, winners: number[]): Promise<void>;
}

/** The server's refusal: wrong last sequence (10071), or the per-subject limit of a discard-new stream (10077, message "503"). */
const refused = (err: unknown): boolean => {
  const api = (err as { api_error?: { err_code?: number; description?: string } })?.api_error;
  return /wrong last sequence|maximum messages per subject|key exists/i.test(`${String((err as Error)?.message)} ${api?.description ?? ''}`);
};

function streamSlots(name: string, stream: string, extra: Record<string, unknown>, withHeader: boolean): Primitive {
  const subject = `${stream.toLowerCase()}.slot`;
  return {
    name,
    setUp: async (js) => {
      const jsm = await js.jetstreamManager();
      await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`], num_replicas: 3, max_msgs_per_subject: 1, ...extra });
      const got = (await jsm.streams.info(stream)).config as unknown as Record<string, unknown>;
      console.log(`  ${stream}: discard ${String(got.discard)}, discard_new_per_subject ${String(got.discard_new_per_subject)}, max_msgs_per_subject ${String(got.max_msgs_per_subject)}, replicas ${String(got.num_replicas)}`);
    },
    prepare: async () => undefined,
    take: async (js, round, taker) => {
      const h = headers();
      h.set('taker', `${round}.${taker}`);
      try {
        const ack = await js.publish(subject, new TextEncoder().encode(`${round}.${taker}`), withHeader ? { expect: { lastSubjectSequence: 0 }, headers: h } : { headers: h });
        return ack.seq;
      } catch (err) {
        if (refused(err)) return undefined;
        throw err;
      }
    },
    free: async (js, _round, winners) => {
      const jsm = await js.jetstreamManager();
      for (const seq of winners) await jsm.streams.deleteMessage(stream, seq, false);
    },
  };
}

const kvCasUpdate: Primitive = {
  name: 'kv-cas-update',
  setUp: async () => undefined,
  prepare: async (js, round) => { await (await js.views.kv('probe_places', { replicas: 3, history: 1 })).put(`r${round}`, 'free'); },
  take: async (js, round, taker) => {
    const kv = await js.views.kv('probe_places', { replicas: 3, history: 1 });
    // The governor's decision: take the place only when it was read free.
    return casUpdate(kv, `r${round}`, (text) => (text === 'free' ? { value: `${round}.${taker}`, result: taker + 1 } : { result: undefined }));
  },
  free: async () => undefined,
};

const primitives: Primitive[] = [
  kvCasUpdate,
  streamSlots('expect-seq-0', 'PROBE_CREATE', {}, true),
  streamSlots('discard-new', 'PROBE_SLOTS', { discard: 'new', discard_new_per_subject: true }, false),
].filter((p) => !ONLY || ONLY.includes(p.name));

/**
 * Each replica's copy agrees: a refusal taken by the leader alone (and stored by a follower)
 * would leave the copies apart. Moves the stream's leadership to every server in turn and
 * prints what each leader holds.
 */
async function replicasAgree(nc: NatsConnection, stream: string): Promise<void> {
  const jsm = await nc.jetstreamManager();
  const seen = new Map<string, string>();
  for (let i = 0; i < 8 && seen.size < 3; i++) {
    const info = await jsm.streams.info(stream);
    if (info.cluster?.leader) seen.set(info.cluster.leader, `${info.state.messages} messages, last seq ${info.state.last_seq}`);
    await nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${stream}`, undefined, { timeout: 5_000 }).catch(() => undefined);
    for (let t = 0; t < 50; t++) {
      await new Promise((r) => setTimeout(r, 200));
      if ((await jsm.streams.info(stream).catch(() => undefined))?.cluster?.leader) break;
    }
  }
  const states = [...seen.values()];
  console.log(`  ${stream} as each server leading it: ${[...seen].map(([k, v]) => `${k}: ${v}`).join('; ')}; ${new Set(states).size === 1 ? 'the copies agree' : 'THE COPIES DIFFER'}`);
}

const cluster = await startNatsCluster(3);
const conns: NatsConnection[] = [];
try {
  // One connection per node: each taker's ask enters the cluster at a different server.
  for (const node of cluster.nodes) conns.push(await connect({ servers: `nats://127.0.0.1:${node.clientPort}` }));
  const jss = conns.map((nc) => nc.jetstream());
  console.log(`nats-server 3 nodes, R3; ${TAKERS} takers over ${conns.length} connections, ${ROUNDS} rounds each`);
  for (const p of primitives) {
    await p.setUp(jss[0]!);
    const tally: Tally = { rounds: 0, overTaken: 0, mostTaken: 0, none: 0, errors: {} };
    const startedAt = Date.now();
    for (let round = 0; round < ROUNDS; round++) {
      await p.prepare(jss[0]!, round);
      const asks = Array.from({ length: TAKERS }, (_, t) => p.take(jss[t % jss.length]!, round, t).catch((err: Error) => {
        const key = String(err.message).slice(0, 60);
        tally.errors[key] = (tally.errors[key] ?? 0) + 1;
        return undefined;
      }));
      const winners = (await Promise.all(asks)).filter((w): w is number => w !== undefined);
      tally.rounds++;
      if (winners.length > 1) tally.overTaken++;
      if (winners.length === 0) tally.none++;
      tally.mostTaken = Math.max(tally.mostTaken, winners.length);
      await p.free(jss[0]!, round, winners);
    }
    const ms = Date.now() - startedAt;
    if (p.name !== kvCasUpdate.name) await replicasAgree(conns[0]!, p.name === 'discard-new' ? 'PROBE_SLOTS' : 'PROBE_CREATE');
    console.log(`${p.name}: ${tally.rounds} rounds, rounds with more than one taker told yes: ${tally.overTaken}, most told yes in a round: ${tally.mostTaken}, rounds with none: ${tally.none}, errors ${JSON.stringify(tally.errors)}, ${(ms / tally.rounds).toFixed(1)} ms/round`);
  }
} finally {
  await Promise.all(conns.map((nc) => nc.close()));
  await cluster.stop();
}
