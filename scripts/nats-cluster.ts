// A local JetStream cluster for `npm run cluster` and the cluster tests: N nats-servers on
// loopback, each with its own client port, route port, name and store. Every node lists
// every route (itself included; nats-server skips its own), so any node that restarts
// finds the others, and JetStream's meta group elects a leader once a majority is up.
// Only flags nats-server 2.9 (Debian's) knows.
import fs from 'node:fs';

export interface ClusterNode {
  /** server_name: JetStream places and reports replicas by it. */
  name: string;
  clientPort: number;
  routePort: number;
  storeDir: string;
}

export const CLUSTER_NAME = 'trawl';

/** `npm run cluster` defaults: three servers (a majority survives one loss), two of each service. */
export const CLUSTER_DEFAULTS = { natsNodes: 3, serviceReplicas: 2 } as const;
/** JetStream's replicas are 1 to 5; more servers than that add nothing a local run needs. */
const MAX_NODES = 5;
const MAX_SERVICE_REPLICAS = 8;

export interface ClusterFlags {
  natsNodes: number;
  serviceReplicas: number;
  /** `--scale fetcher=4,transformer=4`: processes of the services named, instead of serviceReplicas. */
  scale: Record<string, number>;
}

/**
 * The settings the command line cannot carry. Pings every 2 s, 3 missed: a node whose routes
 * go quiet while their sockets stay open (a partition) is dropped by its peers in about 6 s
 * instead of the default 4 minutes. A frozen one whose peers keep writing to it is not:
 * nats-server 2.9 pings only a connection it has not written to, so the clients make up for
 * it (shared/src/infra/nats/connect.ts, direct-get-failover.ts).
 */
const NODE_CONFIG = 'ping_interval: "2s"\nping_max: 3\n';

/** Writes `node`'s configuration file (beside its store); natsNodeArgs points at it. */
export function writeNodeConfig(node: ClusterNode): void {
  fs.mkdirSync(node.storeDir, { recursive: true });
  fs.writeFileSync(`${node.storeDir}.conf`, NODE_CONFIG);
}

/** nats-server's arguments for `node` of `all` (after writeNodeConfig). */
export function natsNodeArgs(node: ClusterNode, all: readonly ClusterNode[]): string[] {
  return [
    '-c', `${node.storeDir}.conf`, '-js', '-a', '127.0.0.1', '-p', String(node.clientPort), '-sd', node.storeDir, '-n', node.name,
    '--cluster_name', CLUSTER_NAME, '--cluster', `nats://127.0.0.1:${node.routePort}`,
    '--routes', all.map((n) => `nats://127.0.0.1:${n.routePort}`).join(','),
  ];
}

/** The services' NATS_URL: every node, so a client reconnects to whichever is up. */
export function clusterUrl(nodes: readonly ClusterNode[]): string {
  return nodes.map((n) => `nats://127.0.0.1:${n.clientPort}`).join(',');
}

/** Replicas of the log for a cluster of `nodes` servers: three where there are three. */
export function replicasFor(nodes: number): number {
  return Math.min(3, nodes);
}

/** `--nats-nodes N --replicas M` (or `--flag=value`); anything else is an error that names it. */
export function parseClusterFlags(argv: readonly string[]): ClusterFlags {
  const flags: ClusterFlags = { ...CLUSTER_DEFAULTS, scale: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const [name, inline] = eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (name === '--scale') {
      const raw = inline ?? argv[++i] ?? '';
      for (const part of raw.split(',').filter(Boolean)) {
        const [service = '', count = ''] = part.split('=');
        const value = Number(count);
        if (!service || count === '' || !Number.isInteger(value) || value < 0 || value > MAX_SERVICE_REPLICAS) {
          throw new Error(`--scale: expected service=count (0 to ${MAX_SERVICE_REPLICAS}), got ${JSON.stringify(part)}`);
        }
        flags.scale[service] = value;
      }
      continue;
    }
    if (name !== '--nats-nodes' && name !== '--replicas') continue;
    const raw = inline ?? argv[++i];
    const value = Number(raw);
    const max = name === '--nats-nodes' ? MAX_NODES : MAX_SERVICE_REPLICAS;
    if (raw === undefined || !Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`${name}: expected a whole number from 1 to ${max}, got ${JSON.stringify(raw ?? '')}`);
    }
    if (name === '--nats-nodes') flags.natsNodes = value;
    else flags.serviceReplicas = value;
  }
  return flags;
}
