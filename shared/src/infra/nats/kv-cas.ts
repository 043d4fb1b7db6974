// Compare-and-set over one JetStream KV key: read, decide on what was read, write only if
// nobody wrote in between (the write names the revision it read), else read and decide
// again. Every KV value that several replicas change at once (rate limits, admissions,
// sign-in throttles, host profiles) goes through here, so a decision is only ever taken on
// the value it is written over. Not on a replicated stream of nats-server up to 2.9.20: it
// checks an update's revision before proposing, not when applying (nats-io/nats-server#4320),
// so racing writers can all win there; the fleet's per-host bound, which must be exact,
// uses a stream's per-subject limit instead (services/fetcher/src/fleet/host-slots.ts).
import type { KV, KvEntry } from 'nats';
import { LRUCache } from 'lru-cache';

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
  /**
   * What this process last wrote (or read) for the key: the first round decides on it and
   * writes naming its revision, without reading the key first (one round trip instead of
   * two). `decide` must then be pure: it may run on the remembered value first.
   */
  known?: KnownRevisions;
}

/**
 * The text and revision this process last wrote or read per key. A compare-and-set that
 * starts from it stays one: the write names the remembered revision, so the server refuses
 * it when anybody wrote since (another replica, an expiry), and the round is done again
 * from a read. Only a decision to write is taken on a remembered value; a decision to
 * write nothing (or a refusal) is taken again on a fresh read, so a caller never gets an
 * answer decided on a value that may be stale. Worth it for a key mostly written by one
 * process (a fetcher's count of its host's pages); a key that several replicas write all
 * the time loses the first round often, one more round trip each time.
 */
export class KnownRevisions {
  private readonly entries: LRUCache<string, { text: string | null; revision: number }>;

  constructor(max = 1000) {
    this.entries = new LRUCache({ max });
  }

  get(key: string): { text: string | null; revision: number } | undefined {
    return this.entries.get(key);
  }

  /** The key's entry as read (or null: absent), for a later round to start from; a read answered after a newer write is not kept. */
  read(key: string, entry: KvEntry | null): void {
    if (entry && entry.revision > (this.entries.get(key)?.revision ?? 0)) this.entries.set(key, { text: kvText(entry), revision: entry.revision });
  }

  wrote(key: string, text: string, revision: number): void {
    this.entries.set(key, { text, revision });
  }

  forget(key: string): void {
    this.entries.delete(key);
  }
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
  const { known } = options;
  const remembered = known?.get(key);
  if (remembered) {
    // The round without a read: kept only when it writes (see KnownRevisions); a refusal
    // thrown on the remembered value is decided again on a read, like a decision to write nothing.
    const decision = await Promise.resolve().then(() => decide(remembered.text)).catch(() => undefined);
    if (decision?.value !== undefined) {
      try {
        known!.wrote(key, decision.value, await kv.update(key, decision.value, remembered.revision));
        return decision.result;
      } catch (err) {
        if (!isKvConflict(err)) throw err;
      }
    }
    known!.forget(key);
  }
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const entry = await kv.get(key);
    known?.read(key, entry);
    const decision = await decide(kvText(entry));
    if (decision.value === undefined) return decision.result;
    try {
      // A delete marker has a revision too: updating over it is the compare-and-set.
      const revision = entry ? await kv.update(key, decision.value, entry.revision) : await kv.create(key, decision.value);
      known?.wrote(key, decision.value, revision);
      return decision.result;
    } catch (err) {
      if (!isKvConflict(err)) throw err;
      known?.forget(key);
      if (backoffMaxMs > 0) await new Promise((r) => setTimeout(r, Math.random() * backoffMaxMs));
    }
  }
  throw new KvContentionError(key, maxAttempts);
}
