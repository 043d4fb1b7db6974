// Plans and their limits, from the spec's "Limits" table. One place, read by the gateway's
// rate limiter and by the docs.
export const PLANS = ['free', 'basic', 'pro', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  /** Jobs (scrapes, crawls, batches) of one key PENDING or PROCESSING at once. */
  concurrentJobs: number;
  /** Pages a key may have fetched per calendar month (UTC). The spec leaves the size open. */
  monthlyPages: number;
  /** Monitors a key may have at once (docs/api.md "Monitors"). */
  monitors: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { requestsPerMinute: 10, concurrentJobs: 2, monthlyPages: 500, monitors: 1 },
  basic: { requestsPerMinute: 30, concurrentJobs: 5, monthlyPages: 3_000, monitors: 5 },
  pro: { requestsPerMinute: 60, concurrentJobs: 10, monthlyPages: 100_000, monitors: 25 },
  team: { requestsPerMinute: 120, concurrentJobs: 20, monthlyPages: 500_000, monitors: 100 },
};
