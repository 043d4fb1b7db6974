// Scrape endpoints (spec "Scrape"). Handlers are thin: the schemas validate, the service acts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ScrapeRequestSchema } from '../../../../shared/src/scrape-options.js';
import { presentScrapeJob, type PresentDeps } from '../scrape/present.js';
import { IdParams, Pagination, ProblemSchema, ScrapeCreated, ScrapeJobView, ScrapeListItem } from '../scrape/schemas.js';
import type { ScrapeService } from '../scrape/service.js';

export interface ScrapeRoutesOptions {
  scrapes: ScrapeService;
  present: PresentDeps;
}

const errors = { 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema };

export const scrapeRoutes: FastifyPluginAsyncTypebox<ScrapeRoutesOptions> = async (app, { scrapes, present }) => {
  app.post('/scrape', {
    schema: { summary: 'Create a scrape job', body: ScrapeRequestSchema, response: { 202: ScrapeCreated, 200: ScrapeJobView, ...errors } },
  }, async (request, reply) => {
    const created = await scrapes.submit(request.caller, request.body);
    return reply.code(202).send(created);
  });

  app.get('/scrape/:id', {
    schema: { summary: 'Get a scrape job and its result', params: IdParams, response: { 200: ScrapeJobView, ...errors } },
  }, async (request) => presentScrapeJob(await scrapes.get(request.caller, request.params.id), present));

  app.get('/scrape', {
    schema: { summary: "List the caller's scrape jobs, newest first", querystring: Pagination, response: { 200: Type.Array(ScrapeListItem), ...errors } },
  }, async (request) => scrapes.list(request.caller, request.query));
};
