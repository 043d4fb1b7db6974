// Whether a host slot's holder (a fetcher process) is alive: each holder renews a key of its
// own every few seconds in a KV bucket whose entries expire after a short TTL (JetStream 2.9
// has no per-key TTL; the bucket's max age is it), so the slots of a process that died are
// free again seconds later, not when some long lease runs out. Another holder's key is
// read from the bucket's stream leader, never a direct read that a lagging replica (one
// just restarted) could answer "gone" for a live holder; an unanswered read counts as
// alive, so doubt never frees a slot. A holder whose own renewals have not gone through for
// most of the TTL asks for no slot: the others may already count it gone.
// A missing key proves a holder gone only while the bucket's every server is in the cluster:
// a holder cut off with its server (frozen, partitioned) cannot renew, and lives. So the
// bucket has a replica on every server of the cluster (up to JetStream's 5), not only
// NATS_REPLICAS of them: on 5 servers at R3 a holder cut off with one of the two servers
// outside an R3 group would be judged gone while the group looked whole.
import type { ClusterInfo, JetStreamClient, KV } from 'nats';
import { ensureStreamReplicas, logReplicas, MAX_NATS_REPLICAS } from '../../../../shared/src/infra/nats/replicas.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

export const SLOT_HOLDERS_BUCKET = 'trawl-host-slot-holders';

/** The message asked for is not (or no longer) in the stream. */
export const isNoMessage = (err: unknown): boolean =>
  (err as { api_error?: { err_code?: number } })?.api_error?.err_code === 10037 || /no message found/i.test(String((err as Error)?.message));

export const SLOT_HOLDER_DEFAULTS = {
  /** A holder not heard from for this long is gone (the bucket's max age). */
  ttlMs: 12_000,
  /** How often a holder renews its key. */
  renewMs: 2_000,
  /** How long a holder seen alive is taken as alive without reading again. */
  aliveCacheMs: 1_000,
} as const;

export interface SlotHoldersOptions {
  /** This process's id in the slots it holds: unique among live processes (INSTANCE_ID). */
  holderId: string;
  ttlMs?: number;
  renewMs?: number;
  now?: () => number;
  /**
   * How many servers the cluster has, as this process's connection sees them (the servers it
   * was told of); the bucket gets a replica on each, up to 5. Absent: NATS_REPLICAS.
   */
  clusterServers?: () => number;
  /** After each renewal round (the slots retry their pending deletes then). */
  onBeat?: () => Promise<void>;
}

/**
 * What a holder's key says of it: it lives; a successor restarted under its id holds the key
 * (so it died); it is gone (no key, while the bucket's servers are all in the cluster); or it
 * may be cut off with a server that is out of the cluster, so its missing key proves nothing.
 */
export type HolderLiveness = 'lives' | 'replaced' | 'gone' | 'unsure';

/**
 * A server of the bucket's group not heard from for this long is out of the cluster (frozen,
 * cut off, dead): raft heartbeats come every second. Shorter than any gone-confirm, so a
 * confirm cannot run through the start of a freeze not yet seen.
 */
const PEER_SILENT_MS = 3_000;
/** How long one look at the bucket's group stands for the processes asking at once. */
const WHOLE_CACHE_MS = 500;

/**
 * Whether a stream's raft group, as its leader reports it, has every server in the cluster:
 * a leader, and each other peer online and heard from within PEER_SILENT_MS. A single
 * server's stream (no group) is whole.
 */
export function groupWhole(cluster: ClusterInfo | undefined): boolean {
  if (!cluster) return true;
  return Boolean(cluster.leader) && (cluster.replicas ?? []).every((peer) => !peer.offline && peer.active / 1e6 < PEER_SILENT_MS);
}

/**
 * The holders bucket's replicas: one on every server (so its group's view of who is in the
 * cluster is the whole cluster's), never fewer than the log's, at most JetStream's ceiling.
 */
export const holderReplicas = (logFactor: number, servers: number): number => Math.min(MAX_NATS_REPLICAS, Math.max(logFactor, servers));

const keyOf = (holderId: string): string => `h.${holderId.replace(/[^A-Za-z0-9\-_]/g, '_')}`;

export class SlotHolders {
  private started: Promise<KV> | undefined;
  private readonly jsm = madeOnce(() => this.js.jetstreamManager());
  private timer: NodeJS.Timeout | undefined;
  /** The renewal running now, if any: a tick while one runs asks nothing more (no queue of renewals behind a slow one). */
  private beating: Promise<void> | undefined;
  private lastBeatAt = Number.NEGATIVE_INFINITY;
  private readonly seenAlive = new Map<string, number>();
  private wholeLook: { at: number; whole: Promise<boolean> } | undefined;
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** When this holder began: the value of its key, so a successor under the same id is told apart. */
  private readonly since: number;

  constructor(private readonly js: JetStreamClient, private readonly opts: SlotHoldersOptions) {
    this.ttlMs = opts.ttlMs ?? SLOT_HOLDER_DEFAULTS.ttlMs;
    this.now = opts.now ?? Date.now;
    this.since = this.now();
  }

