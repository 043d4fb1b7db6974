// Partitions of one service's work shared by its replicas: each partition has at most one
// holder at a time, and the replicas that are alive split the partitions between them.
//
// The state is a KV bucket whose entries expire LEASE_DEFAULTS.ttlMs after their last write
// (JetStream 2.9 has no per-key TTL; the bucket's max age is it):
//   <group>.member.<id>     a replica's heartbeat, so each knows how many share the work;
//   <group>.lease.<name>    the holder of a partition, taken with create() (fails when held)
//                           and renewed with a compare-and-set on its revision.
// A replica keeps at most its fair share, ceil(partitions / members), and gives the rest
// back, so a second replica that starts gets half of the work within a renewal or two.
// A holder that dies stops renewing; its leases expire and the others take them.
//
// A lease whose holder is this member's own id, though this process does not hold it, was
// left by a dead predecessor under the same id (a process restarted in its slot, with the
// same INSTANCE_ID) or given up by this process itself after a failed renewal: it is taken
// back at once with a compare-and-set on the revision read, not after its TTL. That is safe
// only while no two live processes share an id, which INSTANCE_ID promises (the supervisor's
// slot, the pod's name: a restart follows the death of the one before); a random id can't
// collide.
//
// A lease is good until the holder's own clock passes last renewal + ttl - margin: a
// process that was frozen (SIGSTOP, a long pause) sees its lease lapsed when it wakes and
// stops before it acts, even before its next renewal tells it the lease went to another.
import type { JetStreamClient, KV } from 'nats';
import type { Logger } from '../logger.js';
import { isKvConflict } from './kv-cas.js';
import { openKv } from './replicas.js';
import { madeOnce } from '../made-once.js';

export const LEASE_BUCKET = 'trawl-leases';

export const LEASE_DEFAULTS = {
  /** An entry not renewed for this long expires (the bucket's max age). */
  ttlMs: 10_000,
  /** How often a replica renews its heartbeat and leases. */
  renewMs: 2_000,
  /** A lease is treated as lapsed this long before it could expire on the server. */
  marginMs: 2_000,
} as const;

export interface PartitionLeasesOptions {
  /** The service, e.g. "projector": its keys' prefix. */
  group: string;
  partitions: readonly string[];
  memberId: string;
  /** Starts the work of a partition just taken. */
  onAcquire(partition: string): Promise<void>;
  /** Stops the work of a partition given back or lost (it must not act after this resolves). */
  onRelease(partition: string): Promise<void>;
  logger: Logger;
  ttlMs?: number;
  renewMs?: number;
  now?: () => number;
}

interface Held { revision: number; renewedAt: number }

export class PartitionLeases {
  private kv: KV | undefined;
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;
  private readonly ttlMs: number;
  private readonly renewMs: number;
  private readonly now: () => number;

  constructor(private readonly js: JetStreamClient, private readonly opts: PartitionLeasesOptions) {
    this.ttlMs = opts.ttlMs ?? LEASE_DEFAULTS.ttlMs;
    this.renewMs = opts.renewMs ?? LEASE_DEFAULTS.renewMs;
    this.now = opts.now ?? Date.now;
  }

  async start(): Promise<void> {
    this.kv = await openKv(this.js, LEASE_BUCKET, { history: 1, ttl: this.ttlMs });
    await this.tick();
    this.timer = setInterval(() => { this.round = this.round.then(() => this.tick()); }, this.renewMs);
  }

  /** Whether this replica holds `partition` now (its lease cannot have lapsed). */
  holds(partition: string): boolean {
    const lease = this.held.get(partition);
    return !this.stopped && lease !== undefined && this.now() < lease.renewedAt + this.ttlMs - LEASE_DEFAULTS.marginMs;
  }

  heldPartitions(): string[] {
    return [...this.held.keys()];
  }

