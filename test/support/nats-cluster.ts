// Starts a real N-node JetStream cluster on loopback for one test file (the same node
// arguments as `npm run cluster`, scripts/nats-cluster.ts), with the handles a chaos test
// needs: kill a node (SIGKILL), start it again on its port and store, freeze it (SIGSTOP)
// and thaw it, and ask which node leads a stream. frozenClusterPerSuite() is the set-up of
// the tests that read or write while one server of three is frozen.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { connect, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import { clusterUrl, natsNodeArgs, writeNodeConfig, type ClusterNode } from '../../scripts/nats-cluster.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { connectNats } from '../../shared/src/infra/nats/connect.js';
import { STREAM_NAME } from '../../shared/src/infra/subjects.js';
import { freePort } from './nats-server.js';
import { until } from './wait.js';

export interface NatsClusterHandle {
  nodes: readonly ClusterNode[];
  /** Every node's client URL, comma-separated (a services' NATS_URL). */
  url: string;
  pid(index: number): number | undefined;
  /** SIGKILL, keeping port and store. */
  kill(index: number): Promise<void>;
  start(index: number): Promise<void>;
  freeze(index: number): void;
  thaw(index: number): void;
  /** The index of the node that leads `stream` (waits until one does). */
  leaderOf(stream: string): Promise<number>;
  stop(): Promise<void>;
}

/** How long a fresh cluster may take to elect its meta leader before it is launched again on other ports. */
const CLUSTER_UP_MS = 20_000;
const CLUSTER_LAUNCHES = 3;
/** How long a node may take to act on SIGTERM before it is killed (a node still starting may never act on it). */
const NODE_STOP_MS = 5_000;

