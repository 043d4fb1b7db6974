// Politeness for the whole fleet: every fetcher replica asks here before a bulk page
// (crawl, batch) of a host loads, and reports the host's answer after. The pages of a host
// loading at once are bounded by its slots (host-slots.ts: exact on a replicated stream,
// which a compare-and-set is not on nats-server 2.9; a dead holder's slots are free again
// within seconds). The pace of each host (host-pace.ts: spacing, Crawl-delay, back-off after
// 429/503) lives in one KV entry changed by compare-and-set, so a 429 or 503 seen by one
// replica slows all. Slots and pace are operational state, like the rate-limit counters:
// not a record of what happened (that is page_fetched), and an expired entry starts fresh.
// While NATS is unreachable nothing starts: the asks back off and go on until the page's
// signal ends them.
// Per page, what a steady flow of one host's pages needs no round trip for is not asked: a
// slot given back is kept a moment (SLOT_LINGER_MS) for this process's next page of the
// host, which takes it without a publish and a delete (still held, so still counted in the
// bound; given back for good after SLOT_REUSES_MOST pages, so other replicas get their
// turn); a spaced pace read is reused for PACE_READ_REUSE_MS; an unspaced one only for pages
// whose message this process had before the read was sent (see paceOf), and a read in flight
// is shared the same way; and a success is reported only
// when it changes the pace (a back-off to recover from), so an unslowed host is not read
// again after each page. A 429/503 seen by another replica reaches this one within
// PACE_READ_REUSE_MS.
import { ErrorCode, NatsError, type JetStreamClient } from 'nats';
import { observe, openHostPaces, paceKey, parsePace as parse, retryAfterMs, spacingMs, start, type HostPace, type PaceLimits } from '../../../../shared/src/domain/host-pace.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import { casUpdate, kvText } from '../../../../shared/src/infra/nats/kv-cas.js';
import { isNatsOutage } from '../../../../shared/src/infra/nats/outage.js';
import { HostSlots, type HeldSlot } from './host-slots.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';
import { LRUCache } from 'lru-cache';

/** The longest single sleep between asks (so an abort or a release is noticed soon). */
const MAX_SLEEP_MS = 1_000;
/** The pause before asking again when every slot of the host is held: doubles from the first to the most (jittered). */
const SLOT_RETRY_FIRST_MS = 20;
const SLOT_RETRY_MOST_MS = 250;
/** The pause before asking again through a NATS outage: doubles from the first to the most. */
const OUTAGE_RETRY_FIRST_MS = 250;
const OUTAGE_RETRY_MOST_MS = 2_000;
/**
 * How long a page waits for a slot while NATS gives it no answer (outages, or this
 * process's holder key not renewed, so no slot may be taken) before the wait ends as a NATS
 * outage: the worker then runs the page again in place or hands it back within its outage
 * allowance, and another fetcher may take it. Without a bound such a wait lasted until the
 * page's handler deadline (minutes): the chaos drill's crawl stood at 144 of 200 for 5 min
 * after a thaw, its six pages in flight in the fetchers' handlers. Waits for slots that
 * live holders hold, and for the host's pace, are politeness and keep their own bounds.
 */
export const NATS_SLOT_WAIT_MS = 30_000;
/** A page still waiting for its slot this long is logged once, with why (the last answer that kept it waiting). */
const LONG_SLOT_WAIT_MS = 10_000;
/** How long a slot given back waits for this process's next page of its host before it is deleted. */
export const SLOT_LINGER_MS = 50;
/** Pages one slot serves in a row before it is given back for good (other replicas' turn). */
export const SLOT_REUSES_MOST = 32;
/** How long a host's pace, once read, answers this process's next asks. */
export const PACE_READ_REUSE_MS = 250;

/** Hosts whose pace is kept in memory (the most recently asked). */
const PACES_KEPT = 1_000;

interface IdleSlot { slot: HeldSlot; uses: number; timer: NodeJS.Timeout }

export interface HostGovernorOptions extends PaceLimits {
  /** This process's id in the slots it holds (INSTANCE_ID: a restart in its place takes its slots back at once). */
  holderId: string;
  /** A slot holder not heard from for this long is gone (default: slot-holders.ts). */
  holderTtlMs?: number;
  holderRenewMs?: number;
  /** How long a page waits for a slot while NATS gives it no answer (default NATS_SLOT_WAIT_MS). */
  natsSlotWaitMs?: number;
  /** The cluster's servers as this process sees them (the holders bucket has a replica on each; slot-holders.ts). */
  clusterServers?: () => number;
  logger?: Logger;
  now?: () => number;
}

export class HostGovernor {
  private readonly now: () => number;
  readonly slots: HostSlots;

