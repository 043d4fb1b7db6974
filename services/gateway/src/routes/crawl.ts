// Crawl endpoints (spec "Crawl"). Handlers are thin: the schemas validate, the service
// acts. Registered with one line in app.ts. (The webhook secret is in routes/webhooks.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CrawlRequestSchema } from '../../../../shared/src/crawl-options.js';
import type { RouteDeps } from '../deps.js';
import { CrawlCancelled, CrawlCreated, CrawlGetQuery, CrawlJobView, CrawlListItem } from '../crawl/schemas.js';
import { CrawlService } from '../crawl/service.js';
import { slowedHostReader } from '../../../../shared/src/host-pace.js';
import { IdParams, Pagination, ProblemSchema } from '../scrape/schemas.js';
import { longPoll } from './long-poll.js';
import { payloadBytes, sendStoredDocument } from './stored-document.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 429: ProblemSchema };

export const crawlRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const crawls = new CrawlService({
    log: deps.log, store: deps.store, waiter: deps.waiter, newId: deps.newId, clock: deps.clock,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, publicBaseUrl: deps.config.publicBaseUrl, limits: deps.limits,
    slowedHost: slowedHostReader(deps.nc.jetstream()),
  });

  app.post('/crawl', {
    schema: { summary: 'Start a crawl job', body: CrawlRequestSchema, response: { 202: CrawlCreated, ...errors } },
  }, async (request, reply) => reply.code(202).send(await crawls.submit(request.caller, request.body)));

  app.get('/crawl/:id', {
    schema: { summary: 'Get a crawl job, with its pages once finished; with waitMs, once it is finished (long-poll)', params: IdParams, querystring: CrawlGetQuery, response: { 200: CrawlJobView, ...errors } },
  }, async (request, reply) => {
    const { id } = request.params;
    const doc = await longPoll(deps.waits, request, reply, { kind: 'crawl', id, waitMs: request.query.waitMs }, () => crawls.own(request.caller, id));
    return crawls.view(doc, request.query.cursor);
  });

  app.delete('/crawl/:id', {
    schema: { summary: 'Cancel a running crawl job', params: IdParams, response: { 200: CrawlCancelled, ...errors } },
  }, async (request) => crawls.cancel(request.caller, request.params.id));

  app.get('/crawl/:id/pages/:pageKey/document', {
    schema: {
      summary: 'The stored bytes of a completed document page of a crawl (its `document.url`; same API key)',
      params: Type.Composite([IdParams, Type.Object({ pageKey: Type.String({ minLength: 1, maxLength: 200 }) })]),
    },
  }, async (request, reply) => sendStoredDocument(
    await crawls.document(request.caller, request.params.id, request.params.pageKey),
    payloadBytes(deps.payloads),
    reply,
  ));

  app.get('/crawl', {
    schema: { summary: "List the caller's crawl jobs, newest first", querystring: Pagination, response: { 200: Type.Array(CrawlListItem), ...errors } },
  }, async (request) => crawls.list(request.caller, request.query));
};
