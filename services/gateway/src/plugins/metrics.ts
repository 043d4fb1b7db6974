// HTTP metrics for Prometheus (shared/src/infra/metrics.ts): every answered request is counted by
// method, route pattern and status, and timed. The route pattern (`/api/v1/scrape/:id`),
// not the URL, keeps the label set small; a request no route matched is `unmatched`.
// The metrics themselves are served on the internal HEALTH_PORT, not here.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { httpMetrics } from '../../../../shared/src/infra/metrics.js';

export const metricsPlugin = fp(async (app: FastifyInstance) => {
  const requests = httpMetrics.requests();
  const duration = httpMetrics.duration();
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status_code: String(reply.statusCode) });
    duration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
});
