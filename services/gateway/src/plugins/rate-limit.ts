// Applies the per-key rate limit to routes that declare `config: { rateLimited: true }`
// (the job-creating ones), after authentication, and adds the X-RateLimit-* headers.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { RateLimitedError } from '../../../../shared/src/errors.js';
import { PLAN_LIMITS } from '../../../../shared/src/plans.js';
import type { RateLimiter } from '../rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimited?: boolean;
  }
}

export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: { limiter: RateLimiter | null }) => {
  app.addHook('preHandler', async (request, reply) => {
    if (!opts.limiter || !request.routeOptions.config?.rateLimited) return;
    const limit = PLAN_LIMITS[request.caller.plan].requestsPerMinute;
    try {
      const d = await opts.limiter.take(request.caller.keyId, limit);
      reply.header('x-ratelimit-limit', d.limit).header('x-ratelimit-remaining', d.remaining).header('x-ratelimit-reset', d.resetAt);
    } catch (err) {
      if (err instanceof RateLimitedError) {
        reply.header('x-ratelimit-limit', err.limit).header('x-ratelimit-remaining', 0).header('x-ratelimit-reset', Math.ceil(err.resetAtMs / 1000));
      }
      throw err;
    }
  });
});
