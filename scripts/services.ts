// The services `npm start` runs, in start order. Under `npm start` with a HEALTH_PORT base,
// service i (its index here) serves its health and metrics on HEALTH_PORT + i.
import os from 'node:os';
export const SERVICES = ['projector', 'fetcher', 'transformer', 'crawler-frontier', 'webhook-dispatcher', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * Environment a service starts with (the operator's own variables win). The transformer's
 * buffers of 128 KiB and more are mapped and unmapped one by one (glibc's threshold fixed
 * instead of rising to 32 MiB after the first big free), so what a document or a recycled
 * thread gave back leaves the process instead of staying in malloc's arenas.
 */
export const SERVICE_ENV: Partial<Record<ServiceName, Record<string, string>>> = {
  transformer: { MALLOC_MMAP_THRESHOLD_: '131072' },
};

/**
 * V8 flags per service (figures: docs/benchmarks.md "Third session"). A 1-2 MB semi-space
 * instead of V8's default of up to 16 MB makes every idle Node process smaller, at the cost
 * of more, shorter scavenges; the old-generation caps turn a leak into a restart instead of
 * a machine out of memory. The fetcher, which reads, decodes and scans every page, keeps
 * a 4 MB one (about 3 ms less CPU per `auto` crawl page than 2 MB, with no more memory at
 * the crawl's peak: docs/benchmarks.md "by thread"); the transformer's are options
 * (serviceNodeFlags). The chart's `nodeFlags` values
 * hold the same rows (test/unit/deploy/chart.test.ts holds them equal). `--optimize-for-size` (V8 collects
 * before it grows) only for the services whose CPU is small: not the transformer, whose CPU
 * is the crawl's bottleneck.
 */
export const SERVICE_NODE_FLAGS: Record<ServiceName, string[]> = {
  projector: ['--max-semi-space-size=1', '--max-old-space-size=512', '--optimize-for-size'],
  fetcher: ['--max-semi-space-size=4', '--max-old-space-size=768'],
  transformer: [],
  'crawler-frontier': ['--max-semi-space-size=1', '--max-old-space-size=384', '--optimize-for-size'],
  'webhook-dispatcher': ['--max-semi-space-size=1', '--max-old-space-size=256', '--optimize-for-size'],
  gateway: ['--max-semi-space-size=2', '--max-old-space-size=512', '--optimize-for-size'],
};

/**
 * A service's V8 flags under `npm start`: its row above; the transformer's are its threads'
 * limits (TRANSFORMER_SEMI_SPACE_MB, TRANSFORMER_MAX_HEAP_MB), because a process flag
 * overrides a worker thread's own resourceLimits.
 */
export function serviceNodeFlags(name: ServiceName, cfg: { transformerSemiSpaceMb: number; transformerMaxHeapMb: number }): string[] {
  if (name !== 'transformer') return SERVICE_NODE_FLAGS[name];
  return [`--max-semi-space-size=${cfg.transformerSemiSpaceMb}`, `--max-old-space-size=${cfg.transformerMaxHeapMb}`, ...SERVICE_NODE_FLAGS[name]];
}

/**
 * V8 flags for the supervisor (`npm start`'s own process), which only starts, watches and
 * stops the others once the system is up: with V8's defaults its young generation grows
 * during start-up and stays (docs/benchmarks.md "Third session"). scripts/supervisor-flags.ts
 * re-executes it with these.
 */
export const SUPERVISOR_NODE_FLAGS = ['--max-semi-space-size=1', '--max-old-space-size=256', '--optimize-for-size'];

/**
 * GOMAXPROCS of a local nats-server (the supervisor's own, each node of a local cluster): one
 * Go scheduler thread for every three cores, at least one. At Go's default of one per core,
 * on 2 cores about a fifth of nats-server's CPU in an `auto` crawl went to its runtime
 * handing each message between threads (idle threads spinning, sleeping and woken), while
 * nats-server does about a tenth of the tree's work (docs/benchmarks.md, nineteenth session,
 * speed10). A GOMAXPROCS in the environment wins.
 */
export function natsGoMaxProcs(cores = os.availableParallelism()): string {
  return String(Math.max(1, Math.ceil(cores / 3)));
}

/**
 * The light services `npm start` runs together in one process, the service host
 * (scripts/service-host.ts): their CPU is small, and one process each cost its fixed memory
 * three times. The gateway stays apart, so a crash of one of these never takes the API
 * down with it. TRAWL_COHOST=off runs one process per service.
 */
export const COHOSTED_SERVICES = ['projector', 'crawler-frontier', 'webhook-dispatcher'] as const satisfies readonly ServiceName[];
export type CohostedService = (typeof COHOSTED_SERVICES)[number];

/** V8 flags of the service host: those its services' own flags agree on, and the largest old-space cap. */
export const HOST_NODE_FLAGS = ['--max-semi-space-size=1', '--max-old-space-size=768', '--optimize-for-size'];

/** Which of `wanted` go to the service host, for TRAWL_COHOST (unset: the default; "off": none). Fewer than two: none. */
export function cohostedServices(setting: string | undefined, wanted: readonly string[]): CohostedService[] {
  const value = setting?.trim().toLowerCase();
  if (value !== undefined && value !== '' && value !== 'on') {
    if (value === 'off') return [];
    throw new Error(`TRAWL_COHOST: expected on or off, got ${JSON.stringify(setting)}`);
  }
  const hosted = COHOSTED_SERVICES.filter((name) => wanted.includes(name));
  return hosted.length >= 2 ? hosted : [];
}

/** The service host's arguments, `<name>:<healthPort>` each. */
export function parseHostArgs(args: readonly string[]): { name: CohostedService; healthPort: number }[] {
  if (args.length === 0) throw new Error('usage: service-host.js <service>:<healthPort> ...');
  return args.map((arg) => {
    const [name = '', port = ''] = arg.split(':');
    if (!(COHOSTED_SERVICES as readonly string[]).includes(name)) {
      throw new Error(`service-host: cannot host ${JSON.stringify(name)}; it hosts ${COHOSTED_SERVICES.join(', ')}`);
    }
    const healthPort = Number(port);
    if (port === '' || !Number.isInteger(healthPort) || healthPort < 0 || healthPort > 65535) throw new Error(`service-host: bad health port in ${JSON.stringify(arg)}`);
    return { name: name as CohostedService, healthPort };
  });
}
