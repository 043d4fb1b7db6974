// The plan limits checked before a job is accepted (spec "Limits"; decisions in
// docs/api.md): how many jobs of a key may run at once, and how many pages it may have
// fetched this month. Both are read from the key-usage read model, so they hold across
// gateway replicas (and for the frontier's monitor runs). The projection trails the log by milliseconds, so what it does not
// show yet is held in the admission ledger (a per-key list written with compare-and-set):
// requests arriving together are decided one after the other, and never both take the
// last slot or the last page.
import { RateLimitedError } from '../../domain/errors.js';
import type { Clock } from '../ids.js';
import { PLAN_LIMITS, type Plan } from '../../domain/plans.js';
import { committedPages, type KeyUsageDoc, type ReadModelStore } from '../store/index.js';
import type { AdmissionLedger, Reservation } from './ledger.js';

/** Who is admitted: a key and its plan (the gateway's caller, or a monitor's key). */
export interface Caller {
  keyId: string;
  plan: Plan;
}

/** A job not seen finishing after this long no longer holds a concurrency slot. */
const STALE_JOB_MS = 6 * 3_600_000;

export interface LimitSwitches {
  concurrency: boolean;
  quota: boolean;
}

export interface Need {
  /** The id of the job (or map request) being admitted. */
  id: string;
  /** Quota pages it needs at least. */
  pages: number;
  /** Quota pages it would like (a crawl's limit); granted as far as the quota allows. */
  upToPages?: number;
  /** Whether it takes one of the plan's concurrent-job slots. */
  job: boolean;
}

/** A key's plan, limits and usage now (`GET /api/v1/key`). */
export interface KeyStanding {
  keyId: string;
  plan: Caller['plan'];
  limits: { requestsPerMinute: number; concurrentJobs: number; monthlyPages: number };
  /** Which limits this server enforces (RATE_LIMITS / QUOTAS). */
  enforced: LimitSwitches;
  /** The quota month (UTC), `YYYY-MM`. */
  month: string;
  pagesUsed: number;
  /** Pages reserved by running crawls and batches. */
  pagesHeld: number;
  pagesLeft: number;
  runningJobs: number;
  quotaRenewsAt: string;
}

export interface Admission {
  /** Pages granted: `pages`, or for `upToPages` what is left of the quota up to it. */
  grantedPages: number;
  /**
   * Records the admitted work: `append` appends its event and returns the sequence,
   * `projected` resolves true once the read model has applied it. The reservation is
   * freed when the read model counts the work, or at once when nothing was appended; if
   * the projection is late it is left to expire.
   */
  record(append: () => Promise<number>, projected: (seq: number) => Promise<boolean>): Promise<number>;
}

function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** Admits everything and records without a reservation (tests, embedded tools, limits off). */
function unlimited(need: Need): Admission {
  return {
    grantedPages: need.upToPages ?? need.pages,
    async record(append, projected) {
      const seq = await append();
      await projected(seq);
      return seq;
    },
  };
}

export class PlanLimiter {
  constructor(
    private readonly store: ReadModelStore,
    private readonly ledger: AdmissionLedger,
    private readonly clock: Clock,
    private readonly switches: LimitSwitches,
  ) {}

  /**
   * Throws RATE_LIMITED when the key already runs its plan's number of jobs (for a `job`),
   * QUOTA_EXCEEDED when `pages` more would pass its monthly quota.
   */
  async admit(caller: Caller, need: Need): Promise<Admission> {
    if (!this.switches.concurrency && !this.switches.quota) return unlimited(need);
    const reservation = await this.ledger.reserve(caller.keyId, async (pending) => {
      const usage = await this.store.keyUsage.get(caller.keyId);
      return { id: need.id, job: need.job, pages: this.check(caller, need, usage, pending) };
    });
    const release = (): Promise<void> => this.ledger.release(caller.keyId, need.id);
    return {
      grantedPages: need.upToPages === undefined ? need.pages : reservation.pages,
      async record(append, projected) {
        let seq: number;
        try {
          seq = await append();
        } catch (err) {
          await release();
          throw err;
        }
        if (await projected(seq)) await release();
        return seq;
      },
    };
  }

