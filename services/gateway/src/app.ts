// The gateway as a Fastify plugin tree: problem+json errors and request ids for all
// routes, health without auth, everything under /api/v1 behind bearer auth. Built from
// explicit dependencies so tests can inject() against a real NATS and store.
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController } from 'fastify';
import { readiness } from '../../../shared/src/infra/health.js';
import { isNatsConnected } from '../../../shared/src/infra/nats/connect.js';
import { authPlugin, KeyDirectory } from './plugins/auth.js';
import { metricsPlugin } from './plugins/metrics.js';
import { clientErrorHandler, frameworkErrorHandler, notFoundHandler, problemsPlugin } from './plugins/problems.js';
import { jobIdGuard } from './plugins/job-ids.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { RateLimiter } from './rate-limit.js';
import { AdmissionLedger } from '../../../shared/src/infra/admission/ledger.js';
import { PlanLimiter } from '../../../shared/src/infra/admission/plan-limits.js';
import type { GatewayDeps, RouteDeps } from './deps.js';
import { JobWaits } from './job-waits.js';
import { validatorCompiler } from '../../../shared/src/api/validation.js';
import { payloadUrls } from '../../../shared/src/api/index.js';
import { mapRoutes } from './routes/map.js';
import { batchRoutes } from './routes/batch.js';
import { crawlRoutes } from './routes/crawl.js';
import { recrawlRoutes } from './routes/recrawl.js';
import { monitorRoutes } from './routes/monitors.js';
import { payloadBytes } from './routes/stored-document.js';
import { scrapeRoutes } from './routes/scrape.js';
import { eventRoutes } from './routes/events.js';
import { changeRoutes } from './routes/changes.js';
import { keyRoutes } from './routes/key.js';
import { documentOptionalRotateBody, webhookRoutes } from './routes/webhooks.js';
import { ScrapeService } from './scrape/service.js';
import type { PresentDeps } from './scrape/present.js';
import { consolePlugin } from './console/plugin.js';

export type { GatewayDeps, RouteDeps } from './deps.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

export async function buildApp(deps: GatewayDeps) {
  const app = Fastify({
    loggerInstance: deps.logger,
    // A client's own X-Request-Id is kept when it is a plain token; otherwise we make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // Long ids reach the route (and its 404) instead of the router's own 414; Node's 16 KiB
    // header limit still bounds the whole request line.
    routerOptions: { maxParamLength: 16 * 1024 },
    frameworkErrors: frameworkErrorHandler(deps.config.errorTypeBase),
    clientErrorHandler: clientErrorHandler(deps.config.errorTypeBase, randomUUID),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // JSON only: a text/plain body is 415, not a string that fails validation later.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  await app.register(metricsPlugin);
  await app.register(problemsPlugin, { errorTypeBase: deps.config.errorTypeBase });
  await app.register(swagger, {
    openapi: {
      info: { title: 'Trawl API', version: '1.0.0', description: 'Web content extraction: scrape, map, crawl.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transformObject: documentOptionalRotateBody,
  });

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const { ready, checks } = await readiness(async () => ({ nats: isNatsConnected(deps.nc), store: await deps.store.ping() }));
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', checks });
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const keys = new KeyDirectory(deps.store);
  keys.listen(deps.nc);
  app.addHook('onClose', async () => keys.stop());
  const ledger = new AdmissionLedger(deps.nc.jetstream(), { now: () => deps.clock().getTime() });
  const limits = new PlanLimiter(deps.store, ledger, deps.clock, { concurrency: deps.config.rateLimits, quota: deps.config.quotas });
  // Long-polls wake on the projector's notices; on close they answer at once (preClose runs
  // before the server waits for requests in flight).
  const waits = new JobWaits({ maxWaitsPerKey: deps.config.longPollMaxWaitsPerKey, maxWaitsPerGateway: deps.config.longPollMaxWaitsPerGateway, fallbackReadMs: deps.config.longPollFallbackReadMs });
  const unlisten = deps.waiter.onJobStatus({ changed: (change) => waits.noticed(change), reconnected: () => waits.recheckAll() });
  app.addHook('preClose', async () => waits.close());
  app.addHook('onClose', async () => { unlisten(); });
  const routeDeps: RouteDeps = { ...deps, limits, waits };
  const scrapes = new ScrapeService({
    log: deps.log, store: deps.store, waiter: deps.waiter, newId: deps.newId, clock: deps.clock,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, cacheTtlMs: deps.config.cacheTtlMs, limits,
  });
  const present: PresentDeps = {
    screenshotUrl: (jobId, index) => payloadUrls.scrapeScreenshot(deps.config.publicBaseUrl, jobId, index),
    screenshotBytes: payloadBytes(deps.payloads),
    documentUrl: (jobId) => payloadUrls.scrapeDocument(deps.config.publicBaseUrl, jobId),
    documentBytes: payloadBytes(deps.payloads),
  };

  await app.register(async (api) => {
    await api.register(authPlugin, { keys });
    api.setNotFoundHandler(notFoundHandler(deps.config.errorTypeBase));
    await api.register(jobIdGuard);
    await api.register(rateLimitPlugin, { limiter: deps.config.rateLimits ? new RateLimiter(deps.nc.jetstream()) : null, natsConnected: () => isNatsConnected(deps.nc) });
    await api.register(scrapeRoutes, { scrapes, present, waits });
    await api.register(crawlRoutes, routeDeps);
    await api.register(recrawlRoutes, routeDeps);
    await api.register(monitorRoutes, routeDeps);
    await api.register(mapRoutes, routeDeps);
    await api.register(eventRoutes, routeDeps);
    await api.register(batchRoutes, routeDeps);
    await api.register(webhookRoutes, routeDeps);
    await api.register(changeRoutes, routeDeps);
    await api.register(keyRoutes, routeDeps);
  }, { prefix: '/api/v1' });
  await app.register(consolePlugin, { deps, openapi: () => app.swagger(), playground: { scrapes, route: routeDeps } });

  return app;
}