  /** Opens the bucket and renews this holder's key once, then every renewMs (idempotent). */
  start(): Promise<KV> {
    this.started ??= (async () => {
      const kv = await this.openBucket();
      await this.beat(kv, true);
      this.timer = setInterval(() => { this.beating ??= this.beat(kv, false).finally(() => { this.beating = undefined; }); }, this.opts.renewMs ?? SLOT_HOLDER_DEFAULTS.renewMs);
      this.timer.unref();
      return kv;
    })().catch((err) => { this.started = undefined; throw err; });
    return this.started;
  }

  /** Whether this holder's own key is surely still there (its last renewal is recent enough). */
  current(): boolean {
    // A third of the TTL kept back: the key was written when the renewal started, at the latest.
    return this.now() - this.lastBeatAt < (this.ttlMs * 2) / 3;
  }

  /** Whether `holderId` was heard from within the TTL (true when the store does not answer). */
  async alive(holderId: string): Promise<boolean> {
    const seenAt = this.seenAlive.get(holderId);
    if (seenAt !== undefined && this.now() - seenAt < SLOT_HOLDER_DEFAULTS.aliveCacheMs) return true;
    try {
      // Made once: each jetstreamManager() asks the server for the account first.
      const jsm = await this.jsm();
      const msg = await jsm.streams.getMessage(`KV_${SLOT_HOLDERS_BUCKET}`, { last_by_subj: `$KV.${SLOT_HOLDERS_BUCKET}.${keyOf(holderId)}` });
      const op = msg.header?.get('KV-Operation');
      if (op === 'DEL' || op === 'PURGE') return false;
    } catch (err) {
      return !isNoMessage(err);
    }
    this.seenAlive.set(holderId, this.now());
    return true;
  }

  /**
   * Whether the process that was `holderId` at `at` (ms) still lives: its key is there, and
   * was not written by a successor that began later under the same id (a restart in its
   * place). A missing key says 'gone' only while every server of the bucket's group is in
   * the cluster; 'unsure' when one is out (the holder may be cut off with it) or the store
   * does not answer.
   */
  async liveness(holderId: string, at: number): Promise<HolderLiveness> {
    try {
      const jsm = await this.jsm();
      const msg = await jsm.streams.getMessage(`KV_${SLOT_HOLDERS_BUCKET}`, { last_by_subj: `$KV.${SLOT_HOLDERS_BUCKET}.${keyOf(holderId)}` });
      const op = msg.header?.get('KV-Operation');
      if (op !== 'DEL' && op !== 'PURGE') return Number(new TextDecoder().decode(msg.data)) > at ? 'replaced' : 'lives';
    } catch (err) {
      if (!isNoMessage(err)) return 'unsure';
    }
    return (await this.whole()) ? 'gone' : 'unsure';
  }

  /**
   * Whether the bucket's group has a leader and every server of it was heard from just now
   * (a single server's bucket has no peers to wait for). False when it does not answer.
   */
  whole(): Promise<boolean> {
    if (this.wholeLook && this.now() - this.wholeLook.at < WHOLE_CACHE_MS) return this.wholeLook.whole;
    const whole = (async () => {
      try {
        return groupWhole((await (await this.jsm()).streams.info(`KV_${SLOT_HOLDERS_BUCKET}`)).cluster);
      } catch {
        return false;
      }
    })();
    this.wholeLook = { at: this.now(), whole };
    return whole;
  }

  /**
   * Opens (creating when missing) the bucket at holderReplicas. An existing bucket is only
   * ever scaled up: a process that sees fewer servers (one was down as it started, or an
   * older version) does not take the others' replicas away.
   */
  private async openBucket(): Promise<KV> {
    const replicas = holderReplicas(await logReplicas(this.js), this.opts.clusterServers?.() ?? 0);
    const kv = await this.js.views.kv(SLOT_HOLDERS_BUCKET, { history: 1, ttl: this.ttlMs, replicas });
    const jsm = await this.jsm();
    const stream = `KV_${SLOT_HOLDERS_BUCKET}`;
    if (((await jsm.streams.info(stream)).config.num_replicas || 1) < replicas) await ensureStreamReplicas(jsm, stream, replicas);
    return kv;
  }

  /** Stops renewing and removes this holder's key (its slots are given back first). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    const kv = await this.started?.catch(() => undefined);
    await kv?.delete(keyOf(this.opts.holderId)).catch(() => undefined);
  }

  private async beat(kv: KV, first: boolean): Promise<void> {
    const startedAt = this.now();
    try {
      await kv.put(keyOf(this.opts.holderId), String(this.since));
      this.lastBeatAt = startedAt;
    } catch (err) {
      if (first) throw err;
      // Not current for long: take() asks for nothing until a renewal goes through.
    }
    // Not awaited: the slots' pending deletes (one request timeout each through an outage)
    // must not hold the next renewal back. They were chained with it, so a few deletes
    // unanswered after a thaw kept this holder's key unrenewed, and its pages from any slot.
    void this.opts.onBeat?.().catch(() => undefined);
  }
}
