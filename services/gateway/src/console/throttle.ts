// Sign-in attempts, limited per account and per client address: after MAX failures in a
// row (none more than WINDOW after the one before) further attempts are refused for
// WINDOW, whatever the password, before it is even checked. Counters live in a JetStream
// KV bucket (memory, with the window as its TTL), so every gateway replica sees the same
// counts; they are a brake, not a record, and are not events.
import { createHash } from 'node:crypto';
import { StorageType, type JetStreamClient, type KV } from 'nats';

export const LOGIN_THROTTLE_BUCKET = 'trawl-console-logins';
export const LOGIN_WINDOW_MS = 15 * 60_000;
export const MAX_FAILURES_PER_ACCOUNT = 5;
export const MAX_FAILURES_PER_ADDRESS = 20;

const keyOf = (scope: 'acct' | 'addr', value: string): string => `${scope}_${createHash('sha256').update(value).digest('hex').slice(0, 40)}`;

export class LoginThrottle {
  private kv: Promise<KV> | undefined;

  constructor(private readonly js: JetStreamClient, readonly limits = { account: MAX_FAILURES_PER_ACCOUNT, address: MAX_FAILURES_PER_ADDRESS }) {}

  private bucket(): Promise<KV> {
    // File storage, as the rate limiter's: a memory bucket is gone after a nats-server restart
    // while this gateway keeps its handle, and every sign-in would then time out.
    this.kv ??= this.js.views.kv(LOGIN_THROTTLE_BUCKET, { ttl: LOGIN_WINDOW_MS, history: 1, storage: StorageType.File })
      .catch((err) => { this.kv = undefined; throw err; });
    return this.kv;
  }

  private async count(key: string): Promise<number> {
    const entry = await (await this.bucket()).get(key);
    return entry && entry.length ? Number(entry.string()) || 0 : 0;
  }

  /** Whether another attempt may be checked now. */
  async allowed(email: string, address: string): Promise<boolean> {
    const [account, addr] = await Promise.all([this.count(keyOf('acct', email)), this.count(keyOf('addr', address))]);
    return account < this.limits.account && addr < this.limits.address;
  }

  async failed(email: string, address: string): Promise<void> {
    const kv = await this.bucket();
    for (const key of [keyOf('acct', email), keyOf('addr', address)]) {
      // Compare-and-set, so two replicas counting at once never lose a failure.
      for (let attempt = 0; attempt < 10; attempt++) {
        const entry = await kv.get(key);
        const next = String((entry && entry.length ? Number(entry.string()) || 0 : 0) + 1);
        try {
          if (entry && entry.length) await kv.update(key, next, entry.revision);
          else await kv.create(key, next);
          break;
        } catch (err) {
          if (!/wrong last sequence|key exists/i.test(String((err as Error).message))) throw err;
        }
      }
    }
  }

  /** A successful sign-in clears the account's count (not the address's). */
  async succeeded(email: string): Promise<void> {
    await (await this.bucket()).purge(keyOf('acct', email));
  }
}
