// Long-polls (`?waitMs=N` on job reads, `waitMs` on POST /scrape): answered when the job is
// final or after N ms. A held wait sleeps until the projector's notice says the job became
// final (docs/architecture.md "Long-polls"), then reads once; the notice is at most once, so
// a wait also reads every `fallbackReadMs`, at its deadline and after a reconnect: a lost
// notice costs at most that interval, never the whole wait. Bounded per key and per gateway
// (LONG_POLL_MAX_WAITS_PER_*, else 429); on shutdown every wait is answered with the state.
import { RateLimitedError } from '../../../shared/src/domain/errors.js';
import { isFinalStatus, MAX_WAIT_MS } from '../../../shared/src/api/index.js';
import type { JobStatusChange } from '../../../shared/src/infra/projection-notice.js';
import type { AggregateKind } from '../../../shared/src/infra/subjects.js';

/** The longest wait a request may ask for (`waitMs` 0 to this): the contract's. */
export { MAX_WAIT_MS };

export interface WaitBounds {
  maxWaitsPerKey: number;
  maxWaitsPerGateway: number;
  /** A held wait reads its job this often without a notice (LONG_POLL_FALLBACK_READ_MS). */
  fallbackReadMs: number;
}

export interface WaitRequest<D> {
  keyId: string;
  kind: AggregateKind;
  id: string;
  waitMs: number;
  /** Reads the job (and checks its owner: throws NotFound). Called once, plus once per wake. */
  load(): Promise<D>;
  /** Ends the wait early when the client has gone. */
  signal?: AbortSignal;
  /**
   * Past a bound: `refuse` (429, the default for GETs) or `answer` at once without waiting
   * (POST /scrape, whose job is already created: it must not look refused).
   */
  whenBusy?: 'refuse' | 'answer';
}

type Wake = 'notice' | 'poll' | 'deadline' | 'shutdown';

export const isFinal = (doc: { status?: string }): boolean => isFinalStatus(doc.status);

export class JobWaits {
  /** Per job (`kind.id`): how to wake the waits held on it. */
  private readonly watchers = new Map<string, Set<(why: Wake) => void>>();
  private readonly perKey = new Map<string, number>();
  private held = 0;
  private closed = false;

  constructor(private readonly bounds: WaitBounds) {}

  /** Waits held now (tests, metrics). */
  get size(): number {
    return this.held;
  }

  /** A projection notice: wakes the waits on a job whose status became final. */
  noticed(change: JobStatusChange): void {
    if (!isFinalStatus(change.status)) return;
    for (const wake of this.watchers.get(`${change.kind}.${change.id}`) ?? []) wake('notice');
  }

  /** After a reconnect notices may have been lost: every wait reads its job once more. */
  recheckAll(): void {
    for (const set of this.watchers.values()) for (const wake of set) wake('notice');
  }

  /** Shutdown: every held wait answers now with its job's current state; new ones do not wait. */
  close(): void {
    this.closed = true;
    for (const set of this.watchers.values()) for (const wake of set) wake('shutdown');
  }

  /** The job once it is final, or its state when the wait ends (deadline, shutdown, client gone). */
  async wait<D extends { status?: string }>(req: WaitRequest<D>): Promise<D> {
    if (req.waitMs <= 0 || this.closed) return req.load();
    const job = `${req.kind}.${req.id}`;
    let woken: Wake | undefined;
    let wake: (why: Wake) => void = (why) => { woken ??= why; };
    // Watch before the first read, so a job that finishes while it is read is not missed.
    const watcher = (why: Wake): void => wake(why);
    const set = this.watchers.get(job) ?? new Set();
    this.watchers.set(job, set.add(watcher));
    try {
      let doc = await req.load();
      if (isFinal(doc)) return doc;
      try {
        this.reserve(req.keyId);
      } catch (err) {
        if (req.whenBusy === 'answer') return doc;
        throw err;
      }
      try {
        const deadline = Date.now() + req.waitMs;
        for (;;) {
          const left = deadline - Date.now();
          const nap = Math.min(left, this.bounds.fallbackReadMs);
          const why = woken ?? await this.sleep(nap, nap < left ? 'poll' : 'deadline', req.signal, (w) => { wake = w; });
          woken = undefined;
          wake = (w) => { woken ??= w; };
          doc = await req.load();
          const goesOn = why === 'notice' || why === 'poll';
          if (!goesOn || isFinal(doc) || this.closed || req.signal?.aborted || Date.now() >= deadline) return doc;
        }
      } finally {
        this.release(req.keyId);
      }
    } finally {
      set.delete(watcher);
      if (set.size === 0 && this.watchers.get(job) === set) this.watchers.delete(job);
    }
  }

  /** Sleeps `ms` (then wakes as `timer`), or until a wake, the client's abort or shutdown. */
  private sleep(ms: number, timer: 'poll' | 'deadline', signal: AbortSignal | undefined, onWake: (wake: (why: Wake) => void) => void): Promise<Wake> {
    return new Promise((resolve) => {
      if (this.closed) return resolve('shutdown');
      const done = (why: Wake): void => {
        clearTimeout(timeout);
        signal?.removeEventListener('abort', aborted);
        resolve(why);
      };
      const aborted = (): void => done('deadline');
      const timeout = setTimeout(() => done(timer), Math.max(0, ms));
      signal?.addEventListener('abort', aborted, { once: true });
      if (signal?.aborted) done('deadline');
      onWake(done);
    });
  }

  private reserve(keyId: string): void {
    const mine = this.perKey.get(keyId) ?? 0;
    if (mine >= this.bounds.maxWaitsPerKey) {
      throw new RateLimitedError(`this API key already holds ${mine} waiting requests (waitMs), the most one key may hold at once; retry when one has answered`, 1000);
    }
    if (this.held >= this.bounds.maxWaitsPerGateway) {
      throw new RateLimitedError(`this gateway already holds ${this.held} waiting requests (waitMs); retry in a moment, or ask without waitMs`, 1000);
    }
    this.perKey.set(keyId, mine + 1);
    this.held++;
  }

  private release(keyId: string): void {
    const mine = (this.perKey.get(keyId) ?? 1) - 1;
    if (mine > 0) this.perKey.set(keyId, mine);
    else this.perKey.delete(keyId);
    this.held--;
  }
}
