// `npm start`: the whole system on one machine. Starts a local nats-server (unless
// NATS_URL is set; restarted on the same port and store if it dies), creates the bootstrap API keys (as events, idempotently), runs the
// services (fetcher, transformer and gateway each in its own process, the light ones together
// in the service host, scripts/service-host.ts; restarting a process that dies), waits until the API answers,
// prints the base URL and an API key, and on Ctrl-C shuts it all down in order.
// `npm run cluster` (--cluster [--nats-nodes N] [--replicas M]) does the same on a local
// JetStream cluster of N nats-servers (scripts/nats-cluster.ts), at NATS_REPLICAS 3, with
// M processes of every service (gateway i on PORT + i; --scale fetcher=4,... per service).
import './supervisor-flags.js'; // first: may re-execute this process with its V8 flags
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigOrExit, type BootstrapKey, type Config } from '../shared/src/infra/config.js';
import { newApiKey } from '../shared/src/infra/ids.js';
import { consoleConfig } from '../shared/src/infra/console-config.js';
import { createLogger } from '../shared/src/infra/logger.js';
import { CLUSTER_DEFAULTS, clusterUrl, natsNodeArgs, parseClusterFlags, replicasFor, writeNodeConfig, type ClusterFlags, type ClusterNode } from './nats-cluster.js';
import { SupervisorRun } from './instance-run.js';
import { cohostedServices, HOST_NODE_FLAGS, natsGoMaxProcs, SERVICE_ENV, serviceNodeFlags, SERVICES, type ServiceName } from './services.js';


const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = loadConfigOrExit();
const logger = createLogger('supervisor', config.logLevel);
const say = (line: string): void => { process.stdout.write(`[trawl] ${line}\n`); };

async function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer().once('error', () => resolve(false)).listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Whether a GET of `url` answers 2xx. node:http rather than fetch: fetch would load undici
 * into the supervisor's heap for two readiness checks, and the supervisor lives as long as
 * the system.
 */
function answersOk(url: string, headers: Record<string, string> = {}): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(url, { headers, timeout: 5_000 }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.once('timeout', () => req.destroy());
    req.once('error', () => resolve(false));
  });
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * GOMEMLIMIT for the local nats-server: a soft limit costs CPU once the live heap nears it,
 * and lower limits cost too much of it (docs/benchmarks.md, "Third session").
 */
const NATS_SOFT_MEMORY_LIMIT = '128MiB';
/**
 * GOGC for the local nats-server: its heap grows to 1.5× what is live before a collection
 * instead of 2×. During an `auto` crawl it held 39–51 MB at the tree's peak instead of
 * 51–80, for about 1 ms of CPU per page (docs/benchmarks.md, issue 21, eighth session).
 */
const NATS_GC_PERCENT = '50';
const SERVICE_MALLOC_ARENA_MAX = '2';

/**
 * A child process kept running: started again when it dies, backing off when it keeps
 * dying right after start; stopped with SIGTERM (SIGKILL after `killAfterMs`).
 */
class Supervised {
  private proc: ChildProcess | undefined;
  private stopping = false;
  private restarts = 0;

  constructor(readonly name: string, private readonly launch: () => ChildProcess, private readonly killAfterMs = 35_000) {}

  start(): ChildProcess {
    const started = Date.now();
    const proc = this.launch();
    this.proc = proc;
    proc.once('exit', (code, signal) => {
      if (this.stopping) return;
      this.restarts = Date.now() - started > 30_000 ? 0 : this.restarts + 1;
      const delayMs = Math.min(10_000, 250 * 2 ** this.restarts);
      logger.error({ service: this.name, code, signal, delayMs }, `${this.name} exited; restarting${logSink === 'inherit' ? '' : ' (its last lines are in the service log)'}`);
      setTimeout(() => { if (!this.stopping) this.start(); }, delayMs);
    });
    return proc;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), this.killAfterMs);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * nats-server under supervision: started on a fixed port and store, and started again on
 * the same port and store when it dies (the services' NATS clients reconnect forever, see
 * shared/src/infra/nats/connect.ts, and JetStream recovers the streams, consumers and buckets
 * from the store directory).
 */
