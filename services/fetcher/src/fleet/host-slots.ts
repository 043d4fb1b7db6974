// The fleet's places per host, exact on a replicated stream of nats-server 2.9: a host with a
// bound of N has N slot subjects, and a place is one message on one of them, in a stream
// that keeps at most one message per subject and refuses (discard new, per subject) a
// second. That refusal is the store's, applied by every replica in the Raft log's order, so
// of two fetchers asking at once exactly one gets the slot. A KV compare-and-set is not
// exact there: 2.9 checks the revision before proposing, not when applying
// (nats-io/nats-server#4320; measured in docs/benchmarks.md).
//
// A slot message names its holder, a fetcher process whose liveness is a heartbeat key
// (slot-holders.ts) renewed every few seconds and gone seconds after the process dies.
// A slot whose holder is gone is taken over by deleting THAT message by its sequence (a
// replicated delete that does nothing when the slot was taken again meanwhile) and asking
// again; never a subject purge, which could delete a fresher holder's slot. A page's end
// deletes its own message by sequence, retried through an outage until it goes. A slot held
// under this process's own id that it does not know of (a publish whose answer was lost, a
// predecessor under the same INSTANCE_ID) is its own to delete. The stream has no max age
// on purpose: each replica ages messages out on its own clock, and a place taken in between
// would be stored by one copy and refused by another.
import { headers, type JetStreamClient, type JetStreamManager } from 'nats';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import { isNatsOutage } from '../../../../shared/src/infra/nats/outage.js';
import { ensureStreamReplicas, isNotFound, logReplicas, replicated } from '../../../../shared/src/infra/nats/replicas.js';
import { isNoMessage, SlotHolders, type SlotHoldersOptions } from './slot-holders.js';

export const HOST_SLOTS_STREAM = 'TRAWL_HOST_SLOTS';
const SUBJECT_PREFIX = 'trawl-host-slot';
const HOLDER_HEADER = 'Trawl-Slot-Holder';
/** nats-server's refusal of a second message on a slot's subject (JSStreamStoreFailed, max per subject). */
const SLOT_TAKEN_ERR_CODE = 10077;
/** Slots tried per ask (a bound of hundreds is not asked slot by slot each time). */
const MAX_SLOTS_PER_ASK = 16;

/** Subject tokens allow what a KV key does: anything else in a host becomes "_". */
export const slotSubject = (host: string, slot: number): string =>
  `${SUBJECT_PREFIX}.${host.toLowerCase().replace(/[^a-z0-9\-_.]/g, '_').replace(/\.+/g, '.').replace(/^\.|\.$/g, '_')}.${slot}`;

const apiErrCode = (err: unknown): number | undefined => (err as { api_error?: { err_code?: number } })?.api_error?.err_code;

/** nats-server's answer to a delete of a sequence the stream no longer has (JSSequenceNotFoundErrF). */
const SEQUENCE_NOT_FOUND_ERR_CODE = 10043;
/**
 * A delete by sequence that found nothing: the slot was freed meanwhile (given back, taken
 * over, or read from a copy that had not seen its delete). Not an error: before, it failed
 * the page's handler, whose claim then kept the page's redelivery waiting 60 s for a
 * fetcher that had handed the page back (the chaos drill's kill test).
 */
const isAlreadyDeleted = (err: unknown): boolean =>
  isNoMessage(err) || apiErrCode(err) === SEQUENCE_NOT_FOUND_ERR_CODE || /sequence \d+ not found/i.test(String((err as Error)?.message));

/** A publish nobody answered: no stream leader for the subject (yet). */
const isNoResponders = (err: unknown): boolean => (err as { code?: string })?.code === '503' && apiErrCode(err) === undefined;

/** The manager's direct reads (present in nats.js, not in its JetStreamManager type). */
interface DirectReads { getMessage(stream: string, query: { last_by_subj: string }): Promise<{ seq: number; header: { get(k: string): string } }> }

export interface HeldSlot { subject: string; seq: number }

export interface HostSlotsOptions extends SlotHoldersOptions {
  logger?: Logger;
}

export class HostSlots {
  private ready: Promise<JetStreamManager> | undefined;
  readonly holders: SlotHolders;
  /** The slots this process holds now, by sequence. */
  private readonly held = new Map<number, string>();
  /** Subjects with a publish of this process awaiting its answer. */
  private readonly asking = new Map<string, number>();
  /** Released slots whose delete has not gone through yet (an outage): retried each heartbeat. */
  private readonly unfreed = new Map<number, HeldSlot>();
  /** The heartbeat's round of retried deletes, while it runs. */
  private freeing: Promise<void> | undefined;

  constructor(private readonly js: JetStreamClient, private readonly opts: HostSlotsOptions) {
    // One round of pending deletes at a time from the heartbeat (each may wait out a request timeout).
    this.holders = new SlotHolders(js, { ...opts, onBeat: () => (this.freeing ??= this.retryFrees().finally(() => { this.freeing = undefined; })) });
  }

  get holderId(): string { return this.opts.holderId; }

  private manager(): Promise<JetStreamManager> {
    this.ready ??= this.ensureStream().catch((err) => { this.ready = undefined; throw err; });
    return this.ready;
  }

