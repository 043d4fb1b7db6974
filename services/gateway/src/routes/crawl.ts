// Crawl endpoints (spec "Crawl"): the job routes (job-routes.ts) and a crawl page's stored
// document. Registered with one line in app.ts. (The webhook secret is in routes/webhooks.ts.)
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { CrawlRequestSchema } from '../../../../shared/src/domain/crawl-options.js';
import type { RouteDeps } from '../deps.js';
import { CrawlService } from '../crawl/service.js';
import { CrawlCreated, CrawlGetQuery, CrawlJobView, CrawlListItem, CrawlPageEntry, CrawlPageParams, JobCancelled } from '../../../../shared/src/api/index.js';
import { jobRoutes } from './job-routes.js';
import { slowedHostReader } from '../../../../shared/src/domain/host-pace.js';
import { payloadBytes, sendStoredDocument } from './stored-document.js';

export const crawlRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const crawls = new CrawlService({
    log: deps.log, store: deps.store, waiter: deps.waiter, newId: deps.newId, clock: deps.clock,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, publicBaseUrl: deps.config.publicBaseUrl, limits: deps.limits, dataMaxBytes: deps.config.jobDataMaxBytes,
    slowedHost: slowedHostReader(deps.nc.jetstream()),
  });

  await app.register(jobRoutes({
    kind: 'crawl',
    path: '/crawl',
    service: crawls,
    schemas: { request: CrawlRequestSchema, created: CrawlCreated, getQuery: CrawlGetQuery, view: CrawlJobView, entry: CrawlPageEntry, listItem: CrawlListItem, cancelled: JobCancelled },
    summaries: {
      submit: 'Start a crawl job',
      get: 'Get a crawl job, with its pages once finished; with waitMs, once it is finished (long-poll)',
      cancel: 'Cancel a running crawl job',
      list: "List the caller's crawl jobs, newest first",
    },
  }), deps);

  app.get('/crawl/:id/pages/:pageKey/document', {
    schema: {
      summary: 'The stored bytes of a completed document page of a crawl (its `document.url`; same API key)',
      params: CrawlPageParams,
    },
  }, async (request, reply) => sendStoredDocument(
    await crawls.document(request.caller, request.params.id, request.params.pageKey),
    payloadBytes(deps.payloads),
    reply,
  ));
};