  constructor(private readonly js: JetStreamClient, private readonly opts: HostGovernorOptions) {
    this.now = opts.now ?? Date.now;
    this.slots = new HostSlots(js, {
      holderId: opts.holderId, now: this.now,
      ...(opts.holderTtlMs ? { ttlMs: opts.holderTtlMs } : {}),
      ...(opts.holderRenewMs ? { renewMs: opts.holderRenewMs } : {}),
      ...(opts.clusterServers ? { clusterServers: opts.clusterServers } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  private readonly bucket = madeOnce(() => openHostPaces(this.js));
  /** Slots given back, kept a moment for this process's next page of their host (by pace key). */
  private readonly idle = new Map<string, IdleSlot[]>();
  /**
   * Each host's pace as last read or written here: `at` when (this.now), `sentAt` when the
   * read that gave it was sent, or before (performance.now(), this process's clock).
   */
  private readonly paces = new LRUCache<string, { pace: HostPace; at: number; sentAt: number }>({ max: PACES_KEPT });
  /** A pace read in flight per host, and when it was sent. */
  private readonly reading = new Map<string, { sentAt: number; pace: Promise<HostPace> }>();
  /** Set by stop(): a slot given back then is deleted at once. */
  private stopped = false;

  /**
   * The host's pace for a page whose message this process got at `receivedAt`
   * (performance.now(); absent: the pace is read unless a spaced one was just read).
   */
  private async paceOf(kv: Awaited<ReturnType<typeof openHostPaces>>, key: string, receivedAt?: number): Promise<HostPace> {
    const known = this.paces.get(key);
    if (known && this.now() - known.at < PACE_READ_REUSE_MS) {
      // A spaced pace: its start is checked against the entry anyway (the compare-and-set in enter()).
      if (spacingMs(known.pace, this.opts.intervalMs) > 0) return known.pace;
      // An unspaced one may have gained a Crawl-delay since: the frontier writes it when it
      // reads robots.txt (after the host's first page), before it requests any page it then
      // finds. A read sent after this page's message came was sent after the page was
      // requested, so after any Crawl-delay written before that: it answers this page.
      if (receivedAt !== undefined && known.sentAt >= receivedAt) return known.pace;
    }
    const pending = this.reading.get(key);
    if (pending && receivedAt !== undefined && pending.sentAt >= receivedAt) return pending.pace;
    const sentAt = performance.now();
    const read = (async () => parse(kvText(await kv.get(key))))();
    this.reading.set(key, { sentAt, pace: read });
    try {
      const pace = await read;
      this.remember(key, pace, sentAt);
      return pace;
    } finally {
      if (this.reading.get(key)?.pace === read) this.reading.delete(key);
    }
  }

  /** `sentAt`: when the read (or compare-and-set) that gave `pace` was sent, or earlier. */
  private remember(key: string, pace: HostPace, sentAt: number): void {
    const known = this.paces.get(key);
    if (known && known.sentAt > sentAt) return; // a later read already answered
    this.paces.set(key, { pace, at: this.now(), sentAt });
  }

  /** An idle slot of the host, taken out of the idle list (its delete cancelled). */
  private reuse(key: string): IdleSlot | undefined {
    const list = this.idle.get(key);
    const got = list?.pop();
    if (!got) return undefined;
    if (list!.length === 0) this.idle.delete(key);
    clearTimeout(got.timer);
    return got;
  }

  /** The page is done with its slot: kept a moment for the next page of the host, or given back. */
  private leaveSlot(key: string, slot: HeldSlot, uses: number): void {
    if (uses >= SLOT_REUSES_MOST || this.stopped) { void this.slots.release(slot); return; }
    const entry: IdleSlot = {
      slot, uses,
      timer: setTimeout(() => {
        const list = this.idle.get(key);
        const at = list?.indexOf(entry) ?? -1;
        if (at < 0) return;
        list!.splice(at, 1);
        if (list!.length === 0) this.idle.delete(key);
        void this.slots.release(slot);
      }, SLOT_LINGER_MS),
    };
    entry.timer.unref?.();
    const list = this.idle.get(key) ?? [];
    list.push(entry);
    this.idle.set(key, list);
  }

  /**
   * Waits for a slot to load a page of `host`; resolves with its release. `receivedAt`: when
   * this process got the page's message (performance.now()), which lets a pace read sent
   * since answer it.
   */
  async enter(host: string, signal: AbortSignal, receivedAt?: number): Promise<() => Promise<void>> {
    const key = paceKey(host);
    let slotRetryMs = SLOT_RETRY_FIRST_MS;
    let outageRetryMs = OUTAGE_RETRY_FIRST_MS;
    /** Since when NATS has given this page no answer, and why (see NATS_SLOT_WAIT_MS). */
    let unanswered: { since: number; why: string } | undefined;
    const waitingSince = this.now();
    let told = false;
    /** Why the page waits this time round; logged once if it has waited long. */
    const waiting = (why: string): void => {
      if (told || this.now() - waitingSince < LONG_SLOT_WAIT_MS) return;
      told = true;
      this.opts.logger?.warn({ host, waitedMs: this.now() - waitingSince, why }, 'a page still waits for a host slot');
    };
    const noAnswer = (why: string): void => {
      waiting(why);
      unanswered = { since: unanswered?.since ?? this.now(), why };
      const waitedMs = this.now() - unanswered.since;
      if (waitedMs < (this.opts.natsSlotWaitMs ?? NATS_SLOT_WAIT_MS)) return;
      this.opts.logger?.warn({ host, waitedMs, why }, 'no host slot: NATS has not answered; handing the page back to the worker');
      throw new NoSlotAnswerError(`no slot of ${host} for ${waitedMs} ms: ${why}`);
    };
    for (;;) {
      signal.throwIfAborted();
      let slot;
      try {
        const kv = await this.bucket();
        const pace = await this.paceOf(kv, key, receivedAt);
        const due = pace.nextAt - this.now();
        if (due > 0) { waiting('the host\'s pace'); await sleep(Math.min(due, MAX_SLEEP_MS), signal); continue; }
        // Not while this process's heartbeat is not current: its slots may be judged gone and taken over.
        const kept = this.slots.holders.current() ? this.reuse(key) : undefined;
        const uses = (kept?.uses ?? 0) + 1;
        slot = kept?.slot ?? await this.slots.take(host, this.opts.maxInFlight);
        if (!slot) {
          if (this.slots.holders.current()) { unanswered = undefined; waiting('every slot held by a live holder'); } // politeness
          else noAnswer('this fetcher\'s slot-holder key is not renewed');
          await sleep(slotRetryMs / 2 + Math.random() * slotRetryMs / 2, signal);
          slotRetryMs = Math.min(SLOT_RETRY_MOST_MS, slotRetryMs * 2);
          continue;
        }
        // Spaced starts only: a host with no spacing is not written to per page.
        const casSentAt = performance.now();
        const waitMs = spacingMs(pace, this.opts.intervalMs) === 0 ? 0 : await casUpdate(kv, key, (text) => {
          const got = start(parse(text), this.now(), this.opts.intervalMs);
          if (got.granted) this.remember(key, got.pace, casSentAt);
          return got.granted ? { value: JSON.stringify(got.pace), result: 0 } : { result: got.waitMs };
        });
        if (waitMs === 0) {
          const held = slot;
          // Kept a moment for the next page of the host, then deleted (not awaited: retried on its own until it goes).
          return async () => { this.leaveSlot(key, held, uses); };
        }
        // Another replica started first and the spacing says wait: the slot is not held meanwhile.
        void this.slots.release(slot);
        slot = undefined;
        await sleep(Math.min(waitMs, MAX_SLEEP_MS), signal);
      } catch (err) {
        if (slot) void this.slots.release(slot);
        if (!isNatsOutage(err) || err instanceof NoSlotAnswerError) throw err;
        noAnswer(String(err));
        await sleep(outageRetryMs, signal);
        outageRetryMs = Math.min(OUTAGE_RETRY_MOST_MS, outageRetryMs * 2);
      }
    }
  }

  /** The host's answer to a page: 429/503 (with Retry-After) slow the fleet; a success recovers. */
  async report(host: string, statusCode: number, retryAfterHeader: string | undefined, startedAt = this.now()): Promise<void> {
    const key = paceKey(host);
    const known = this.paces.get(key);
    // A success that would not change the pace just read (no back-off to recover from) writes nothing: not read again either.
    const quiet = statusCode !== 429 && statusCode !== 503;
    if (quiet && known && this.now() - known.at < PACE_READ_REUSE_MS && observe(known.pace, this.now(), statusCode, undefined, startedAt) === known.pace) return;
    const kv = await this.bucket();
    const sentAt = performance.now();
    await casUpdate(kv, key, (text) => {
      const pace = parse(text);
      const next = observe(pace, this.now(), statusCode, retryAfterMs(retryAfterHeader, this.now()), startedAt);
      this.remember(key, next, sentAt);
      return next === pace ? { result: undefined } : { value: JSON.stringify(next), result: undefined };
    });
  }

  /** The host's pace now (null: never asked, or forgotten). */
  async pace(host: string): Promise<HostPace | null> {
    const entry = await (await this.bucket()).get(paceKey(host));
    return entry && entry.length > 0 ? parse(entry.string()) : null;
  }

  /** Gives back the slots held and stops the holder's heartbeat (after the last page). */
  stop(): Promise<void> {
    this.stopped = true;
    for (const list of this.idle.values()) for (const { timer } of list) clearTimeout(timer);
    this.idle.clear();
    // Every idle slot is still among the held ones, which the slots give back.
    return this.slots.stop();
  }
}

/** A slot wait ended for want of NATS's answers: a NATS timeout, so an outage (outage.ts) to the worker. */
class NoSlotAnswerError extends NatsError {
  constructor(message: string) {
    super(message, ErrorCode.Timeout);
    this.name = 'NoSlotAnswerError';
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
