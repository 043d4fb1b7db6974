// Recrawl endpoints (docs/api.md "Recrawl"): run a finished crawl again, and its report.
// Registered with one line in app.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { RecrawlBody, RecrawlCreated, RecrawlReport } from '../../../../shared/src/api/index.js';
import { RecrawlService } from '../recrawl/service.js';
import { IdParams, ProblemSchema } from '../../../../shared/src/api/index.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 429: ProblemSchema };

export const recrawlRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const recrawls = new RecrawlService({
    log: deps.log, store: deps.store, waiter: deps.waiter, newId: deps.newId, clock: deps.clock,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, limits: deps.limits, payloads: deps.payloads,
  });

  app.post('/crawl/:id/recrawl', {
    schema: {
      summary: 'Run a finished crawl again (same request, with change tracking); its report is GET /crawl/:newId/recrawl',
      params: IdParams, body: RecrawlBody, response: { 202: RecrawlCreated, ...errors },
    },
  }, async (request, reply) => reply.code(202).send(await recrawls.submit(request.caller, request.params.id, request.body ?? {})));

  app.get('/crawl/:id/recrawl', {
    schema: {
      summary: 'The report of a recrawl: each page new, same, changed or removed against the crawl it repeats; skipped pages in unchangedUrls',
      params: IdParams, response: { 200: RecrawlReport, ...errors },
    },
  }, async (request) => recrawls.report(request.caller, request.params.id));
};
