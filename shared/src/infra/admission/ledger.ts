// Admissions not yet visible in the key-usage read model, per key, written with
// compare-and-set: the plan limits are checked against that projection, which trails the
// log by a few milliseconds, so two requests of one key arriving together would both see
// the last free slot without it.
import { StorageType, type JetStreamClient } from 'nats';
import { RateLimitedError } from '../../domain/errors.js';
import { KeyedLock } from '../keyed-lock.js';
import { casUpdate, KvContentionError, kvText } from '../nats/kv-cas.js';
import { openKv } from '../nats/replicas.js';
import { madeOnce } from '../made-once.js';

export const ADMISSION_BUCKET = 'trawl-admissions';

/** Long enough for an append plus the projector's lag; short enough that a crash heals. */
export const RESERVATION_TTL_MS = 60_000;
const MAX_ATTEMPTS = 25;

export interface Reservation {
  /** The job (or map request) id being admitted. */
  id: string;
  /** Epoch milliseconds when it was written. */
  at: number;
  /** Quota pages it takes. */
  pages: number;
  /** Whether it holds one of the plan's concurrent-job slots. */
  job: boolean;
}

export interface LedgerOptions {
  now?: () => number;
  reservationTtlMs?: number;
}


// Every admission is first written here, per key, with compare-and-set: a replica that
// decides on a stale list loses the write, reads again and decides again. The entry is
// released once the projection shows the job (the POST waits for that anyway), and an
// entry left by a crashed gateway stops counting after `reservationTtlMs`.
//
// Within one gateway, admissions of one key also wait for each other (a keyed lock), so a
// burst of one key's requests costs one read and one write each instead of a storm of
// failed compare-and-sets; only replicas contend with each other.
//
// This bucket is not a source of truth: nothing is derived from it. It is in file storage
// all the same: a memory bucket is gone when nats-server restarts, and the handle opened
// here would then point at nothing (every request timing out until the gateway restarts).
export class AdmissionLedger {
  private readonly now: () => number;
  private readonly ttlMs: number;
  private readonly locks = new KeyedLock();

  constructor(private readonly js: JetStreamClient, options: LedgerOptions = {}) {
    this.now = options.now ?? Date.now;
    this.ttlMs = options.reservationTtlMs ?? RESERVATION_TTL_MS;
  }

  private readonly bucket = madeOnce(() => openKv(this.js, ADMISSION_BUCKET, { ttl: 10 * this.ttlMs, history: 1, storage: StorageType.File }));

  private live(text: string | null): Reservation[] {
    if (text === null) return [];
    const since = this.now() - this.ttlMs;
    return (JSON.parse(text) as Reservation[]).filter((r) => r.at >= since);
  }

  /**
   * Calls `decide` with the key's pending reservations; it throws to refuse, or returns the
   * reservation to add. Retried from a fresh read whenever another request wrote first, so
   * every decision was taken on the list it is written over.
   */
  reserve(keyId: string, decide: (pending: Reservation[]) => Promise<Omit<Reservation, 'at'>>): Promise<Reservation> {
    return this.locks.run(keyId, () => this.reserveNow(keyId, decide));
  }

  private async reserveNow(keyId: string, decide: (pending: Reservation[]) => Promise<Omit<Reservation, 'at'>>): Promise<Reservation> {
    const kv = await this.bucket();
    try {
      return await casUpdate(kv, keyId, async (text) => {
        const pending = this.live(text);
        const reservation: Reservation = { ...(await decide(pending)), at: this.now() };
        return { value: JSON.stringify([...pending.filter((r) => r.id !== reservation.id), reservation]), result: reservation };
      }, { maxAttempts: MAX_ATTEMPTS });
    } catch (err) {
      if (!(err instanceof KvContentionError)) throw err;
      throw new RateLimitedError('too many requests of this key at the same moment; retry', 1000);
    }
  }

  /** Drops a reservation once the read model counts it. */
  release(keyId: string, id: string): Promise<void> {
    return this.locks.run(keyId, () => this.releaseNow(keyId, id));
  }

  private async releaseNow(keyId: string, id: string): Promise<void> {
    const kv = await this.bucket();
    try {
      await casUpdate(kv, keyId, (text) => {
        if (text === null) return { result: undefined };
        const stored = (JSON.parse(text) as Reservation[]).length;
        const rest = this.live(text).filter((r) => r.id !== id);
        // Not there and nothing expired: nothing to write.
        return rest.length === stored ? { result: undefined } : { value: JSON.stringify(rest), result: undefined };
      }, { maxAttempts: MAX_ATTEMPTS });
    } catch (err) {
      // Still contended: the reservation simply expires.
      if (!(err instanceof KvContentionError)) throw err;
    }
  }

  /** The key's reservations still counting (tests, diagnostics). */
  async pending(keyId: string): Promise<Reservation[]> {
    return this.live(kvText(await (await this.bucket()).get(keyId)));
  }
}
