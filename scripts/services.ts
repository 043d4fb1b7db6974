// The services `npm start` runs, in start order. Under `npm start` with a HEALTH_PORT base,
// service i (its index here) serves its health and metrics on HEALTH_PORT + i.
export const SERVICES = ['projector', 'fetcher', 'transformer', 'crawler-frontier', 'webhook-dispatcher', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

/**
 * V8 flags per service (measured in docs/benchmarks.md "Memory"). A 1-2 MB young generation
 * (semi-space) instead of V8's default up to 16 MB cuts every idle Node process by 10-25 MB
 * at a cost of more, shorter scavenges; the old-generation caps turn a leak into a restart
 * (the supervisor restarts a dead service) instead of a machine out of memory. The fetcher
 * and the transformer, which parse pages, keep a larger young generation for throughput.
 * `--optimize-for-size` (a smaller heap growing factor, so V8 collects before it grows) for
 * the services whose CPU is small: the gateway went from 107 to 69 MB PSS after serving a
 * 500-page crawl's results, at no measurable CPU per page. Not for the transformer, whose
 * CPU is the crawl's bottleneck.
 */
export const SERVICE_NODE_FLAGS: Record<ServiceName, string[]> = {
  projector: ['--max-semi-space-size=1', '--max-old-space-size=512', '--optimize-for-size'],
  fetcher: ['--max-semi-space-size=2', '--max-old-space-size=768'],
  transformer: ['--max-semi-space-size=4', '--max-old-space-size=512'],
  'crawler-frontier': ['--max-semi-space-size=1', '--max-old-space-size=384', '--optimize-for-size'],
  'webhook-dispatcher': ['--max-semi-space-size=1', '--max-old-space-size=256', '--optimize-for-size'],
  gateway: ['--max-semi-space-size=2', '--max-old-space-size=512', '--optimize-for-size'],
};

/**
 * V8 flags for the supervisor (`npm start`'s own process), which only starts, watches and
 * stops the others once the system is up: with V8's defaults its young generation grows to
 * tens of MB during start-up and stays (measured: 64 MB PSS idle, more than any light
 * service). scripts/supervisor-flags.ts re-executes it with these.
 */
export const SUPERVISOR_NODE_FLAGS = ['--max-semi-space-size=1', '--max-old-space-size=256', '--optimize-for-size'];
