// `GET /api/v1/key`: who the caller is to the server — key id, plan, the plan's limits and
// what is left of them now. `trawl whoami` and the SDK's `trawl.key()` read it; it costs
// one request of the per-minute limit like every request, and no quota.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { KeyStandingView, ProblemSchema } from '../../../../shared/src/api/index.js';

export const keyRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get('/key', {
    schema: {
      summary: "The caller's key: plan, limits and what is left of them",
      response: { 200: KeyStandingView, 401: ProblemSchema },
    },
  }, async (request) => deps.limits.standing(request.caller));
};
