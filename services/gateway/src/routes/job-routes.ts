// The routes every multi-page job kind has, written once (spec "Crawl", "Batch scrape"):
// POST <path> starts a job, GET <path>/:id reads it (a part of its pages; with waitMs, once
// finished: long-poll), DELETE <path>/:id cancels it, GET <path> lists the caller's jobs.
// Handlers are thin: the kind's schemas validate, its service (../job-service.ts) acts; a
// GET's pages are written as they are read (streamed-view.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type TSchema } from '@sinclair/typebox';
import type { MultiPageKind } from '../../../../shared/src/domain/events/job.js';
import type { RouteDeps } from '../deps.js';
import type { JobDoc, JobService } from '../job-service.js';
import { IdParams, Pagination, ProblemSchema } from '../../../../shared/src/api/index.js';
import { longPoll } from './long-poll.js';
import { sendStreamedView } from './streamed-view.js';

export interface JobRoutes {
  kind: MultiPageKind;
  /** Under /api/v1: '/crawl', '/batch/scrape'. */
  path: string;
  service: JobService<JobDoc, never, unknown, unknown, unknown>;
  /** `entry`: one item of the view's `data` (the answer is written entry by entry, streamed-view.ts). */
  schemas: { request: TSchema; created: TSchema; getQuery: TSchema; view: TSchema; entry: TSchema; listItem: TSchema; cancelled: TSchema };
  /** Problem statuses beside 400, 401, 404, 409 and 429 (a batch's 413). */
  moreErrors?: readonly number[];
  summaries: { submit: string; get: string; cancel: string; list: string };
}

/** Registers the four routes of a job kind on `app` (inside the kind's own plugin). */
export const jobRoutes = (spec: JobRoutes): FastifyPluginAsyncTypebox<RouteDeps> => async (app, deps) => {
  const { path, service: jobs, schemas, summaries } = spec;
  const errors = Object.fromEntries([400, 401, 404, 409, 429, ...(spec.moreErrors ?? [])].map((code) => [code, ProblemSchema]));

  app.post(path, {
    schema: { summary: summaries.submit, body: schemas.request, response: { 202: schemas.created, ...errors } },
  }, async (request, reply) => reply.code(202).send(await jobs.submit(request.caller, request.body as never)));

  app.get(`${path}/:id`, {
    schema: { summary: summaries.get, params: IdParams, querystring: schemas.getQuery, response: { 200: schemas.view, ...errors } },
  }, async (request, reply) => {
    const { id } = request.params;
    const query = request.query as { cursor?: string; waitMs?: number };
    const doc = await longPoll(deps.waits, request, reply, { kind: spec.kind, id, waitMs: query.waitMs }, () => jobs.own(request.caller, id));
    return sendStreamedView(reply, await jobs.view(doc, query.cursor), schemas.entry);
  });

  app.delete(`${path}/:id`, {
    schema: { summary: summaries.cancel, params: IdParams, response: { 200: schemas.cancelled, ...errors } },
  }, async (request) => jobs.cancel(request.caller, request.params.id));

  app.get(path, {
    schema: { summary: summaries.list, querystring: Pagination, response: { 200: Type.Array(schemas.listItem), ...errors } },
  }, async (request) => jobs.list(request.caller, request.query));
};
