// The JetStream resources every service relies on, created idempotently at start by
// whichever service comes up first (docs/architecture.md "Streams").
import { DiscardPolicy, RetentionPolicy, StorageType, nanos, type JetStreamManager, type NatsConnection } from 'nats';
import { BASELINE_TTL_DEFAULT_MS } from '../config.js';
import { ALL_EVENTS, BASELINE_BUCKET, PAYLOAD_BUCKET, STREAM_NAME } from '../subjects.js';
import { DEFAULT_NATS_REPLICAS, isNotFound, openObjectStore, replicated } from './replicas.js';

export interface InfrastructureOptions {
  /** 0 keeps events forever. */
  eventRetentionMs: number;
  payloadTtlMs: number;
  /** Change-tracking baselines (0: kept forever); default BASELINE_TTL_DEFAULT_MS. */
  baselineTtlMs?: number;
  /** Copies of the log in a JetStream cluster (NATS_REPLICAS); buckets follow the log. */
  replicas?: number;
}


/** Window in which a repeated Nats-Msg-Id is dropped by the server. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

/** How long a start waits for a JetStream cluster that is electing its leader. */
export const JETSTREAM_READY_TIMEOUT_MS = 30_000;

/**
 * The manager, once JetStream answers. A cluster that has just started, or lost its meta
 * leader, answers 503 "temporarily unavailable" for a few seconds; a start waits that out
 * rather than dying into a restart loop.
 */
async function jetStreamManager(nc: NatsConnection): Promise<JetStreamManager> {
  const deadline = Date.now() + JETSTREAM_READY_TIMEOUT_MS;
  for (;;) {
    try {
      return await nc.jetstreamManager();
    } catch (err) {
      const message = String((err as Error)?.message);
      if (Date.now() > deadline || !/temporarily unavailable|503|timeout/i.test(message)) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

export async function ensureInfrastructure(nc: NatsConnection, opts: InfrastructureOptions): Promise<JetStreamManager> {
  const jsm = await jetStreamManager(nc);
  const config = {
    name: STREAM_NAME,
    subjects: [ALL_EVENTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    max_age: nanos(opts.eventRetentionMs),
    duplicate_window: nanos(DUPLICATE_WINDOW_MS),
    allow_direct: true,
    // Events stay small: payloads go to the Object Store.
    max_msg_size: 1024 * 1024,
    num_replicas: opts.replicas ?? DEFAULT_NATS_REPLICAS,
  };
  try {
    await jsm.streams.info(STREAM_NAME);
    await replicated(STREAM_NAME, config.num_replicas, () => jsm.streams.update(STREAM_NAME, config));
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await replicated(STREAM_NAME, config.num_replicas, () => jsm.streams.add(config));
    } catch (addErr) {
      // Another service created it between our info and add.
      if (!String((addErr as Error).message).includes('already in use')) throw addErr;
    }
  }
  const js = nc.jetstream();
  // The object stores follow the log's replicas (replicas.ts), raised in place when they exist.
  await openObjectStore(js, PAYLOAD_BUCKET, { storage: StorageType.File, ttl: nanos(opts.payloadTtlMs), description: 'Trawl payloads: raw HTML, results, screenshots' });
  // Baselines outlive results: "what changed since last month" needs last month's markdown.
  await openObjectStore(js, BASELINE_BUCKET, {
    storage: StorageType.File, ttl: nanos(opts.baselineTtlMs ?? BASELINE_TTL_DEFAULT_MS), description: 'Trawl change-tracking baselines: markdown per key, URL and content hash',
  });
  return jsm;
}

export { isNotFound };