class SupervisedNats extends Supervised {
  private stderr = '';
  private listening = false; // it said it listens on the client port
  constructor(readonly port: number, readonly storeDir: string, args = ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], name = 'nats-server') {
    super(name, () => {
      fs.mkdirSync(storeDir, { recursive: true });
      // A soft memory limit for the Go runtime (Go >= 1.19): the GC works harder near it
      // instead of letting the heap double; never an out-of-memory kill. GOMEMLIMIT, GOGC and GOMAXPROCS override.
      const env = { ...process.env, GOMEMLIMIT: process.env.GOMEMLIMIT ?? NATS_SOFT_MEMORY_LIMIT, GOGC: process.env.GOGC ?? NATS_GC_PERCENT, GOMAXPROCS: process.env.GOMAXPROCS ?? natsGoMaxProcs() };
      const proc = spawn('nats-server', args, { stdio: ['ignore', 'ignore', 'pipe'], env });
      let head = ''; this.listening = false; // per process: up to its listening line (the 4,000 characters kept may have dropped it)
      proc.stderr?.on('data', (d: Buffer) => {
        this.stderr = (this.stderr + d.toString()).slice(-4000);
        if (!this.listening) this.listening = new RegExp(`Listening for client connections on \\S+:${port}\\b`).test(head += d.toString());
      });
      return proc;
    });
  }

  get url(): string { return `nats://127.0.0.1:${this.port}`; }

  /** Starts it and waits until it says it listens (a taken port may be another system's server); fails if it exits first. */
  async ready(): Promise<void> {
    const proc = this.start();
    const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${this.stderr.trim()}`))));
    exited.catch(() => undefined);
    await Promise.race([waitFor(async () => this.listening, 15_000, 'nats-server'), exited]);
  }
}

async function startNatsServer(dataDir: string): Promise<SupervisedNats> {
  const preferred = (await portFree(4222)) ? 4222 : await freePort();
  try {
    return await startNatsOn(preferred, dataDir);
  } catch (err) {
    // Another process took the port between the check and the listen (two systems starting
    // at once): any free port serves, since the services get the URL from here.
    if (!/address already in use/.test((err as Error).message)) throw err;
    return startNatsOn(await freePort(), dataDir);
  }
}

async function startNatsOn(port: number, dataDir: string): Promise<SupervisedNats> {
  const nats = new SupervisedNats(port, path.join(dataDir, 'nats'));
  try {
    await nats.ready();
  } catch (err) {
    await nats.stop(); // no restart on a port that is not ours
    throw err;
  }
  return nats;
}

/**
 * A local JetStream cluster: every node on its own client and route port and store under
 * DATA_DIR/nats-cluster, each restarted on its own when it dies. Waits for every node to
 * listen; JetStream elects its leaders once a majority is up (the bootstrap retries).
 */
async function startNatsCluster(size: number, dataDir: string, attemptsLeft = 3): Promise<string> {
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < size; i++) {
    nodes.push({ name: `n${i + 1}`, clientPort: await freePort(), routePort: await freePort(), storeDir: path.join(dataDir, 'nats-cluster', `n${i + 1}`) });
  }
  for (const node of nodes) writeNodeConfig(node);
  const servers = nodes.map((node) => new SupervisedNats(node.clientPort, node.storeDir, natsNodeArgs(node, nodes), `nats-server ${node.name}`));
  started.nats.push(...servers);
  try {
    await Promise.all(servers.map((s) => s.ready()));
  } catch (err) {
    // A port picked free was taken before a node listened on it (another process's outgoing
    // connection): start the whole cluster again on fresh ports, as startNatsServer does.
    await Promise.all(servers.map((s) => s.stop()));
    started.nats = started.nats.filter((s) => !servers.includes(s));
    if (attemptsLeft <= 1 || !/address already in use/.test((err as Error).message)) throw err;
    return startNatsCluster(size, dataDir, attemptsLeft - 1);
  }
  return clusterUrl(nodes);
}

/**
 * Creates the bootstrap keys; while no console admin exists, also an admin invite (its link
 * is returned). In a short-lived child (scripts/bootstrap.ts), so the supervisor never holds
 * the NATS client and the deciders in its heap.
 */
async function createKeys(natsUrl: string, keys: BootstrapKey[], natsReplicas: string): Promise<string | null> {
  const entry = builtEntry('scripts/bootstrap.js');
  const env = { ...process.env, NATS_URL: natsUrl, NATS_REPLICAS: natsReplicas, TRAWL_BOOTSTRAP_KEYS: JSON.stringify(keys) };
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--enable-source-maps', entry], { env, timeout: 120_000 }, (err, out, stderr) => {
      if (err) reject(new Error(`creating the bootstrap keys failed: ${stderr.trim() || err.message}`));
      else resolve(out);
    });
  });
  // Its stdout holds its log lines too (passed on) and the result line.
  const lines = stdout.split('\n').filter(Boolean);
  const result = lines.find((l) => l.startsWith('{"adminInvite"'));
  for (const line of lines) if (line !== result) writeLog(`${line}\n`);
  if (!result) throw new Error('creating the bootstrap keys failed: no result');
  return (JSON.parse(result) as { adminInvite: string | null }).adminInvite;
}

/** A log line of the supervisor's children, where the services' go. */
function writeLog(line: string): void {
  if (logSink === 'inherit') process.stdout.write(line);
  else fs.writeSync(logSink, line);
}

/** A compiled entry point, which must exist. */
function builtEntry(relative: string): string {
  const entry = path.join(root, 'dist', relative);
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run npm run build`);
  return entry;
}

