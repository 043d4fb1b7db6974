// Batch scrape endpoints (spec "Batch scrape": 1-100 URLs per request). Handlers are thin:
// the schemas validate, the service acts. Registered with one line in app.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { BatchScrapeRequestSchema } from '../../../../shared/src/batch-options.js';
import type { ScreenshotInfo } from '../../../../shared/src/store/index.js';
import type { RouteDeps } from '../deps.js';
import { BatchService } from '../batch/service.js';
import {
  BatchCreated, BatchGetQuery, BatchJobView, BatchListItem, IdParams, JobCancelled, Pagination, payloadUrls, ProblemSchema, screenshotMediaType,
} from '../../../../shared/src/api/index.js';
import { longPoll } from './long-poll.js';
import { payloadBytes, sendStoredDocument, storedBytes } from './stored-document.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 409: ProblemSchema, 413: ProblemSchema, 429: ProblemSchema };
const PageParams = Type.Composite([IdParams, Type.Object({ index: Type.Integer({ minimum: 0, maximum: 99 }) })]);

export const batchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const storedPayload = payloadBytes(deps.payloads);
  const batches = new BatchService({
    log: deps.log, store: deps.store, waiter: deps.waiter, newId: deps.newId, clock: deps.clock,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, publicBaseUrl: deps.config.publicBaseUrl, limits: deps.limits,
    present: {
      screenshotUrl: (id, index, action) => payloadUrls.batchPageScreenshot(deps.config.publicBaseUrl, id, index, action),
      screenshotBytes: storedPayload,
      documentUrl: (id, index) => payloadUrls.batchPageDocument(deps.config.publicBaseUrl, id, index),
    },
  });

  app.post('/batch/scrape', {
    schema: { summary: 'Start a batch scrape of 1-100 URLs', body: BatchScrapeRequestSchema, response: { 202: BatchCreated, ...errors } },
  }, async (request, reply) => reply.code(202).send(await batches.submit(request.caller, request.body)));

  app.get('/batch/scrape/:id', {
    schema: { summary: 'Get a batch scrape job and its pages; with waitMs, once it is finished (long-poll)', params: IdParams, querystring: BatchGetQuery, response: { 200: BatchJobView, ...errors } },
  }, async (request, reply) => {
    const { id } = request.params;
    const doc = await longPoll(deps.waits, request, reply, { kind: 'batch', id, waitMs: request.query.waitMs }, () => batches.own(request.caller, id));
    return batches.view(doc, request.query.cursor);
  });

  app.delete('/batch/scrape/:id', {
    schema: { summary: 'Cancel a running batch scrape job', params: IdParams, response: { 200: JobCancelled, ...errors } },
  }, async (request) => batches.cancel(request.caller, request.params.id));

  app.get('/batch/scrape', {
    schema: { summary: "List the caller's batch scrape jobs, newest first", querystring: Pagination, response: { 200: Type.Array(BatchListItem), ...errors } },
  }, async (request) => batches.list(request.caller, request.query));

  const sendImage = async (shot: ScreenshotInfo | undefined, reply: FastifyReply) => {
    const bytes = await storedBytes('screenshot', shot, storedPayload);
    return reply.type(screenshotMediaType(shot!.format)).header('cache-control', 'private, max-age=3600').send(bytes);
  };

  app.get('/batch/scrape/:id/pages/:index/screenshot', {
    schema: { summary: 'The screenshot of a completed page of a batch (index in `data`; same API key)', params: PageParams },
  }, async (request, reply) => sendImage(await batches.screenshot(request.caller, request.params.id, request.params.index), reply));

  app.get('/batch/scrape/:id/pages/:index/document', {
    schema: { summary: 'The stored bytes of a completed document page of a batch (index in `data`; same API key)', params: PageParams },
  }, async (request, reply) => sendStoredDocument(await batches.document(request.caller, request.params.id, request.params.index), storedPayload, reply));

  app.get('/batch/scrape/:id/pages/:index/screenshots/:action', {
    schema: {
      summary: 'A screenshot taken by a screenshot action on a page of a batch',
      params: Type.Composite([PageParams, Type.Object({ action: Type.Integer({ minimum: 0, maximum: 1000 }) })]),
    },
  }, async (request, reply) => sendImage(await batches.screenshot(request.caller, request.params.id, request.params.index, request.params.action), reply));
};
