// The JetStream resources every service relies on, created idempotently at start by
// whichever service comes up first (docs/architecture.md "Streams").
import { DiscardPolicy, RetentionPolicy, StorageType, nanos, type JetStreamManager, type NatsConnection } from 'nats';
import { BASELINE_TTL_DEFAULT_MS } from '../config.js';
import { ALL_EVENTS, BASELINE_BUCKET, PAYLOAD_BUCKET, STREAM_NAME } from '../subjects.js';

export interface InfrastructureOptions {
  /** 0 keeps events forever. */
  eventRetentionMs: number;
  payloadTtlMs: number;
  /** Change-tracking baselines (0: kept forever); default BASELINE_TTL_DEFAULT_MS. */
  baselineTtlMs?: number;
}


/** Window in which a repeated Nats-Msg-Id is dropped by the server. */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;

export async function ensureInfrastructure(nc: NatsConnection, opts: InfrastructureOptions): Promise<JetStreamManager> {
  const jsm = await nc.jetstreamManager();
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
  };
  try {
    await jsm.streams.info(STREAM_NAME);
    await jsm.streams.update(STREAM_NAME, config);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // Another service created it between our info and add.
      if (!String((addErr as Error).message).includes('already in use')) throw addErr;
    }
  }
  const js = nc.jetstream();
  await js.views.os(PAYLOAD_BUCKET, { storage: StorageType.File, ttl: nanos(opts.payloadTtlMs), description: 'Trawl payloads: raw HTML, results, screenshots' });
  // Baselines outlive results: "what changed since last month" needs last month's markdown.
  await js.views.os(BASELINE_BUCKET, {
    storage: StorageType.File, ttl: nanos(opts.baselineTtlMs ?? BASELINE_TTL_DEFAULT_MS), description: 'Trawl change-tracking baselines: markdown per key, URL and content hash',
  });
  return jsm;
}

export function isNotFound(err: unknown): boolean {
  const e = err as { code?: string; api_error?: { err_code?: number }; message?: string };
  return e?.code === '404' || e?.api_error?.err_code === 10059 || /not found/i.test(e?.message ?? '');
}
