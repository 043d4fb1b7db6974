// The plan limits checked before a job is accepted (spec "Limits"; decisions in
// docs/api.md): how many jobs of a key may run at once, and how many pages it may have
// fetched this month. Both are read from the key-usage read model, so they hold across
// gateway replicas; being a projection, they may lag by the few jobs accepted in the last
// milliseconds (a soft limit, never off by more than the requests in flight).
import { RateLimitedError } from '../../../shared/src/errors.js';
import type { Clock } from '../../../shared/src/ids.js';
import { PLAN_LIMITS } from '../../../shared/src/plans.js';
import type { ReadModelStore } from '../../../shared/src/store/index.js';
import type { Caller } from './plugins/auth.js';

/** A job not seen finishing after this long no longer holds a concurrency slot. */
const STALE_JOB_MS = 6 * 3_600_000;

export interface LimitSwitches {
  concurrency: boolean;
  quota: boolean;
}

export interface Admission {
  /** Pages the key may still use this month (Infinity when quotas are off). */
  remainingPages: number;
}

function nextMonthStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

export class PlanLimiter {
  constructor(private readonly store: ReadModelStore, private readonly clock: Clock, private readonly switches: LimitSwitches) {}

  /**
   * Throws RATE_LIMITED when the key already runs its plan's number of jobs (for a `job`),
   * QUOTA_EXCEEDED when `pages` more would pass its monthly quota.
   */
  async admit(caller: Caller, need: { pages: number; job: boolean }): Promise<Admission> {
    const { concurrentJobs, monthlyPages } = PLAN_LIMITS[caller.plan];
    if (!this.switches.concurrency && !this.switches.quota) return { remainingPages: Infinity };
    const usage = await this.store.getKeyUsage(caller.keyId);
    const now = this.clock();
    if (this.switches.concurrency && need.job && usage) {
      const since = new Date(now.getTime() - STALE_JOB_MS).toISOString();
      const running = Object.values(usage.activeJobs).filter((at) => at >= since).length;
      if (running >= concurrentJobs) {
        throw new RateLimitedError(`${running} jobs of this key are still running; the ${caller.plan} plan allows ${concurrentJobs} at once`, 1000, concurrentJobs, now.getTime() + 1000);
      }
    }
    if (!this.switches.quota) return { remainingPages: Infinity };
    const used = usage && usage.month === now.toISOString().slice(0, 7) ? usage.pages : 0;
    const remainingPages = monthlyPages - used;
    if (need.pages > 0 && remainingPages < need.pages) {
      const reset = nextMonthStart(now);
      throw new RateLimitedError(
        `the monthly quota of ${monthlyPages} pages of the ${caller.plan} plan is used up (${used} used); it renews ${reset.toISOString()}`,
        reset.getTime() - now.getTime(), monthlyPages, reset.getTime(), 'QUOTA_EXCEEDED',
      );
    }
    return { remainingPages };
  }
}

/** What services need of the limiter; `NO_LIMITS` admits everything (tests, embedded tools). */
export type Admitter = Pick<PlanLimiter, 'admit'>;
export const NO_LIMITS: Admitter = { admit: async () => ({ remainingPages: Infinity }) };
