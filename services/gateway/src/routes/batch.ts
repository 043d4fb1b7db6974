// Batch scrape endpoints (spec "Batch scrape": 1-100 URLs per request): the job routes
// (job-routes.ts) and a page's stored screenshots and document. Registered with one line in app.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { BatchScrapeRequestSchema } from '../../../../shared/src/domain/batch-options.js';
import type { ScreenshotInfo } from '../../../../shared/src/infra/store/index.js';
import type { RouteDeps } from '../deps.js';
import { BatchService } from '../batch/service.js';
import {
  BatchCreated, BatchGetQuery, BatchPageActionParams, BatchPageParams, BatchJobView, BatchListItem, BatchPageEntry, JobCancelled, payloadUrls, screenshotMediaType,
} from '../../../../shared/src/api/index.js';
import { jobRoutes } from './job-routes.js';
import { payloadBytes, sendStoredDocument, storedBytes } from './stored-document.js';

export const batchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const storedPayload = payloadBytes(deps.payloads);
  const batches = new BatchService({
    log: deps.log, store: deps.store, waiter: deps.waiter, newId: deps.newId, clock: deps.clock,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, publicBaseUrl: deps.config.publicBaseUrl, limits: deps.limits, dataMaxBytes: deps.config.jobDataMaxBytes,
    present: {
      screenshotUrl: (id, index, action) => payloadUrls.batchPageScreenshot(deps.config.publicBaseUrl, id, index, action),
      screenshotBytes: storedPayload,
      documentUrl: (id, index) => payloadUrls.batchPageDocument(deps.config.publicBaseUrl, id, index),
    },
  });

  await app.register(jobRoutes({
    kind: 'batch',
    path: '/batch/scrape',
    service: batches,
    schemas: { request: BatchScrapeRequestSchema, created: BatchCreated, getQuery: BatchGetQuery, view: BatchJobView, entry: BatchPageEntry, listItem: BatchListItem, cancelled: JobCancelled },
    moreErrors: [413],
    summaries: {
      submit: 'Start a batch scrape of 1-100 URLs',
      get: 'Get a batch scrape job and its pages; with waitMs, once it is finished (long-poll)',
      cancel: 'Cancel a running batch scrape job',
      list: "List the caller's batch scrape jobs, newest first",
    },
  }), deps);

  const sendImage = async (shot: ScreenshotInfo | undefined, reply: FastifyReply) => {
    const bytes = await storedBytes('screenshot', shot, storedPayload);
    return reply.type(screenshotMediaType(shot!.format)).header('cache-control', 'private, max-age=3600').send(bytes);
  };

  app.get('/batch/scrape/:id/pages/:index/screenshot', {
    schema: { summary: 'The screenshot of a completed page of a batch (index in `data`; same API key)', params: BatchPageParams },
  }, async (request, reply) => sendImage(await batches.screenshot(request.caller, request.params.id, request.params.index), reply));

  app.get('/batch/scrape/:id/pages/:index/document', {
    schema: { summary: 'The stored bytes of a completed document page of a batch (index in `data`; same API key)', params: BatchPageParams },
  }, async (request, reply) => sendStoredDocument(await batches.document(request.caller, request.params.id, request.params.index), storedPayload, reply));

  app.get('/batch/scrape/:id/pages/:index/screenshots/:action', {
    schema: {
      summary: 'A screenshot taken by a screenshot action on a page of a batch',
      params: BatchPageActionParams,
    },
  }, async (request, reply) => sendImage(await batches.screenshot(request.caller, request.params.id, request.params.index, request.params.action), reply));
};
