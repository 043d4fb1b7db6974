// Politeness for the whole fleet: every fetcher replica asks here before a bulk page
// (crawl, batch) of a host loads, and reports the host's answer after. The pages of a host
// loading at once are bounded by its slots (host-slots.ts: exact on a replicated stream,
// which a compare-and-set is not on nats-server 2.9); the pace of each host (host-pace.ts:
// spacing, Crawl-delay, back-off after 429/503) lives in one KV entry changed by
// compare-and-set, so a 429 or 503 seen by one replica slows all. A replica that dies with
// a page loading holds its slot until the slot's lease runs out. Slots and pace are
// operational state, like the rate-limit counters: not a record of what happened (that is
// page_fetched), and an expired entry starts fresh.
import type { JetStreamClient, KV } from 'nats';
import { randomUUID } from 'node:crypto';
import { acquire, observe, openHostPaces, paceKey, parsePace as parse, release, retryAfterMs, type HostPace, type PaceLimits } from '../../../../shared/src/domain/host-pace.js';
import { casUpdate, kvText } from '../../../../shared/src/infra/nats/kv-cas.js';
import { HostSlots } from './host-slots.js';

/** The longest single sleep between asks (so an abort or a release is noticed soon). */
const MAX_SLEEP_MS = 1_000;
/** The pause before asking again when every slot of the host is held: doubles from the first to the most (jittered). */
const SLOT_RETRY_FIRST_MS = 20;
const SLOT_RETRY_MOST_MS = 250;

export interface HostGovernorOptions extends PaceLimits {
  /** How long a place is held if its holder never gives it back (a crash). */
  leaseMs: number;
  now?: () => number;
}

export class HostGovernor {
  private kv: Promise<KV> | undefined;
  private readonly now: () => number;
  private readonly slots: HostSlots;

  constructor(private readonly js: JetStreamClient, private readonly opts: HostGovernorOptions) {
    this.now = opts.now ?? Date.now;
    this.slots = new HostSlots(js, this.now);
  }

  private bucket(): Promise<KV> {
    this.kv ??= openHostPaces(this.js).catch((err) => { this.kv = undefined; throw err; });
    return this.kv;
  }

  /** Waits for a place to load a page of `host`; resolves with its release. */
  async enter(host: string, signal: AbortSignal): Promise<() => Promise<void>> {
    const kv = await this.bucket();
    const token = randomUUID();
    const key = paceKey(host);
    // The slots bound the pages at once; the pace's own count is not the bound (unbounded here).
    const paceLimits = { ...this.opts, maxInFlight: Number.MAX_SAFE_INTEGER };
    let slot;
    let slotRetryMs = SLOT_RETRY_FIRST_MS;
    for (;;) {
      signal.throwIfAborted();
      const due = parse(kvText(await kv.get(key))).nextAt - this.now();
      if (due > 0) { await sleep(Math.min(due, MAX_SLEEP_MS), signal); continue; }
      slot = await this.slots.take(host, this.opts.maxInFlight, this.opts.leaseMs);
      if (!slot) {
        await sleep(slotRetryMs / 2 + Math.random() * slotRetryMs / 2, signal);
        slotRetryMs = Math.min(SLOT_RETRY_MOST_MS, slotRetryMs * 2);
        continue;
      }
      const waitMs = await casUpdate(kv, key, (text) => {
        const got = acquire(parse(text), this.now(), token, this.opts.leaseMs, paceLimits);
        return got.granted ? { value: JSON.stringify(got.pace), result: 0 } : { result: got.waitMs };
      }).catch(async (err) => { await this.slots.free(slot!).catch(() => undefined); throw err; });
      if (waitMs === 0) break;
      // Another replica started first and the spacing says wait: the slot is not held meanwhile.
      await this.slots.free(slot);
      await sleep(Math.min(waitMs, MAX_SLEEP_MS), signal);
    }
    const held = slot;
    return async () => {
      // Through an election in the background (the page is done); failing that, the lease ends.
      void this.slots.freeSurely(held).catch(() => undefined);
      await casUpdate(kv, key, (text) => {
        const pace = parse(text);
        const next = release(pace, token);
        return next === pace ? { result: undefined } : { value: JSON.stringify(next), result: undefined };
      }).catch(() => undefined); // the lease expires on its own
    };
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
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { signal.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = (): void => { clearTimeout(timer); reject(signal.reason); };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
