// Scrape endpoints (spec "Scrape"). Handlers are thin: the schemas validate, the service acts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../../../shared/src/errors.js';
import { ScrapeRequestSchema } from '../../../../shared/src/scrape-options.js';
import type { ScreenshotInfo } from '../../../../shared/src/store/index.js';
import { presentCacheHit, presentScrapeJob, type PresentDeps } from '../scrape/present.js';
import { IdParams, Pagination, ProblemSchema, ScrapeCreated, ScrapeJobView, ScrapeListItem } from '../scrape/schemas.js';
import type { ScrapeService } from '../scrape/service.js';

export interface ScrapeRoutesOptions {
  scrapes: ScrapeService;
  present: PresentDeps;
}

const errors = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema };
const MIME: Record<string, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

export const scrapeRoutes: FastifyPluginAsyncTypebox<ScrapeRoutesOptions> = async (app, { scrapes, present }) => {
  app.post('/scrape', {
    config: { rateLimited: true },
    schema: {
      summary: 'Create a scrape job (202), or answer from the cache (200, fromCache: true)',
      body: ScrapeRequestSchema,
      response: { 202: ScrapeCreated, 200: ScrapeJobView, ...errors },
    },
  }, async (request, reply) => {
    const result = await scrapes.submit(request.caller, request.body);
    if (result.kind === 'cached') return reply.code(200).send(await presentCacheHit(result.job, present));
    return reply.code(202).send({ id: result.id, status: result.status });
  });

  app.get('/scrape/:id', {
    schema: { summary: 'Get a scrape job and its result', params: IdParams, response: { 200: ScrapeJobView, ...errors } },
  }, async (request) => presentScrapeJob(await scrapes.get(request.caller, request.params.id), present));

  const sendImage = async (shot: ScreenshotInfo | undefined, reply: import('fastify').FastifyReply) => {
    if (!shot) throw new NotFoundError('this job has no such screenshot');
    if (Date.parse(shot.expiresAt) < Date.now()) throw new NotFoundError(`the screenshot expired at ${shot.expiresAt}`);
    let bytes: Uint8Array;
    try {
      bytes = await present.screenshotBytes(shot);
    } catch {
      throw new NotFoundError('the screenshot is no longer stored');
    }
    return reply.type(MIME[shot.format] ?? 'application/octet-stream').header('cache-control', 'private, max-age=3600').send(Buffer.from(bytes));
  };

  app.get('/scrape/:id/screenshot', {
    schema: { summary: 'The screenshot image of a completed job (same API key)', params: IdParams },
  }, async (request, reply) => sendImage((await scrapes.get(request.caller, request.params.id)).content?.screenshot, reply));

  app.get('/scrape/:id/screenshots/:index', {
    schema: {
      summary: 'An intermediate screenshot taken by a screenshot action',
      params: Type.Composite([IdParams, Type.Object({ index: Type.Integer({ minimum: 0, maximum: 1000 }) })]),
    },
  }, async (request, reply) => sendImage((await scrapes.get(request.caller, request.params.id)).content?.actionScreenshots?.[request.params.index], reply));

  app.get('/scrape', {
    schema: { summary: "List the caller's scrape jobs, newest first", querystring: Pagination, response: { 200: Type.Array(ScrapeListItem), ...errors } },
  }, async (request) => scrapes.list(request.caller, request.query));
};