/**
 * Where the services write their log lines: the supervisor's own stdout, or one file under
 * DATA_DIR shared by every process. It is opened O_APPEND and pino writes whole lines, so
 * the processes' lines never interleave mid-line.
 */
type LogSink = 'inherit' | number;
let logSink: LogSink = 'inherit';

function openLogSink(cfg: Config, follow: boolean): { sink: LogSink; file?: string } {
  if (follow || cfg.serviceLogs === 'stdout') return { sink: 'inherit' };
  const file = path.join(cfg.dataDir, 'logs', 'services.log');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return { sink: fs.openSync(file, 'a'), file };
}

/** A service's process: node running its compiled main.js, recorded under the run. */
function serviceProcess(name: ServiceName, env: NodeJS.ProcessEnv, replica: number, run: SupervisorRun): Supervised {
  const entry = builtEntry(`services/${name}/src/main.js`);
  return new Supervised(replica === 0 ? name : `${name} #${replica + 1}`, () => run.track(spawn(process.execPath, ['--enable-source-maps', ...serviceNodeFlags(name, config), entry], { env, stdio: ['ignore', logSink, logSink] })));
}

/** The service host's process: the light services together, each on its own health port. */
function hostProcess(hosted: { name: ServiceName; healthPort: string }[], env: NodeJS.ProcessEnv, replica: number, run: SupervisorRun): Supervised {
  const entry = builtEntry('scripts/service-host.js');
  const args = hosted.map((h) => `${h.name}:${h.healthPort}`);
  return new Supervised(`service-host${replica === 0 ? '' : ` #${replica + 1}`} (${hosted.map((h) => h.name).join(', ')})`,
    () => run.track(spawn(process.execPath, ['--enable-source-maps', ...HOST_NODE_FLAGS, entry, ...args], { env, stdio: ['ignore', logSink, logSink] })));
}

/** What to stop if start-up fails half way: nothing may outlive the supervisor. */
const started: { nats: SupervisedNats[]; services: Supervised[] } = { nats: [], services: [] };

