// `GET /api/v1/key`: who the caller is to the server — key id, plan, the plan's limits and
// what is left of them now. `trawl whoami` and the SDK's `trawl.key()` read it; it costs
// one request of the per-minute limit like every request, and no quota.
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { ProblemSchema } from '../scrape/schemas.js';

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

export const keyRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get('/key', {
    schema: {
      summary: "The caller's key: plan, limits and what is left of them",
      response: { 200: KeyStandingView, 401: ProblemSchema },
    },
  }, async (request) => deps.limits.standing(request.caller));
};
