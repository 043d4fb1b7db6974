// Configuration from the environment, validated once at start. Every service reads the
// same table (README "Configuration"); a bad value stops the process with a message that
// names the variable, never a stack trace from deep inside a library.
import path from 'node:path';
import { DEFAULT_NATS_REPLICAS, MAX_NATS_REPLICAS } from './nats/replicas.js';
import { parseCidrList, type CidrRange } from '../net/url-safety.js';
import { PLANS, type Plan } from '../domain/plans.js';
import { ENGINE_DEFAULTS, ENGINES, type Engine, type EngineDefaults } from '../domain/engines.js';

export class ConfigError extends Error {
  constructor(readonly variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export interface BootstrapKey { key: string; plan: Plan }

/** How long a stopping service lets the messages it is handling finish before it hands them back (STOP_GRACE_MS). */
export const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * The transformer's bounds, written once (the pool's defaults and the environment's):
 *   transformTimeoutMs  a web page's transform past it is killed (TRANSFORM_TIMEOUT);
 *   documentThreads     documents parsed at once (each may hold hundreds of MB);
 *   maxHeapMb           V8 old generation of a transform thread (past it: PAGE_TOO_COMPLEX / DOCUMENT_TOO_COMPLEX);
 *   recycleAboveMb      a thread holding more after its transform is replaced, so RSS comes back;
 *   semiSpaceMb         V8 semi-space of the transformer process and of each transform thread
 *                       (a young generation of three of them); V8's own default is up to 64
 *                       MB in a worker thread, and a thread's young generation is memory it
 *                       keeps between pages; 8 rather than 4: a page's DOM outlives a 4 MB
 *                       semi-space's scavenges and is promoted, then collected as old
 *                       generation (docs/benchmarks.md "Eighteenth session: speed9");
 *   prefetch            messages held at once: more than the threads, so the pool's fair
 *                       queue sees other keys' pages behind one key's stalled ones.
 */
export const TRANSFORMER_DEFAULTS = {
  transformTimeoutMs: 15_000,
  documentThreads: 1,
  maxHeapMb: 1024,
  recycleAboveMb: 256,
  semiSpaceMb: 8,
  prefetch: 16,
} as const;

export interface Config {
  host: string;
  port: number;
  natsUrl: string | undefined;
  /** Copies of the event log, KV buckets and object stores in a JetStream cluster. */
  natsReplicas: number;
  /**
   * This process's name among the live processes of its service, kept when it restarts in
   * its slot (the pod's name; `npm start` gives one per process): the projector takes back
   * the partition leases its predecessor left under it at once. Undefined: a random one.
   */
  instanceId: string | undefined;
  mongodbUrl: string | undefined;
  dataDir: string;
  bootstrapApiKeys: BootstrapKey[];
  ssrfAllowCidrs: CidrRange[];
  chromiumPath: string | undefined;
  logLevel: string;
  /**
   * Where `npm start` sends its services' log lines: `file` (DATA_DIR/logs/services.log, so
   * the banner stays readable) or `stdout` (as one stream with the supervisor's own).
   */
  serviceLogs: 'file' | 'stdout';
  errorTypeBase: string;
  /** Port of the /healthz and /readyz server of a worker service (0 picks a free one). */
  healthPort: number;
  /** Concurrent pages one fetcher instance renders. */
  fetcherConcurrency: number;
  /**
   * How long JetStream waits for a fetcher's heartbeat or ack before it gives the page to
   * another delivery: after a fetcher is killed, its pages wait this long.
   */
  fetcherAckWaitMs: number;
  /** Bulk (crawl, batch) pages of one host rendering at once in one fetcher. */
  fetcherHostMaxInFlight: number;
  /** Bulk pages of one host loading at once across every fetcher replica (the fleet's bound). */
  fleetHostMaxInFlight: number;
  /** Least time between two bulk page starts on one host across the fleet (0: no floor). */
  fleetHostIntervalMs: number;
  /** Close Chromium after this long without a capture (0: keep it). */
  browserIdleCloseMs: number;
  /** Move to a new Chromium after this many pages, closing the old one when its pages are done (0: never). */
  browserRetireAfterPages: number;
  /** Concurrent page transforms one transformer instance runs (its worker threads at most). */
  transformerConcurrency: number;
  /** Transform bounds (TRANSFORMER_DEFAULTS, docs/api.md "Transform budgets"). */
  transformTimeoutMs: number;
  /** On SIGTERM, how long the fetcher's and transformer's consumers let in-flight pages finish before handing them back. */
  stopGraceMs: number;
  /** Threads one API key's transforms may hold at once (0: all but one). */
  transformerThreadsPerKey: number;
  /** Documents (PDF, DOCX...) parsed at once per transformer. */
  transformerDocumentThreads: number;
  /** V8 old-generation limit of one transform thread. */
  transformerMaxHeapMb: number;
  /** A thread that holds more than this after a transform is replaced (its memory given back). */
  transformerRecycleAboveMb: number;
  /** V8 semi-space of the transformer process and of each transform thread (TRANSFORMER_DEFAULTS.semiSpaceMb). */
  transformerSemiSpaceMb: number;
  /** Messages one transformer holds (running or waiting for a thread) at once. */
  transformerPrefetch: number;
  /** How long a scrape result stays in the cache. */
  cacheTtlMs: number;
  /** How long payloads (raw HTML, results, screenshots) stay in the Object Store. */
  payloadTtlMs: number;
  /** Change-tracking baselines' lifetime (0: forever). */
  baselineTtlMs: number;
  /** How long the event log keeps events (0 = forever). */
  eventRetentionMs: number;
  /** Pages the map fallback crawl visits at most. */
  mapMaxCrawlPages: number;
  /** Public base URL used in links the API hands out (screenshot URLs). */
  publicBaseUrl: string;
  /** Content bytes in one GET answer of a crawl or batch at most (the rest behind `next`; one page is always sent). */
  jobDataMaxBytes: number;
  /** Per-key requests-per-minute and concurrent-job limits of the plans (RATE_LIMITS=off disables them). */
  rateLimits: boolean;
  /** Per-key monthly page quotas of the plans (QUOTAS=off disables them). */
  quotas: boolean;
  /** Long-polls (`?waitMs=`) one API key may hold open at once on one gateway. */
  longPollMaxWaitsPerKey: number;
  /** Long-polls one gateway holds open at once, all keys together. */
  longPollMaxWaitsPerGateway: number;
  /** A held long-poll reads its job this often even without a notice (the notice is at most once). */
  longPollFallbackReadMs: number;
  /** Shortest gap between a monitor's runs (MONITOR_MIN_INTERVAL_MS; docs/api.md "Monitors"). */
  monitorMinIntervalMs: number;
  /** How often the frontier's monitor scheduler looks for due ticks and finished runs. */
  monitorCheckIntervalMs: number;
  /** Pages of one crawl loading at once (twice as many may be unfinished: services/crawler-frontier/src/job/decider.ts). */
  crawlMaxInFlight: number;
  /** Pages of one batch scrape loading at once (the same bounds as a crawl). */
  batchMaxInFlight: number;
  /** One webhook delivery attempt's timeout. */
  webhookTimeoutMs: number;
  /** Delays between webhook attempts (empty: no retry). */
  webhookRetryScheduleMs: readonly number[];
  /** The engine of a page whose request names none, per job kind (SCRAPE_ENGINE, CRAWL_ENGINE, BATCH_ENGINE, MAP_ENGINE). */
  engineDefaults: EngineDefaults;
  /** auto: agreeing pages (HTTP and browser markdown the same) before a host is served over HTTP. */
  engineAutoAgreements: number;
  /** auto: one page in this many of a verified host is still rendered too (drift check). */
  engineAutoRecheckEvery: number;
  /** auto: distinct hosts on which a set of CSR marker kinds verified identical before it vouches for a new host (0: each host learns alone). */
  engineAutoFleetHosts: number;
  /** HTTP engine: decoded body bytes at most (a larger page is left to the browser, or fails with engine http). */
  httpEngineMaxBytes: number;
  /** Documents (PDF, DOCX, text): downloaded bytes at most; a larger one fails with DOCUMENT_TOO_LARGE. */
  documentMaxBytes: number;
  /** Documents: pages parsed at most whatever the request's maxPages (docs/api.md "Documents"). */
  documentMaxPages: number;
  /** Documents: one parse's time at most; the worker thread is terminated past it (DOCUMENT_PARSE_TIMEOUT). */
  documentParseTimeoutMs: number;
  /** Server secret the per-key webhook secrets derive from (unset: generated, kept in JetStream). */
  webhookSigningSecret: string | undefined;
}

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000];
export const MIN_WEBHOOK_SECRET_LENGTH = 32;
/** BASELINE_TTL_MS: how long a change-tracking baseline is kept (0: forever). */
/** Content bytes in one GET answer of a crawl or batch at most, unless JOB_DATA_MAX_BYTES says otherwise. */
export const JOB_DATA_MAX_BYTES = 10 * 1024 * 1024;
export const BASELINE_TTL_DEFAULT_MS = 30 * 86_400_000;

/** BROWSER_IDLE_CLOSE_MS: the fetcher closes Chromium after this long without a page to render. */
export const DEFAULT_BROWSER_IDLE_CLOSE_MS = 60_000;
/** BROWSER_RETIRE_AFTER_PAGES: the fetcher moves to a new Chromium after this many pages (0: never). */
export const DEFAULT_BROWSER_RETIRE_AFTER_PAGES = 100;

function msList(env: Env, name: string, fallback: readonly number[]): readonly number[] {
  const raw = env[name];
  if (raw === undefined) return fallback;
  if (raw.trim() === '') return [];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || parts.some((p) => !/^\d{1,9}$/.test(p))) {
    throw new ConfigError(name, `must be up to 20 comma-separated millisecond delays, got "${raw}"`);
  }
  return parts.map(Number);
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  for (const part of raw.split(',')) {
    let parsed: URL;
    try { parsed = new URL(part.trim()); } catch { throw new ConfigError(name, `is not a valid URL: "${part}"`); }
    if (!protocols.includes(parsed.protocol)) {
      throw new ConfigError(name, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
    }
  }
  return raw;
}

function secret(env: Env, name: string, minLength: number): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  if (raw.length < minLength) throw new ConfigError(name, `must be at least ${minLength} characters`);
  return raw;
}

