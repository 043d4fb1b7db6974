// Politeness for the whole fleet: every fetcher replica asks here before a bulk page
// (crawl, batch) of a host loads, and reports the host's answer after. The pace of each
// host (host-pace.ts) lives in one KV entry changed only by compare-and-set, so ten
// fetcher pods together keep the host's bound, and a 429 or 503 seen by one slows all.
// A replica that dies with a page loading holds its place until the place's lease runs
// out. The KV entry is operational state, like the rate-limit counters: it is not a
// record of what happened (that is page_fetched), and an expired entry starts fresh.
import type { JetStreamClient, KV } from 'nats';
import { randomUUID } from 'node:crypto';
import { acquire, observe, openHostPaces, paceKey, parsePace as parse, release, retryAfterMs, type HostPace, type PaceLimits } from '../../../../shared/src/domain/host-pace.js';
import { casUpdate } from '../../../../shared/src/infra/nats/kv-cas.js';

/** The longest single sleep between asks (so an abort or a release is noticed soon). */
const MAX_SLEEP_MS = 1_000;

export interface HostGovernorOptions extends PaceLimits {
  /** How long a place is held if its holder never gives it back (a crash). */
  leaseMs: number;
  now?: () => number;
}

export class HostGovernor {
  private kv: Promise<KV> | undefined;
  private readonly now: () => number;

  constructor(private readonly js: JetStreamClient, private readonly opts: HostGovernorOptions) {
    this.now = opts.now ?? Date.now;
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
    for (;;) {
      signal.throwIfAborted();
      const waitMs = await casUpdate(kv, key, (text) => {
        const got = acquire(parse(text), this.now(), token, this.opts.leaseMs, this.opts);
        return got.granted ? { value: JSON.stringify(got.pace), result: 0 } : { result: got.waitMs };
      });
      if (waitMs === 0) break;
      await sleep(Math.min(waitMs, MAX_SLEEP_MS), signal);
    }
    return async () => {
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