  /**
   * The key's plan, limits and what is left of them now, for `GET /api/v1/key`: the same
   * figures admission decides with (read model plus reservations it does not show yet).
   */
  async standing(caller: Caller): Promise<KeyStanding> {
    const limits = PLAN_LIMITS[caller.plan];
    const [usage, pending] = await Promise.all([this.store.keyUsage.get(caller.keyId), this.ledger.pending(caller.keyId)]);
    const now = this.clock();
    const month = now.toISOString().slice(0, 7);
    const projected = (r: Reservation): boolean => !!usage && (r.id in usage.activeJobs || r.id in (usage.committedPages ?? {}));
    const unseen = pending.filter((r) => !projected(r));
    const since = new Date(now.getTime() - STALE_JOB_MS).toISOString();
    const runningJobs = Object.values(usage?.activeJobs ?? {}).filter((at) => at >= since).length + unseen.filter((r) => r.job).length;
    const pagesUsed = usage && usage.month === month ? usage.pages : 0;
    const pagesHeld = (usage ? committedPages(usage) : 0) + unseen.reduce((sum, r) => sum + r.pages, 0);
    return {
      keyId: caller.keyId,
      plan: caller.plan,
      limits: { ...limits },
      enforced: { ...this.switches },
      month,
      pagesUsed,
      pagesHeld,
      pagesLeft: Math.max(0, limits.monthlyPages - pagesUsed - pagesHeld),
      runningJobs,
      quotaRenewsAt: nextMonthStart(now).toISOString(),
    };
  }

  /** The pages to reserve for `need`, or throws when a limit refuses it. */
  private check(caller: Caller, need: Need, usage: KeyUsageDoc | null, pending: Reservation[]): number {
    const { concurrentJobs, monthlyPages } = PLAN_LIMITS[caller.plan];
    const now = this.clock();
    // Reservations the projection already shows are counted there, not twice.
    const projected = (r: Reservation): boolean => !!usage && (r.id in usage.activeJobs || r.id in (usage.committedPages ?? {}));
    const unseen = pending.filter((r) => r.id !== need.id && !projected(r));
    if (this.switches.concurrency && need.job) {
      const since = new Date(now.getTime() - STALE_JOB_MS).toISOString();
      const running = Object.values(usage?.activeJobs ?? {}).filter((at) => at >= since).length + unseen.filter((r) => r.job).length;
      if (running >= concurrentJobs) {
        throw new RateLimitedError(`${running} jobs of this key are still running; the ${caller.plan} plan allows ${concurrentJobs} at once`, 1000, concurrentJobs, now.getTime() + 1000);
      }
    }
    const wanted = need.upToPages ?? need.pages;
    if (!this.switches.quota) return wanted;
    const month = now.toISOString().slice(0, 7);
    const used = usage && usage.month === month ? usage.pages : 0;
    const spokenFor = (usage ? committedPages(usage) : 0) + unseen.reduce((sum, r) => sum + r.pages, 0);
    const remaining = Math.max(0, monthlyPages - used - spokenFor);
    if (need.pages > 0 && remaining < need.pages) {
      const reset = nextMonthStart(now);
      const busy = spokenFor > 0 ? `, ${spokenFor} more held by running jobs` : '';
      throw new RateLimitedError(
        `the monthly quota of ${monthlyPages} pages of the ${caller.plan} plan is used up (${used} used${busy}); it renews ${reset.toISOString()}`,
        reset.getTime() - now.getTime(), monthlyPages, reset.getTime(), 'QUOTA_EXCEEDED',
      );
    }
    return Math.min(wanted, remaining);
  }
}

/** What services need of the limiter; `NO_LIMITS` admits everything (tests, embedded tools). */
export type Admitter = Pick<PlanLimiter, 'admit'>;
export const NO_LIMITS: Admitter = { admit: async (_caller, need) => unlimited(need) };
