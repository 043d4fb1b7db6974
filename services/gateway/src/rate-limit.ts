// Requests per minute per API key (spec "Limits"), shared by every gateway replica through
// a JetStream KV bucket: one counter per key and minute window, incremented with
// compare-and-set so concurrent replicas never lose a count. The bucket's TTL removes old
// windows (bucket TTL is what nats-server 2.9 offers; per-message TTL is not). Within one
// gateway a key's requests are counted one after another (a keyed lock), so a burst costs
// one read and one write per request instead of a storm of failed compare-and-sets.
// Every authenticated API request is counted, reads included (spec "Limits"; docs/api.md
// "Rate limits"); waiting is made cheap instead: one long-poll (`?waitMs=`) per job.
import { StorageType, type JetStreamClient } from 'nats';
import { RateLimitedError } from '../../../shared/src/domain/errors.js';
import { KeyedLock } from '../../../shared/src/infra/keyed-lock.js';
import { casUpdate, KvContentionError } from '../../../shared/src/infra/nats/kv-cas.js';
import { openKv } from '../../../shared/src/infra/nats/replicas.js';
import { madeOnce } from '../../../shared/src/infra/made-once.js';

export const RATE_LIMIT_BUCKET = 'trawl-ratelimits';
const WINDOW_MS = 60_000;
const MAX_ATTEMPTS = 20;

export interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix time in seconds when the window resets. */
  resetAt: number;
}

export class RateLimiter {
  private readonly locks = new KeyedLock();

  constructor(private readonly js: JetStreamClient, private readonly now: () => number = Date.now) {}

  // File storage: a memory bucket would be gone after a nats-server restart, leaving this
  // handle pointing at nothing (see admission-ledger.ts).
  private readonly bucket = madeOnce(() => openKv(this.js, RATE_LIMIT_BUCKET, { ttl: 2 * WINDOW_MS, history: 1, storage: StorageType.File }));

  /** Counts one request; throws RATE_LIMITED (with the headers' numbers) when over the limit. */
  take(keyId: string, limit: number): Promise<RateDecision> {
    return this.locks.run(keyId, () => this.count(keyId, limit));
  }

  private async count(keyId: string, limit: number): Promise<RateDecision> {
    const window = Math.floor(this.now() / WINDOW_MS);
    const resetAt = ((window + 1) * WINDOW_MS) / 1000;
    const kv = await this.bucket();
    const key = `${keyId}.${window}`;
    try {
      return await casUpdate(kv, key, (text) => {
        const count = text ? Number(text) : 0;
        if (count >= limit) {
          throw new RateLimitedError(`rate limit of ${limit} requests per minute reached`, Math.max(1000, resetAt * 1000 - this.now()), limit, resetAt * 1000);
        }
        return { value: String(count + 1), result: { limit, remaining: limit - count - 1, resetAt } };
      }, { maxAttempts: MAX_ATTEMPTS });
    } catch (err) {
      if (!(err instanceof KvContentionError)) throw err;
    }
    throw new RateLimitedError('rate limiter contention; retry', 1000, limit, resetAt * 1000);
  }
}
