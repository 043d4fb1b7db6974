// Scrape endpoints (spec "Scrape"). Handlers are thin: the schemas validate, the service acts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../../../shared/src/domain/errors.js';
import type { ScrapeJobDoc, ScreenshotInfo } from '../../../../shared/src/infra/store/index.js';
import { isFinal, type JobWaits } from '../job-waits.js';
import { presentCacheHit, presentScrapeJob, type PresentDeps } from '../scrape/present.js';
import {
  IdParams, Pagination, ProblemSchema, ScrapeActionParams, ScrapeCreated, ScrapeJobView, ScrapeListItem, ScrapePostBody, screenshotMediaType, WaitQuery,
} from '../../../../shared/src/api/index.js';
import type { ScrapeService } from '../scrape/service.js';
import { longPoll } from './long-poll.js';
import { sendStoredDocument, storedBytes } from './stored-document.js';

export interface ScrapeRoutesOptions {
  scrapes: ScrapeService;
  present: PresentDeps;
  waits: JobWaits;
}

const errors = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema };

export const scrapeRoutes: FastifyPluginAsyncTypebox<ScrapeRoutesOptions> = async (app, { scrapes, present, waits }) => {
  app.post('/scrape', {
    schema: {
      summary: 'Create a scrape job (202), or answer from the cache (200, fromCache: true); with waitMs, the finished job (200) when it finishes in time',
      body: ScrapePostBody,
      response: { 202: ScrapeCreated, 200: ScrapeJobView, ...errors },
    },
  }, async (request, reply) => {
    const { waitMs, ...body } = request.body;
    const result = await scrapes.submit(request.caller, body);
    if (result.kind === 'cached') return reply.code(200).send(await presentCacheHit(result.job, present));
    if (!waitMs) return reply.code(202).send({ id: result.id, status: result.status });
    // The job exists now: a wait past the bounds answers 202 at once rather than look refused,
    // and a projection slower than the POST's own wait reads as still PENDING.
    const pending = { status: 'PENDING' as const };
    const job = await longPoll(waits, request, reply, { kind: 'scrape', id: result.id, waitMs, whenBusy: 'answer' },
      (): Promise<ScrapeJobDoc | typeof pending> => scrapes.get(request.caller, result.id).catch((err: unknown) => {
        if (err instanceof NotFoundError) return pending;
        throw err;
      }));
    if ('id' in job && isFinal(job)) return reply.code(200).send(await presentScrapeJob(job, present));
    return reply.code(202).send({ id: result.id, status: job.status === 'PROCESSING' ? 'PROCESSING' : 'PENDING' });
  });

  app.get('/scrape/:id', {
    schema: { summary: 'Get a scrape job and its result; with waitMs, once it is finished (long-poll)', params: IdParams, querystring: WaitQuery, response: { 200: ScrapeJobView, ...errors } },
  }, async (request, reply) => {
    const { id } = request.params;
    const doc = await longPoll(waits, request, reply, { kind: 'scrape', id, waitMs: request.query.waitMs }, () => scrapes.get(request.caller, id));
    return presentScrapeJob(doc, present);
  });

  const sendImage = async (shot: ScreenshotInfo | undefined, reply: import('fastify').FastifyReply) => {
    const bytes = await storedBytes('screenshot', shot, present.screenshotBytes, 'this job has no such screenshot');
    return reply.type(screenshotMediaType(shot!.format)).header('cache-control', 'private, max-age=3600').send(bytes);
  };

  app.get('/scrape/:id/screenshot', {
    schema: { summary: 'The screenshot image of a completed job (same API key)', params: IdParams },
  }, async (request, reply) => sendImage((await scrapes.get(request.caller, request.params.id)).content?.screenshot, reply));

  app.get('/scrape/:id/screenshots/:index', {
    schema: {
      summary: 'An intermediate screenshot taken by a screenshot action',
      params: ScrapeActionParams,
    },
  }, async (request, reply) => sendImage((await scrapes.get(request.caller, request.params.id)).content?.actionScreenshots?.[request.params.index], reply));

  app.get('/scrape/:id/document', {
    schema: { summary: 'The stored bytes of a completed document page (PDF, DOCX, text...; same API key)', params: IdParams },
  }, async (request, reply) => sendStoredDocument((await scrapes.get(request.caller, request.params.id)).content?.document, present.documentBytes!, reply));

  app.get('/scrape', {
    schema: { summary: "List the caller's scrape jobs, newest first", querystring: Pagination, response: { 200: Type.Array(ScrapeListItem), ...errors } },
  }, async (request) => scrapes.list(request.caller, request.query));
};