async function main(cfg: Config, cluster: ClusterFlags | undefined): Promise<void> {
  consoleConfig(); // CONSOLE_SIGNUP, CONSOLE_DEFAULT_PLAN: a bad value stops the start here, named
  fs.mkdirSync(cfg.dataDir, { recursive: true });
  const logs = openLogSink(cfg, process.argv.includes('--follow-logs'));
  logSink = logs.sink;
  let natsUrl = cfg.natsUrl;
  // The operator's NATS_REPLICAS wins; a local cluster otherwise keeps three copies where it can.
  const natsReplicas = process.env.NATS_REPLICAS ?? String(cluster && !cfg.natsUrl ? replicasFor(cluster.natsNodes) : cfg.natsReplicas);
  if (!natsUrl && cluster) {
    natsUrl = await startNatsCluster(cluster.natsNodes, cfg.dataDir);
    say(`JetStream cluster of ${cluster.natsNodes} nats-servers at ${natsUrl} (stores under ${path.join(cfg.dataDir, 'nats-cluster')}), NATS_REPLICAS=${natsReplicas}`);
  } else if (!natsUrl) {
    const nats = await startNatsServer(cfg.dataDir);
    started.nats.push(nats);
    natsUrl = nats.url;
    say(`nats-server with JetStream at ${natsUrl} (store ${path.join(cfg.dataDir, 'nats')})`);
  }
  const replicas = cluster?.serviceReplicas ?? 1;

  // The operator's own key on their own machine: the largest plan.
  const generated = cfg.bootstrapApiKeys.length === 0 ? [{ key: newApiKey(), plan: 'team' as const }] : [];
  const keys = [...cfg.bootstrapApiKeys, ...generated];

  const healthBase = cfg.healthPort;
  // TRAWL_SERVICES picks a subset (debugging, or running some services elsewhere).
  const wanted = process.env.TRAWL_SERVICES?.split(',').map((s) => s.trim()).filter(Boolean) ?? [...SERVICES];
  const unknown = wanted.filter((w) => !(SERVICES as readonly string[]).includes(w));
  if (unknown.length) throw new Error(`TRAWL_SERVICES: unknown service(s) ${unknown.join(', ')}; known: ${SERVICES.join(', ')}`);
  const chosen = SERVICES.filter((name) => wanted.includes(name));
  // In start order, as COHOSTED_SERVICES is.
  const hosted: readonly ServiceName[] = cohostedServices(process.env.TRAWL_COHOST, chosen);
  const env: NodeJS.ProcessEnv = {
    // glibc gives each thread that allocates its own malloc arena (up to 8 per core), and
    // memory freed in one is not reused by another: two arenas hold the services' off-heap
    // memory (buffers, zlib, worker threads) with less waste. MALLOC_ARENA_MAX overrides.
    MALLOC_ARENA_MAX: SERVICE_MALLOC_ARENA_MAX,
    ...process.env,
    NATS_URL: natsUrl,
    NATS_REPLICAS: natsReplicas,
    DATA_DIR: cfg.dataDir,
  };
  // Service i of the chosen ones serves its health and metrics on HEALTH_PORT + i, hosted or
  // not; replica r of it (npm run cluster) on HEALTH_PORT + r * (number chosen) + i.
  const healthPortOf = (name: ServiceName, r: number): string => (healthBase === 0 ? '0' : String(healthBase + r * chosen.length + chosen.indexOf(name)));
  const unknownScaled = Object.keys(cluster?.scale ?? {}).filter((name) => !(SERVICES as readonly string[]).includes(name));
  if (unknownScaled.length) throw new Error(`--scale: unknown service(s) ${unknownScaled.join(', ')}; known: ${SERVICES.join(', ')}`);
  // The service host runs as often as its first service is asked for.
  const countOf = (name: ServiceName): number => cluster?.scale[hosted.includes(name) ? hosted[0]! : name] ?? replicas;
  const most = Math.max(replicas, ...chosen.map(countOf));
  // Each process's INSTANCE_ID: its slot under this supervisor run, kept when the slot's
  // process is restarted (after the last one exited), so the projector takes back its own
  // partition leases and a fetcher its host slots at once; the run's random part keeps two
  // supervisors on one NATS apart, and is kept in DATA_DIR for the next supervisor once
  // nothing of this one lives (instance-run.ts).
  const supervisorRun = SupervisorRun.open(cfg.dataDir, process.env.INSTANCE_ID);
  const { run } = supervisorRun;
  const services = Array.from({ length: most }, (_, r) => chosen.filter((name) => r < countOf(name)).flatMap((name): Supervised[] => {
    const own = { ...env, ...(name === 'gateway' ? { PORT: String(cfg.port + r) } : {}) };
    if (!hosted.includes(name)) return [serviceProcess(name, { ...SERVICE_ENV[name], ...own, HEALTH_PORT: healthPortOf(name, r), INSTANCE_ID: `${run}-${name}-${r}` }, r, supervisorRun)];
    // The host starts where its first service would have.
    if (name !== hosted[0]) return [];
    return [hostProcess(hosted.map((n) => ({ name: n, healthPort: healthPortOf(n, r) })), { ...env, INSTANCE_ID: `${run}-host-${r}` }, r, supervisorRun)];
  })).flat();
  started.services = services;

  let shuttingDown = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    say(`${signal}: stopping services`);
    await Promise.all(services.map((s) => s.stop()));
    await Promise.all(started.nats.map((n) => n.stop()));
    say('stopped');
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  // On one nats-server the keys are written while the services start (both only need
  // nats-server; the streams are created by whichever comes first, as when the services are
  // deployed on their own): the start waits for the slower of the two, not for their sum. On
  // a cluster they are written first, as before: a fresh cluster's JetStream API, electing
  // the leaders of every stream the services create at once, timed the keys' writes out
  // (CI 27, the chaos drill: "creating the bootstrap keys failed: TIMEOUT").
  const keysCreated = cluster ? Promise.resolve(await createKeys(natsUrl, keys, natsReplicas)) : createKeys(natsUrl, keys, natsReplicas);
  for (const s of services) s.start();
  const adminInvite = await keysCreated;

  const host = cfg.host === '0.0.0.0' || cfg.host === '::' ? '127.0.0.1' : cfg.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${cfg.port}`;
  const first = keys[0]!;
  // Ready means: the API answers, and the projector has the keys (an authenticated call works).
  await waitFor(() => answersOk(`${base}/readyz`), 60_000, 'the gateway');
  await waitFor(() => answersOk(`${base}/api/v1/scrape?limit=1`, { authorization: `Bearer ${first.key}` }), 60_000, 'the API keys to be projected');

  say(`Trawl is running at ${cfg.publicBaseUrl}`);
  if (generated.length) say(`API key (plan ${first.plan}): ${first.key}`);
  else say(`API keys: the ${keys.length} from BOOTSTRAP_API_KEYS`);
  if (replicas > 1) say(`${replicas} processes of every service; gateways also at ${Array.from({ length: replicas - 1 }, (_, r) => `:${cfg.port + r + 1}`).join(', ')}`);
  say(`web console: ${cfg.publicBaseUrl}/console`);
  if (adminInvite) say(`console admin invite (one use, 7 days; makes the first admin account, which takes over the keys above): ${adminInvite}`);
  else say('console: invite people from its Admin page, or with npm run keys -- invite');
  if (logs.file) say(`service logs: ${logs.file} (tail -f it, or start with npm start -- --follow-logs, or SERVICE_LOGS=stdout)`);
  // waitMs: the answer is the page itself, not {"status":"PENDING"}.
  const keyShown = generated.length ? first.key : '<API_KEY>';
  say(`try: ${scrapeCurl(cfg.publicBaseUrl, keyShown, 'https://example.com')}`);
}

/** The curl a new user copies: a scrape that waits for its page (docs/api.md, waitMs). */
function scrapeCurl(baseUrl: string, key: string, url: string): string {
  const body = JSON.stringify({ url, formats: ['markdown'], waitMs: 30_000 });
  return `curl -s -X POST ${baseUrl}/api/v1/scrape -H 'Authorization: Bearer ${key}' -H 'content-type: application/json' -d '${body}'`;
}

let clusterFlags: ClusterFlags | undefined;
try {
  clusterFlags = process.argv.includes('--cluster') ? parseClusterFlags(process.argv.slice(2)) : undefined;
} catch (err) {
  process.stderr.write(`[trawl] ${(err as Error).message} (defaults: --nats-nodes ${CLUSTER_DEFAULTS.natsNodes} --replicas ${CLUSTER_DEFAULTS.serviceReplicas})\n`);
  process.exit(1);
}

main(config, clusterFlags).catch(async (err) => {
  process.stderr.write(`[trawl] failed to start: ${(err as Error).message}\n`);
  await Promise.all(started.services.map((s) => s.stop()));
  await Promise.all(started.nats.map((n) => n.stop()));
  process.exit(1);
});