function engine(env: Env, name: string, fallback: Engine): Engine {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!(ENGINES as readonly string[]).includes(raw)) throw new ConfigError(name, `must be one of ${ENGINES.join('|')}, got "${env[name]}"`);
  return raw as Engine;
}

function oneOf<const T extends readonly string[]>(env: Env, name: string, allowed: T, fallback: T[number]): T[number] {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (!allowed.includes(raw)) throw new ConfigError(name, `must be one of ${allowed.join('|')}, got "${env[name]}"`);
  return raw as T[number];
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['on', 'true', '1', 'yes'].includes(raw)) return true;
  if (['off', 'false', '0', 'no'].includes(raw)) return false;
  throw new ConfigError(name, `must be on or off, got "${env[name]}"`);
}

export function parseBootstrapKeys(raw: string | undefined): BootstrapKey[] {
  if (!raw || raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const trimmed = entry.trim();
    const at = trimmed.lastIndexOf(':');
    const key = at > 0 ? trimmed.slice(0, at) : trimmed;
    const plan = at > 0 ? trimmed.slice(at + 1) : 'free';
    if (!/^[A-Za-z0-9_\-.]{16,200}$/.test(key)) {
      throw new ConfigError('BOOTSTRAP_API_KEYS', 'each key must be 16-200 characters of letters, digits, "_", "-" or "."');
    }
    if (!(PLANS as readonly string[]).includes(plan)) {
      throw new ConfigError('BOOTSTRAP_API_KEYS', `plan must be one of ${PLANS.join('|')}, got "${plan}"`);
    }
    return { key, plan: plan as Plan };
  });
}

