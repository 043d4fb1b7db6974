// Plans and their limits, from the spec's "Limits" table. One place, read by the gateway's
// rate limiter and by the docs.
export const PLANS = ['free', 'basic', 'pro', 'team'] as const;
export type Plan = (typeof PLANS)[number];

export interface PlanLimits {
  requestsPerMinute: number;
  concurrentJobs: number;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { requestsPerMinute: 10, concurrentJobs: 2 },
  basic: { requestsPerMinute: 30, concurrentJobs: 5 },
  pro: { requestsPerMinute: 60, concurrentJobs: 10 },
  team: { requestsPerMinute: 120, concurrentJobs: 20 },
};
