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
import type { JetStreamClient } from 'nats';
import { observe, openHostPaces, paceKey, parsePace as parse, retryAfterMs, spacingMs, start, type HostPace, type PaceLimits } from '../../../../shared/src/domain/host-pace.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import { casUpdate, kvText } from '../../../../shared/src/infra/nats/kv-cas.js';
import { isNatsOutage } from '../../../../shared/src/infra/nats/outage.js';
import { HostSlots } from './host-slots.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

/** The longest single sleep between asks (so an abort or a release is noticed soon). */
const MAX_SLEEP_MS = 1_000;
/** The pause before asking again when every slot of the host is held: doubles from the first to the most (jittered). */
const SLOT_RETRY_FIRST_MS = 20;
const SLOT_RETRY_MOST_MS = 250;
/** The pause before asking again through a NATS outage: doubles from the first to the most. */
const OUTAGE_RETRY_FIRST_MS = 250;
const OUTAGE_RETRY_MOST_MS = 2_000;

export interface HostGovernorOptions extends PaceLimits {
  /** This process's id in the slots it holds (INSTANCE_ID: a restart in its place takes its slots back at once). */
  holderId: string;
  /** A slot holder not heard from for this long is gone (default: slot-holders.ts). */
  holderTtlMs?: number;
  holderRenewMs?: number;
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
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
  }

  private readonly bucket = madeOnce(() => openHostPaces(this.js));

  /** Waits for a slot to load a page of `host`; resolves with its release. */
  async enter(host: string, signal: AbortSignal): Promise<() => Promise<void>> {
    const key = paceKey(host);
    let slotRetryMs = SLOT_RETRY_FIRST_MS;
    let outageRetryMs = OUTAGE_RETRY_FIRST_MS;
    for (;;) {
      signal.throwIfAborted();
      let slot;
      try {
        const kv = await this.bucket();
        const pace = parse(kvText(await kv.get(key)));
        const due = pace.nextAt - this.now();
        if (due > 0) { await sleep(Math.min(due, MAX_SLEEP_MS), signal); continue; }
        slot = await this.slots.take(host, this.opts.maxInFlight);
        if (!slot) {
          await sleep(slotRetryMs / 2 + Math.random() * slotRetryMs / 2, signal);
          slotRetryMs = Math.min(SLOT_RETRY_MOST_MS, slotRetryMs * 2);
          continue;
        }
        // Spaced starts only: a host with no spacing is not written to per page.
        const waitMs = spacingMs(pace, this.opts.intervalMs) === 0 ? 0 : await casUpdate(kv, key, (text) => {
          const got = start(parse(text), this.now(), this.opts.intervalMs);
          return got.granted ? { value: JSON.stringify(got.pace), result: 0 } : { result: got.waitMs };
        });
        if (waitMs === 0) {
          const held = slot;
          // Not awaited: the delete is retried on its own until it goes.
          return async () => { void this.slots.release(held); };
        }
        // Another replica started first and the spacing says wait: the slot is not held meanwhile.
        void this.slots.release(slot);
        slot = undefined;
        await sleep(Math.min(waitMs, MAX_SLEEP_MS), signal);
      } catch (err) {
        if (slot) void this.slots.release(slot);
        if (!isNatsOutage(err)) throw err;
        await sleep(outageRetryMs, signal);
        outageRetryMs = Math.min(OUTAGE_RETRY_MOST_MS, outageRetryMs * 2);
      }
    }
  }

  /** The host's answer to a page: 429/503 (with Retry-After) slow the fleet; a success recovers. */
  async report(host: string, statusCode: number, retryAfterHeader: string | undefined, startedAt = this.now()): Promise<void> {
    const kv = await this.bucket();
    await casUpdate(kv, paceKey(host), (text) => {
      const pace = parse(text);
      const next = observe(pace, this.now(), statusCode, retryAfterMs(retryAfterHeader, this.now()), startedAt);
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
    return this.slots.stop();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