export function loadConfig(env: Env = process.env): Config {
  const host = env.HOST?.trim() || '127.0.0.1';
  const port = int(env, 'PORT', 3000, 0, 65535);
  const logLevel = env.LOG_LEVEL?.trim() || 'info';
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join('|')}, got "${logLevel}"`);
  }
  let ssrfAllowCidrs: CidrRange[];
  try { ssrfAllowCidrs = parseCidrList(env.SSRF_ALLOW_CIDRS ?? ''); } catch (err) {
    throw new ConfigError('SSRF_ALLOW_CIDRS', (err as Error).message);
  }
  const errorTypeBase = (url(env, 'ERROR_TYPE_BASE', ['http:', 'https:']) ?? 'https://trawl.dev/errors').replace(/\/+$/, '');
  const publicHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return {
    host,
    port,
    natsUrl: url(env, 'NATS_URL', ['nats:', 'tls:', 'ws:', 'wss:']),
    natsReplicas: int(env, 'NATS_REPLICAS', DEFAULT_NATS_REPLICAS, 1, MAX_NATS_REPLICAS),
    // A KV key token: a pod name's dots (or anything else) become "_".
    instanceId: env.INSTANCE_ID?.trim().replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128) || undefined,
    mongodbUrl: url(env, 'MONGODB_URL', ['mongodb:', 'mongodb+srv:']),
    dataDir: path.resolve(env.DATA_DIR?.trim() || './.data'),
    bootstrapApiKeys: parseBootstrapKeys(env.BOOTSTRAP_API_KEYS),
    ssrfAllowCidrs,
    chromiumPath: env.CHROMIUM_PATH?.trim() || undefined,
    logLevel,
    serviceLogs: oneOf(env, 'SERVICE_LOGS', ['file', 'stdout'] as const, 'file'),
    errorTypeBase,
    healthPort: int(env, 'HEALTH_PORT', 0, 0, 65535),
    fetcherConcurrency: int(env, 'FETCHER_CONCURRENCY', 3, 1, 64),
    fetcherAckWaitMs: int(env, 'FETCHER_ACK_WAIT_MS', 15_000, 3_000, 600_000),
    fetcherHostMaxInFlight: int(env, 'FETCHER_HOST_MAX_IN_FLIGHT', 4, 1, 64),
    fleetHostMaxInFlight: int(env, 'FLEET_HOST_MAX_IN_FLIGHT', 8, 1, 1024),
    fleetHostIntervalMs: int(env, 'FLEET_HOST_INTERVAL_MS', 0, 0, 600_000),
    browserIdleCloseMs: int(env, 'BROWSER_IDLE_CLOSE_MS', DEFAULT_BROWSER_IDLE_CLOSE_MS, 0, 24 * 3_600_000),
    browserRetireAfterPages: int(env, 'BROWSER_RETIRE_AFTER_PAGES', DEFAULT_BROWSER_RETIRE_AFTER_PAGES, 0, 1_000_000),
    transformerConcurrency: int(env, 'TRANSFORMER_CONCURRENCY', 2, 1, 64),
    transformTimeoutMs: int(env, 'TRANSFORM_TIMEOUT_MS', TRANSFORMER_DEFAULTS.transformTimeoutMs, 100, 600_000),
    stopGraceMs: int(env, 'STOP_GRACE_MS', DEFAULT_STOP_GRACE_MS, 0, 600_000),
    transformerThreadsPerKey: int(env, 'TRANSFORMER_THREADS_PER_KEY', 0, 0, 64),
    transformerDocumentThreads: int(env, 'TRANSFORMER_DOCUMENT_THREADS', TRANSFORMER_DEFAULTS.documentThreads, 1, 64),
    transformerMaxHeapMb: int(env, 'TRANSFORMER_MAX_HEAP_MB', TRANSFORMER_DEFAULTS.maxHeapMb, 64, 16_384),
    transformerRecycleAboveMb: int(env, 'TRANSFORMER_RECYCLE_ABOVE_MB', TRANSFORMER_DEFAULTS.recycleAboveMb, 16, 16_384),
    transformerSemiSpaceMb: int(env, 'TRANSFORMER_SEMI_SPACE_MB', TRANSFORMER_DEFAULTS.semiSpaceMb, 1, 64),
    transformerPrefetch: int(env, 'TRANSFORMER_PREFETCH', TRANSFORMER_DEFAULTS.prefetch, 1, 1024),
    cacheTtlMs: int(env, 'CACHE_TTL_MS', 3_600_000, 0, 30 * 86_400_000),
    payloadTtlMs: int(env, 'PAYLOAD_TTL_MS', 7 * 86_400_000, 60_000, 365 * 86_400_000),
    baselineTtlMs: int(env, 'BASELINE_TTL_MS', BASELINE_TTL_DEFAULT_MS, 0, 10 * 365 * 86_400_000),
    eventRetentionMs: int(env, 'EVENT_RETENTION_MS', 0, 0, 10 * 365 * 86_400_000),
    mapMaxCrawlPages: int(env, 'MAP_MAX_CRAWL_PAGES', 100, 1, 10_000),
    rateLimits: onOff(env, 'RATE_LIMITS', true),
    quotas: onOff(env, 'QUOTAS', true),
    longPollMaxWaitsPerKey: int(env, 'LONG_POLL_MAX_WAITS_PER_KEY', 20, 1, 10_000),
    longPollMaxWaitsPerGateway: int(env, 'LONG_POLL_MAX_WAITS_PER_GATEWAY', 1_000, 1, 100_000),
    longPollFallbackReadMs: int(env, 'LONG_POLL_FALLBACK_READ_MS', 1_000, 10, 60_000),
    monitorMinIntervalMs: int(env, 'MONITOR_MIN_INTERVAL_MS', 60_000, 1_000, 86_400_000),
    monitorCheckIntervalMs: int(env, 'MONITOR_CHECK_INTERVAL_MS', 1_000, 100, 60_000),
    crawlMaxInFlight: int(env, 'CRAWL_MAX_IN_FLIGHT', 4, 1, 64),
    batchMaxInFlight: int(env, 'BATCH_MAX_IN_FLIGHT', 4, 1, 64),
    webhookTimeoutMs: int(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    webhookRetryScheduleMs: msList(env, 'WEBHOOK_RETRY_SCHEDULE_MS', DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS),
    engineDefaults: {
      scrape: engine(env, 'SCRAPE_ENGINE', ENGINE_DEFAULTS.scrape),
      crawl: engine(env, 'CRAWL_ENGINE', ENGINE_DEFAULTS.crawl),
      batch: engine(env, 'BATCH_ENGINE', ENGINE_DEFAULTS.batch),
      map: engine(env, 'MAP_ENGINE', ENGINE_DEFAULTS.map),
    },
    engineAutoAgreements: int(env, 'ENGINE_AUTO_AGREEMENTS', 3, 1, 100),
    engineAutoRecheckEvery: int(env, 'ENGINE_AUTO_RECHECK_EVERY', 25, 2, 10_000),
    engineAutoFleetHosts: int(env, 'ENGINE_AUTO_FLEET_HOSTS', 3, 0, 1_000),
    httpEngineMaxBytes: int(env, 'HTTP_ENGINE_MAX_BYTES', 10 * 1024 * 1024, 64 * 1024, 100 * 1024 * 1024),
    documentMaxBytes: int(env, 'DOCUMENT_MAX_BYTES', 32 * 1024 * 1024, 64 * 1024, 512 * 1024 * 1024),
    documentMaxPages: int(env, 'DOCUMENT_MAX_PAGES', 1000, 1, 10_000),
    documentParseTimeoutMs: int(env, 'DOCUMENT_PARSE_TIMEOUT_MS', 30_000, 1000, 600_000),
    webhookSigningSecret: secret(env, 'WEBHOOK_SIGNING_SECRET', MIN_WEBHOOK_SECRET_LENGTH),
    jobDataMaxBytes: int(env, 'JOB_DATA_MAX_BYTES', JOB_DATA_MAX_BYTES, 64 * 1024, 100 * 1024 * 1024),
    publicBaseUrl: (url(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${port}`).replace(/\/+$/, ''),
  };
}

/** Loads the config or exits with a one-line message naming the bad variable. */
export function loadConfigOrExit(env: Env = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`[trawl] invalid configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