  private async ensureStream(): Promise<JetStreamManager> {
    const jsm = await this.js.jetstreamManager();
    const replicas = await logReplicas(this.js);
    const config = {
      name: HOST_SLOTS_STREAM, subjects: [`${SUBJECT_PREFIX}.>`], num_replicas: replicas,
      max_msgs_per_subject: 1, discard: 'new', discard_new_per_subject: true, allow_direct: true,
    };
    // Missing only when the server says so: an info that met an outage is no answer.
    const exists = await jsm.streams.info(HOST_SLOTS_STREAM).then(() => true, (err: unknown) => { if (isNotFound(err)) return false; throw err; });
    if (exists) await ensureStreamReplicas(jsm, HOST_SLOTS_STREAM, replicas);
    else {
      await replicated(HOST_SLOTS_STREAM, replicas, () => jsm.streams.add(config as never)).catch((err) => {
        // Another fetcher created it first (same config).
        if (!/already in use|exists/i.test(String((err as Error)?.message))) throw err;
      });
    }
    return jsm;
  }

  /**
   * Takes one of `count` slots of `host`; undefined when every slot asked is held by a live
   * holder, or when this process's own heartbeat is not current (it could be judged gone).
   * NATS outages reach the caller (isNatsOutage) to be asked again later.
   */
  async take(host: string, count: number): Promise<HeldSlot | undefined> {
    const jsm = await this.manager();
    await this.holders.start();
    if (!this.holders.current()) return undefined;
    // From a random slot, so askers spread over the slots instead of all racing for slot 0.
    const first = Math.floor(Math.random() * count);
    let examined = false;
    for (let i = 0; i < Math.min(count, MAX_SLOTS_PER_ASK); i++) {
      const subject = slotSubject(host, (first + i) % count);
      const held = await this.publish(subject);
      if (held) return held;
      // One holder check per ask: a gone holder's slot is found within a few asks.
      if (!examined) {
        examined = true;
        if (await this.takeOverIfGone(jsm, subject)) {
          const again = await this.publish(subject);
          if (again) return again;
        }
      }
    }
    return undefined;
  }

  /**
   * Gives a slot back: deletes exactly its message, now or (through an outage) on a later
   * heartbeat. Resolves after the first try; it never rejects.
   */
  release(slot: HeldSlot): Promise<void> {
    this.held.delete(slot.seq);
    this.unfreed.set(slot.seq, slot);
    return this.retryFrees();
  }

  /** Stops the heartbeat after giving back what can be given back (a clean stop). */
  async stop(): Promise<void> {
    await Promise.all([...this.held].map(([seq, subject]) => this.release({ subject, seq })));
    await this.holders.stop();
  }

  private async retryFrees(): Promise<void> {
    for (const [seq, slot] of [...this.unfreed]) {
      try {
        await this.deleteSlot(slot);
        this.unfreed.delete(seq);
      } catch (err) {
        // Asked again on the next heartbeat; anything else is left to the own-id take-over.
        if (!isNatsOutage(err)) {
          this.unfreed.delete(seq);
          this.opts.logger?.warn({ err, slot }, 'could not give a host slot back');
        }
      }
    }
  }

  private async deleteSlot(slot: HeldSlot): Promise<void> {
    const jsm = await this.manager();
    await jsm.streams.deleteMessage(HOST_SLOTS_STREAM, slot.seq, false).catch((err) => {
      if (!isAlreadyDeleted(err)) throw err;
    });
  }

  private async publish(subject: string): Promise<HeldSlot | undefined> {
    const h = headers();
    h.set(HOLDER_HEADER, this.holderId);
    this.asking.set(subject, (this.asking.get(subject) ?? 0) + 1);
    try {
      const ack = await this.js.publish(subject, undefined, { headers: h });
      this.held.set(ack.seq, subject);
      return { subject, seq: ack.seq };
    } catch (err) {
      if (apiErrCode(err) === SLOT_TAKEN_ERR_CODE) return undefined;
      if (isNoResponders(err)) {
        // The stream was just created (its leader not elected yet) or is gone: ask again
        // later, creating it again if need be.
        this.ready = undefined;
        return undefined;
      }
      throw err;
    } finally {
      const n = (this.asking.get(subject) ?? 1) - 1;
      if (n > 0) this.asking.set(subject, n); else this.asking.delete(subject);
    }
  }

  /** Deletes the slot's message when nobody holds it any more; true when it was freed. */
  private async takeOverIfGone(jsm: JetStreamManager, subject: string): Promise<boolean> {
    let seq: number;
    let holder: string;
    try {
      // A direct read (any replica answers): a stale copy names an older message, whose
      // delete by sequence does nothing.
      const msg = await (jsm as JetStreamManager & { direct: DirectReads }).direct.getMessage(HOST_SLOTS_STREAM, { last_by_subj: subject });
      seq = msg.seq;
      holder = msg.header.get(HOLDER_HEADER);
    } catch (err) {
      const code = (err as { code?: string })?.code;
      if (code === '404') return true; // freed meanwhile
      if (code === 'TIMEOUT') return false; // the next ask reads again
      throw err;
    }
    if (holder === this.holderId) {
      // This process's own id: held by it, being asked for by it, or nobody's.
      if (this.held.has(seq) || this.asking.has(subject)) return false;
    } else if (holder && await this.holders.alive(holder)) {
      return false;
    }
    await this.deleteSlot({ subject, seq });
    this.unfreed.delete(seq);
    return true;
  }
}