export async function startNatsCluster(size = 3): Promise<NatsClusterHandle> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-nats-cluster-'));
  const nodes: ClusterNode[] = [];
  const procs: (ChildProcess | undefined)[] = [];
  const launch = (i: number): void => {
    procs[i] = spawn('nats-server', natsNodeArgs(nodes[i]!, nodes), { stdio: 'ignore' });
  };
  const kill = async (i: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> => {
    const proc = procs[i];
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGCONT'); // a frozen node cannot act on SIGTERM
    proc.kill(signal);
    if (signal === 'SIGKILL') return void (await exited);
    const late = setTimeout(() => proc.kill('SIGKILL'), NODE_STOP_MS);
    await exited;
    clearTimeout(late);
  };
  // The ports are free when picked but not held: a test file running beside this one may take
  // one before its node binds it, and that node exits. A cluster whose meta group does not
  // come up is launched again, on other ports and an empty store.
  for (let launchNo = 1; ; launchNo++) {
    nodes.length = 0;
    const ports = await distinctFreePorts(2 * size);
    for (let i = 0; i < size; i++) {
      nodes.push({ name: `n${i + 1}`, clientPort: ports[2 * i]!, routePort: ports[2 * i + 1]!, storeDir: path.join(root, `try${launchNo}`, `n${i + 1}`) });
    }
    for (const node of nodes) writeNodeConfig(node);
    for (let i = 0; i < size; i++) launch(i);
    try {
      await metaReady(clusterUrl(nodes), CLUSTER_UP_MS);
      break;
    } catch (err) {
      await Promise.all(nodes.map((_, i) => kill(i)));
      if (launchNo >= CLUSTER_LAUNCHES) throw err;
    }
  }
  const url = clusterUrl(nodes);
  return {
    nodes,
    url,
    pid: (i) => procs[i]?.pid,
    kill: (i) => kill(i),
    start: async (i) => { launch(i); await until(() => reachable(`nats://127.0.0.1:${nodes[i]!.clientPort}`), { timeoutMs: 15_000, intervalMs: 100 }); },
    freeze: (i) => { procs[i]?.kill('SIGSTOP'); },
    thaw: (i) => { procs[i]?.kill('SIGCONT'); },
    leaderOf: async (stream) => {
      let leader = -1;
      await until(async () => {
        const nc = await connect({ servers: url, timeout: 2_000 });
        try {
          const name = (await (await nc.jetstreamManager()).streams.info(stream)).cluster?.leader;
          leader = nodes.findIndex((n) => n.name === name);
          return leader >= 0;
        } finally { await nc.close(); }
      }, { timeoutMs: 20_000, intervalMs: 200 });
      return leader;
    },
    stop: async () => {
      await Promise.all(nodes.map((_, i) => kill(i, 'SIGTERM')));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** `count` free ports, no two the same (a port just closed may be handed out again at once). */
async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

async function reachable(url: string): Promise<boolean> {
  try {
    const nc = await connect({ servers: url, timeout: 1_000, maxReconnectAttempts: 0 });
    await nc.close();
    return true;
  } catch {
    return false;
  }
}

/** Until JetStream answers account info: the meta group has a leader. */
async function metaReady(url: string, timeoutMs: number): Promise<void> {
  await until(async () => {
    const nc = await connect({ servers: url, timeout: 1_000 });
    try { await (await nc.jetstreamManager()).getAccountInfo(); return true; } finally { await nc.close(); }
  }, { timeoutMs, intervalMs: 200 });
}

export interface FrozenClusterSuite {
  readonly cluster: NatsClusterHandle;
  /**
   * A connection made as the services make theirs (connectNats: its pings, dial timeout and
   * direct-get fall-over), to a server that is not the one frozen nor, when a follower is
   * frozen, the stream's leader (so the log itself stays available to it).
   */
  readonly nc: NatsConnection;
  /** The index of the server frozen, or to be frozen by freeze(). */
  readonly frozen: number;
  /** SIGSTOPs that server (thawed after the suite). */
  freeze(): void;
}

export interface FrozenClusterOptions {
  /** Which server of the event stream (TRAWL, R3, `trawl.>`) is frozen: its leader, or a follower. */
  freeze: 'leader' | 'follower';
  /** Frozen before the suite's tests, or only when a test calls freeze(). */
  freezeBeforeTests?: boolean;
  /** Run on a plain connection before the freeze (events to read, other streams, buckets). */
  setup?: (js: JetStreamClient, jsm: JetStreamManager) => Promise<void>;
}

/**
 * A 3-node cluster for the describe block this is called in, with the event stream at R3,
 * one server chosen to be frozen (SIGSTOP) and a client on another: started before the
 * block's tests, thawed, closed and stopped after them. Call it first in the block.
 */
export function frozenClusterPerSuite(opts: FrozenClusterOptions): FrozenClusterSuite {
  const held = { frozen: -1 } as { cluster: NatsClusterHandle; nc: NatsConnection; frozen: number };
  let isFrozen = false;
  const freeze = (): void => {
    held.cluster.freeze(held.frozen);
    isFrozen = true;
  };
  before(async () => {
    held.cluster = await startNatsCluster(3);
    const setup = await connect({ servers: held.cluster.url.split(',') });
    try {
      const jsm = await setup.jetstreamManager();
      // Until every server has joined (before, 'no suitable peers for placement').
      await until(() => jsm.streams.add({ name: STREAM_NAME, subjects: ['trawl.>'], num_replicas: 3, allow_direct: true }).then(() => true, () => false), { timeoutMs: 30_000, intervalMs: 250 });
      await opts.setup?.(setup.jetstream(), jsm);
    } finally {
      await setup.close();
    }
    const leader = await held.cluster.leaderOf(STREAM_NAME);
    held.frozen = opts.freeze === 'leader' ? leader : [0, 1, 2].find((i) => i !== leader)!;
    const on = [0, 1, 2].find((i) => i !== leader && i !== held.frozen)!;
    held.nc = await connectNats(`nats://127.0.0.1:${held.cluster.nodes[on]!.clientPort}`, 'frozen-cluster-test', createLogger('frozen-cluster-test', 'silent'));
    if (opts.freezeBeforeTests) freeze();
  });
  after(async () => {
    if (isFrozen) held.cluster?.thaw(held.frozen);
    await held.nc?.close();
    await held.cluster?.stop();
  });
  return {
    get cluster() { return held.cluster; },
    get nc() { return held.nc; },
    get frozen() { return held.frozen; },
    freeze,
  };
}
