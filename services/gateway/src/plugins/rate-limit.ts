// Applies the per-key requests-per-minute limit (spec "Limits") to every authenticated
// request of the context it is registered in (everything under /api/v1), reads included,
// and adds the X-RateLimit-* headers. It runs as an onRequest hook right after
// authentication, before routing details, validation or any store read, so whatever the
// answer (200, 400, 404, 429 for the concurrency limit...), the request has been counted.
// Health, metrics, /openapi.json and the console's files are outside /api/v1: not counted.
// Counting needs NATS: while this gateway knows its connection is down (a nats-server
// restart), the request is answered 503 at once rather than after a request timeout.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { RateLimitedError, ServiceUnavailableError } from '../../../../shared/src/domain/errors.js';
import { PLAN_LIMITS } from '../../../../shared/src/domain/plans.js';
import type { RateLimiter } from '../rate-limit.js';

export const rateLimitPlugin = fp(async (app: FastifyInstance, opts: { limiter: RateLimiter | null; natsConnected?: () => boolean }) => {
  const limiter = opts.limiter;
  if (!limiter) return;
  app.addHook('onRequest', async (request, reply) => {
    // Authentication ran first (the hook is registered after it) and threw for no key.
    if (!request.caller) return;
    if (opts.natsConnected && !opts.natsConnected()) throw new ServiceUnavailableError('the event log cannot be reached right now; retry in a few seconds');
    const limit = PLAN_LIMITS[request.caller.plan].requestsPerMinute;
    try {
      const d = await limiter.take(request.caller.keyId, limit);
      reply.header('x-ratelimit-limit', d.limit).header('x-ratelimit-remaining', d.remaining).header('x-ratelimit-reset', d.resetAt);
    } catch (err) {
      if (err instanceof RateLimitedError) {
        reply.header('x-ratelimit-limit', err.limit).header('x-ratelimit-remaining', 0).header('x-ratelimit-reset', Math.ceil(err.resetAtMs / 1000));
      }
      throw err;
    }
  });
});