  /** Gives every lease back (the others take them at their next renewal). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
    for (const [partition, lease] of this.held) {
      await this.opts.onRelease(partition);
      await this.kv?.delete(this.leaseKey(partition), { previousSeq: lease.revision }).catch(() => undefined);
    }
    this.held.clear();
    await this.kv?.delete(this.memberKey(this.opts.memberId)).catch(() => undefined);
  }

  private leaseKey(partition: string): string { return `${this.opts.group}.lease.${partition}`; }
  private memberKey(id: string): string { return `${this.opts.group}.member.${id}`; }

  private async tick(): Promise<void> {
    if (this.stopped || !this.kv) return;
    const kv = this.kv;
    try {
      const startedAt = this.now();
      await kv.put(this.memberKey(this.opts.memberId), this.opts.memberId);
      const members = await this.liveMembers(kv);
      const fairShare = Math.ceil(this.opts.partitions.length / Math.max(1, members));
      for (const [partition, lease] of [...this.held]) {
        try {
          const revision = await kv.update(this.leaseKey(partition), this.opts.memberId, lease.revision);
          this.held.set(partition, { revision, renewedAt: startedAt });
        } catch {
          await this.lose(partition, 'lease taken or expired');
        }
      }
      while (this.held.size > fairShare) {
        const partition = [...this.held.keys()].at(-1)!;
        const revision = this.held.get(partition)!.revision;
        await this.lose(partition, `more than a fair share of ${fairShare} with ${members} replicas`);
        await kv.delete(this.leaseKey(partition), { previousSeq: revision }).catch(() => undefined);
      }
      for (const partition of this.order()) {
        if (this.held.size >= fairShare || this.stopped) break;
        if (this.held.has(partition)) continue;
        const revision = await this.take(kv, partition);
        if (revision === undefined) continue; // held by another replica
        this.held.set(partition, { revision, renewedAt: startedAt });
        this.opts.logger.info({ partition, members }, `${this.opts.group}: took partition`);
        await this.opts.onAcquire(partition);
      }
    } catch (err) {
      // NATS unreachable: leases lapse on their own (holds() turns false), work pauses.
      this.opts.logger.warn({ err: String(err) }, `${this.opts.group}: lease renewal failed`);
    }
  }

  /**
   * How many replicas renew their heartbeat. Not kv.keys(): its ordered consumer can wait
   * forever on a bucket whose entries expire (nats-server 2.9, nats-io/nats-server#3481),
   * and a round that never ends renews nothing again. Each request here has a timeout.
   */
  private async liveMembers(kv: KV): Promise<number> {
    const prefix = `${this.opts.group}.member.`;
    const info = await this.jsm().then((jsm) => jsm.streams.info(`KV_${LEASE_BUCKET}`, { subjects_filter: `$KV.${LEASE_BUCKET}.${prefix}*` }));
    let members = 0;
    for (const subject of Object.keys(info.state.subjects ?? {})) {
      // A member that stopped gracefully left a delete marker under its key.
      const entry = await kv.get(subject.slice(`$KV.${LEASE_BUCKET}.`.length));
      if (entry && entry.length > 0) members++;
    }
    return members;
  }

  private readonly jsm = madeOnce(() => this.js.jetstreamManager());

  /** A free partition's lease, or this member's own left by its predecessor; undefined: another's. */
  private async take(kv: KV, partition: string): Promise<number | undefined> {
    const key = this.leaseKey(partition);
    try {
      return await kv.create(key, this.opts.memberId);
    } catch (err) {
      if (!isKvConflict(err)) throw err;
    }
    const entry = await kv.get(key);
    if (!entry || entry.length === 0 || entry.string() !== this.opts.memberId) return undefined;
    try {
      const revision = await kv.update(key, this.opts.memberId, entry.revision);
      this.opts.logger.info({ partition }, `${this.opts.group}: took back a lease left under this instance's id`);
      return revision;
    } catch (err) {
      if (isKvConflict(err)) return undefined;
      throw err;
    }
  }

  private async lose(partition: string, why: string): Promise<void> {
    this.held.delete(partition);
    this.opts.logger.info({ partition, why }, `${this.opts.group}: gave up partition`);
    await this.opts.onRelease(partition);
  }

  /** Partitions in an order of this member's own, so replicas starting together try different ones first. */
  private order(): string[] {
    const parts = this.opts.partitions;
    let hash = 0;
    for (const ch of this.opts.memberId) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    const offset = parts.length ? hash % parts.length : 0;
    return parts.map((_, i) => parts[(i + offset) % parts.length]!);
  }
}
