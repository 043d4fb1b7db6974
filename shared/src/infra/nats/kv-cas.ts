// Compare-and-set over one JetStream KV key: read, decide on what was read, write only if
// nobody wrote in between (the write names the revision it read), else read and decide
// again. Every KV value that several replicas change at once (rate limits, admissions,
// sign-in throttles, host profiles) goes through here, so a decision is only ever taken on
// the value it is written over. Not on a replicated stream of nats-server up to 2.9.20: it
// checks an update's revision before proposing, not when applying (nats-io/nats-server#4320),
// so racing writers can all win there; the fleet's per-host bound, which must be exact,
// uses a stream's per-subject limit instead (services/fetcher/src/fleet/host-slots.ts).
import type { KV, KvEntry } from 'nats';

/** Another writer won the race (update: wrong last sequence; create: the key exists). */
export const isKvConflict = (err: unknown): boolean => /wrong last sequence|key exists/i.test(String((err as Error)?.message));

/** Still losing the race after every attempt: the caller refuses rather than guess. */
export class KvContentionError extends Error {
  constructor(readonly key: string, readonly attempts: number) {
    super(`KV key ${key} still contended after ${attempts} compare-and-set attempts`);
    this.name = 'KvContentionError';
  }
}

export interface CasDecision<T> {
  /** The value to write; absent: write nothing (a refusal, or nothing to change). */
  value?: string;
  /** What the caller gets back once the decision holds. */
  result: T;
}

export interface CasOptions {
  /** How many read-decide-write rounds before KvContentionError. */
  maxAttempts?: number;
  /** Upper bound of the random pause after a lost round (spreads replicas that collide). */
  backoffMaxMs?: number;
}

const DEFAULT_MAX_ATTEMPTS = 25;
const DEFAULT_BACKOFF_MAX_MS = 5;

/** The entry's text, or null for an absent, deleted or purged key. */
export const kvText = (entry: KvEntry | null): string | null => (entry && entry.length > 0 ? entry.string() : null);

/**
 * Applies `decide` to the key's current text (null when absent) with compare-and-set, and
 * returns its result once the write (if any) went through on exactly the value decided on.
 * `decide` may throw to refuse; that error reaches the caller unchanged.
 */
export async function casUpdate<T>(
  kv: KV, key: string, decide: (current: string | null) => CasDecision<T> | Promise<CasDecision<T>>, options: CasOptions = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const backoffMaxMs = options.backoffMaxMs ?? DEFAULT_BACKOFF_MAX_MS;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const entry = await kv.get(key);
    const decision = await decide(kvText(entry));
    if (decision.value === undefined) return decision.result;
    try {
      // A delete marker has a revision too: updating over it is the compare-and-set.
      if (entry) await kv.update(key, decision.value, entry.revision);
      else await kv.create(key, decision.value);
      return decision.result;
    } catch (err) {
      if (!isKvConflict(err)) throw err;
      if (backoffMaxMs > 0) await new Promise((r) => setTimeout(r, Math.random() * backoffMaxMs));
    }
  }
  throw new KvContentionError(key, maxAttempts);
}
