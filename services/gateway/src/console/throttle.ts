// Sign-in attempts, limited per account and per client address, in a JetStream KV bucket
// every gateway replica shares (a brake, not a record: not events). An attempt is counted
// BEFORE its password is checked (see `reserve`): checking first and counting afterwards
// let every request in flight through. A count expires WINDOW after its last change.
import { createHash } from 'node:crypto';
import { StorageType, type JetStreamClient } from 'nats';
import { RateLimitedError } from '../../../../shared/src/domain/errors.js';
import { KeyedLock } from '../../../../shared/src/infra/keyed-lock.js';
import { casUpdate, KvContentionError } from '../../../../shared/src/infra/nats/kv-cas.js';
import { openKv } from '../../../../shared/src/infra/nats/replicas.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

export const LOGIN_THROTTLE_BUCKET = 'trawl-console-logins';
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

const keyOf = (scope: 'acct' | 'addr', value: string): string => `${scope}_${createHash('sha256').update(value).digest('hex').slice(0, 40)}`;
const countOf = (text: string | null): number => Math.max(0, Number(text ?? 0) || 0);

/** One attempt's slots, held while its password is checked. */
export interface LoginReservation {
  /** The password was right: the attempt does not count. */
  refund(): Promise<void>;
}

export class LoginThrottle {
  /** Within one gateway, one key's compare-and-sets run one after another: only replicas race. */
  private readonly locks = new KeyedLock();

  constructor(private readonly js: JetStreamClient, readonly limits = { account: MAX_FAILURES_PER_ACCOUNT, address: MAX_FAILURES_PER_ADDRESS }) {}

  // File storage, as the rate limiter's: a memory bucket is gone after a nats-server restart
  // while this gateway keeps its handle, and every sign-in would then time out.
  private readonly bucket = madeOnce(() => openKv(this.js, LOGIN_THROTTLE_BUCKET, { ttl: LOGIN_WINDOW_MS, history: 1, storage: StorageType.File }));

  /** Takes one slot under `limit`; false when the count is full. */
  private async take(key: string, limit: number): Promise<boolean> {
    const kv = await this.bucket();
    return this.locks.run(key, () => casUpdate(kv, key, (text) => {
      const n = countOf(text);
      return n >= limit ? { result: false } : { value: String(n + 1), result: true };
    }));
  }

  private async give(key: string): Promise<void> {
    const kv = await this.bucket();
    await this.locks.run(key, () => casUpdate(kv, key, (text) => {
      const n = countOf(text);
      return n === 0 ? { result: undefined } : { value: String(n - 1), result: undefined };
    }));
  }

  // Each `reserve` takes one slot of the account's count and one of the address's with
  // compare-and-set (shared/src/infra/nats/kv-cas.ts); a right password gives them back
  // (`refund`), a wrong one keeps them. So however many requests arrive at once, on however
  // many replicas, at most MAX_FAILURES_PER_ACCOUNT / MAX_FAILURES_PER_ADDRESS passwords are
  // ever checked per window (each write renews the count's TTL: the window slides).
  /**
   * Counts one attempt of this account from this address, before its password is checked.
   * Throws RATE_LIMITED when either limit is reached (nothing is then checked or counted).
   */
  async reserve(email: string, address: string): Promise<LoginReservation> {
    const account = keyOf('acct', email);
    const addr = keyOf('addr', address);
    const refused = () => new RateLimitedError('too many failed sign-ins; wait 15 minutes and try again', LOGIN_WINDOW_MS);
    try {
      if (!(await this.take(account, this.limits.account))) throw refused();
      let took = false;
      try {
        took = await this.take(addr, this.limits.address);
      } finally {
        if (!took) await this.give(account);
      }
      if (!took) throw refused();
    } catch (err) {
      // Refusing is the safe answer when the replicas keep colliding on one count.
      if (err instanceof KvContentionError) throw new RateLimitedError('too many sign-ins at this moment; try again', 1000);
      throw err;
    }
    let refunded = false;
    return {
      refund: async () => {
        if (refunded) return;
        refunded = true;
        await Promise.all([this.give(account), this.give(addr)]);
      },
    };
  }

  /** The counts now (tests, diagnostics). */
  async counts(email: string, address: string): Promise<{ account: number; address: number }> {
    const kv = await this.bucket();
    const [a, b] = await Promise.all([kv.get(keyOf('acct', email)), kv.get(keyOf('addr', address))]);
    return { account: countOf(a && a.length ? a.string() : null), address: countOf(b && b.length ? b.string() : null) };
  }
}
