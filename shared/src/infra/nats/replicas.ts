// Replication of every JetStream resource, written once. NATS_REPLICAS sets the event
// stream's replicas at start (ensureInfrastructure); every KV bucket and object store
// opened afterwards follows the stream, so a bucket opened lazily by any service gets the
// cluster's factor without the setting threaded through each constructor. A resource
// that already exists with another factor is changed in place: JetStream (2.9 included)
// updates a stream's num_replicas, and KV buckets and object stores are streams
// underneath (KV_<bucket>, OBJ_<bucket>).
import type { JetStreamClient, JetStreamManager, KV, KvOptions, ObjectStore, ObjectStoreOptions } from 'nats';
import { STREAM_NAME } from '../subjects.js';

/** One copy: a single nats-server. A cluster sets NATS_REPLICAS=3. */
export const DEFAULT_NATS_REPLICAS = 1;
/** JetStream's own ceiling on a stream's replicas. */
export const MAX_NATS_REPLICAS = 5;

export class ReplicationError extends Error {
  constructor(stream: string, replicas: number, cause: unknown) {
    super(`cannot keep stream ${stream} at ${replicas} replicas (NATS_REPLICAS): ${(cause as Error)?.message ?? cause}; `
      + 'a factor above 1 needs a JetStream cluster with at least that many servers');
    this.name = 'ReplicationError';
  }
}

/** The server's refusals of a factor (more replicas than servers, a single server). */
export function isReplicationRefusal(err: unknown): boolean {
  return /replica|insufficient resources|clustered|peers/i.test(String((err as Error)?.message));
}

/** Runs a stream add/update; the server's refusal of the factor becomes a ReplicationError naming the setting. */
export async function replicated<T>(stream: string, replicas: number, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (!isReplicationRefusal(err)) throw err;
    throw new ReplicationError(stream, replicas, err);
  }
}

/** Sets an existing stream's replicas to `replicas` when they differ; true when it changed them. */
export async function ensureStreamReplicas(jsm: JetStreamManager, stream: string, replicas: number): Promise<boolean> {
  const info = await jsm.streams.info(stream);
  if ((info.config.num_replicas || 1) === replicas) return false;
  await replicated(stream, replicas, () => jsm.streams.update(stream, { ...info.config, num_replicas: replicas }));
  return true;
}

/** The server's answer that a stream (or consumer) does not exist; an outage is not one. */
export function isNotFound(err: unknown): boolean {
  const e = err as { code?: string; api_error?: { err_code?: number }; message?: string };
  return e?.code === '404' || e?.api_error?.err_code === 10059 || /not found/i.test(e?.message ?? '');
}

/**
 * The event stream's replication factor: the one every bucket follows. Any failure but
 * "no such stream" reaches the caller: read as one copy, a stream info that met an outage
 * (the log's leader frozen, a 503 after a thaw) had every bucket opened again then, the
 * host slots' stream included, scaled down to a single copy (ensureStreamReplicas).
 */
export async function logReplicas(js: JetStreamClient): Promise<number> {
  const jsm = await js.jetstreamManager();
  try {
    return (await jsm.streams.info(STREAM_NAME)).config.num_replicas || DEFAULT_NATS_REPLICAS;
  } catch (err) {
    // No event stream (a tool or test that opens a bucket alone): a single copy.
    if (isNotFound(err)) return DEFAULT_NATS_REPLICAS;
    throw err;
  }
}

/** Opens (creating when missing) a KV bucket at the log's replication factor. */
export async function openKv(js: JetStreamClient, bucket: string, opts: Partial<KvOptions>): Promise<KV> {
  const replicas = await logReplicas(js);
  const kv = await js.views.kv(bucket, { ...opts, replicas });
  await ensureStreamReplicas(await js.jetstreamManager(), `KV_${bucket}`, replicas);
  return kv;
}

/** Opens (creating when missing) an object store at the log's replication factor. */
export async function openObjectStore(js: JetStreamClient, bucket: string, opts: Partial<ObjectStoreOptions> = {}): Promise<ObjectStore> {
  const replicas = await logReplicas(js);
  const os = await js.views.os(bucket, { ...opts, replicas });
  await ensureStreamReplicas(await js.jetstreamManager(), `OBJ_${bucket}`, replicas);
  return os;
}
