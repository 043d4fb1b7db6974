// The fleet's places per host, exact on a replicated stream of nats-server 2.9: a host with a
// bound of N has N slot subjects, and a place is one message on one of them, in a stream
// that keeps at most one message per subject and refuses (discard new, per subject) a
// second. That refusal is the store's, applied by every replica in the Raft log's order, so
// of two fetchers asking at once exactly one gets the slot. A KV compare-and-set is not
// exact there: 2.9 checks the revision before proposing, not when applying
// (nats-io/nats-server#4320; measured in docs/benchmarks.md, bench/probe/slot-probe.ts).
// Releasing deletes the message by its sequence. A holder that died leaves its message: the
// next asker that finds the message older than its lease deletes it (by that sequence, so
// only that holder's place) and asks again. The stream has no max age on purpose: each
// replica ages messages out on its own clock, and a place taken in between would be stored
// by one copy and refused by another; a dead holder's message on a host nobody asks for
// again stays (one small message per slot it held).
import { headers, type JetStreamClient, type JetStreamManager } from 'nats';
import { isNatsOutage } from '../../../../shared/src/infra/nats/outage.js';
import { logReplicas, replicated } from '../../../../shared/src/infra/nats/replicas.js';

export const HOST_SLOTS_STREAM = 'TRAWL_HOST_SLOTS';
const SUBJECT_PREFIX = 'trawl-host-slot';
const LEASE_HEADER = 'Trawl-Lease-Expires';
/** nats-server's refusal of a second message on a slot's subject (JSStreamStoreFailed, max per subject). */
const SLOT_TAKEN_ERR_CODE = 10077;
const NO_MESSAGE_ERR_CODE = 10037;
/** Slots tried per ask. */
const MAX_SLOTS_PER_ASK = 16;
/** Asks to give a slot back through an election (about 10 s in all). */
const FREE_TRIES = 20;
const FREE_PAUSE_MS = 500;

/** Subject tokens allow what a KV key does: anything else in a host becomes "_". */
export const slotSubject = (host: string, slot: number): string =>
  `${SUBJECT_PREFIX}.${host.toLowerCase().replace(/[^a-z0-9\-_.]/g, '_').replace(/\.+/g, '.').replace(/^\.|\.$/g, '_')}.${slot}`;

const apiErrCode = (err: unknown): number | undefined => (err as { api_error?: { err_code?: number } })?.api_error?.err_code;

/** A publish nobody answered: no stream leader for the subject (yet). */
const isNoResponders = (err: unknown): boolean => (err as { code?: string })?.code === '503' && apiErrCode(err) === undefined;

/** The manager's direct reads (present in nats.js, not in its JetStreamManager type). */
interface DirectReads { getMessage(stream: string, query: { last_by_subj: string }): Promise<{ seq: number; header: { get(k: string): string } }> }

export interface HeldSlot { subject: string; seq: number }

export class HostSlots {
  private ready: Promise<JetStreamManager> | undefined;

  constructor(private readonly js: JetStreamClient, private readonly now: () => number = Date.now) {}

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
    const exists = await jsm.streams.info(HOST_SLOTS_STREAM).then(() => true, () => false);
    if (!exists) {
      await replicated(HOST_SLOTS_STREAM, replicas, () => jsm.streams.add(config as never)).catch((err) => {
        // Another fetcher created it first (same config).
        if (!/already in use|exists/i.test(String((err as Error)?.message))) throw err;
      });
    }
    return jsm;
  }

  /** Takes one of `count` slots of `host` for `leaseMs`; undefined when every slot asked is held. */
  async take(host: string, count: number, leaseMs: number): Promise<HeldSlot | undefined> {
    const jsm = await this.manager();
    // From a random slot, so askers spread over the slots instead of all racing for slot 0;
    // a few slots per ask (a bound of hundreds is not asked slot by slot each time).
    const first = Math.floor(Math.random() * count);
    let reclaimed = false;
    for (let i = 0; i < Math.min(count, MAX_SLOTS_PER_ASK); i++) {
      const subject = slotSubject(host, (first + i) % count);
      const held = await this.publish(subject, leaseMs);
      if (held) return held;
      // One lease check per ask: a dead holder's slot is found within a few asks.
      if (!reclaimed) {
        reclaimed = true;
        if (await this.reclaimExpired(jsm, subject)) {
          const again = await this.publish(subject, leaseMs);
          if (again) return again;
        }
      }
    }
    return undefined;
  }

  /** Gives a slot back (deleting exactly the message that holds it). */
  async free(slot: HeldSlot): Promise<void> {
    const jsm = await this.manager();
    await jsm.streams.deleteMessage(HOST_SLOTS_STREAM, slot.seq, false).catch((err) => {
      if (apiErrCode(err) !== NO_MESSAGE_ERR_CODE) throw err; // already reclaimed or aged out
    });
  }

  /**
   * Gives a slot back, asking again while NATS is briefly unavailable (a leader election):
   * a slot not given back is held until its lease ends, minutes of a host's places lost.
   */
  async freeSurely(slot: HeldSlot, tries = FREE_TRIES, pauseMs = FREE_PAUSE_MS): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.free(slot);
      } catch (err) {
        if (attempt >= tries || !isNatsOutage(err)) throw err;
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }
  }

  private async publish(subject: string, leaseMs: number): Promise<HeldSlot | undefined> {
    const h = headers();
    h.set(LEASE_HEADER, String(this.now() + leaseMs));
    try {
      const ack = await this.js.publish(subject, undefined, { headers: h });
      return { subject, seq: ack.seq };
    } catch (err) {
      if (apiErrCode(err) === SLOT_TAKEN_ERR_CODE) return undefined;
      if (isNoResponders(err)) {
        // The stream was just created (its leader not elected yet) or is gone: ask again later,
        // creating it again if need be.
        this.ready = undefined;
        return undefined;
      }
      throw err;
    }
  }

  /** Deletes the slot's message when its holder's lease ran out (a holder that died); true when freed. */
  private async reclaimExpired(jsm: JetStreamManager, subject: string): Promise<boolean> {
    let seq: number;
    let expiresAt: number;
    try {
      // A direct read (any replica answers): 2.9's STREAM.MSG.GET on a replicated stream can
      // go unanswered under load.
      const msg = await (jsm as JetStreamManager & { direct: DirectReads }).direct.getMessage(HOST_SLOTS_STREAM, { last_by_subj: subject });
      seq = msg.seq;
      expiresAt = Number(msg.header.get(LEASE_HEADER));
    } catch (err) {
      const code = (err as { code?: string })?.code;
      if (code === '404') return true; // freed meanwhile
      // Unanswered (a stream just created, a replica catching up): the next ask reads again.
      if (code === 'TIMEOUT') return false;
      throw err;
    }
    if (Number.isFinite(expiresAt) && expiresAt > this.now()) return false;
    await this.free({ subject, seq });
    return true;
  }
}
