// GET /key: who the caller is to the server (key id, plan, limits, what is left of them).
import { Type, type Static } from '@sinclair/typebox';

const Count = Type.Integer({ minimum: 0 });

export const KeyStandingView = Type.Object({
  keyId: Type.String({ description: "The key's id (never the key itself)" }),
  plan: Type.String({ description: 'free, basic, pro or team' }),
  limits: Type.Object({
    requestsPerMinute: Count,
    concurrentJobs: Count,
    monthlyPages: Count,
  }, { description: "The plan's limits, per key" }),
  enforced: Type.Object({
    concurrency: Type.Boolean({ description: 'Requests-per-minute and concurrent-job limits are on (RATE_LIMITS)' }),
    quota: Type.Boolean({ description: 'The monthly quota is on (QUOTAS)' }),
  }),
  month: Type.String({ description: 'The quota month (UTC), YYYY-MM' }),
  pagesUsed: Type.Integer({ minimum: 0, description: 'Pages counted this month' }),
  pagesHeld: Type.Integer({ minimum: 0, description: 'Pages reserved by running crawls and batches' }),
  pagesLeft: Type.Integer({ minimum: 0, description: 'monthlyPages - pagesUsed - pagesHeld' }),
  runningJobs: Type.Integer({ minimum: 0, description: 'Jobs of the key PENDING or PROCESSING' }),
  quotaRenewsAt: Type.String({ format: 'date-time' }),
});
export type KeyStandingView = Static<typeof KeyStandingView>;
