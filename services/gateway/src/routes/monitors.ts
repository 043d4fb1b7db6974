// Monitor endpoints (docs/api.md "Monitors"): create, read, list, delete; scoped to the
// caller's key. Registered with one line in app.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RouteDeps } from '../deps.js';
import { MonitorCreateBody, MonitorDeletedView, MonitorSummary, MonitorView } from '../../../../shared/src/api/index.js';
import { MonitorService } from '../monitors/service.js';
import { IdParams, ProblemSchema } from '../../../../shared/src/api/index.js';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 403: ProblemSchema, 404: ProblemSchema, 429: ProblemSchema };

export const monitorRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  const monitors = new MonitorService({
    log: deps.log, newId: deps.newId, clock: deps.clock, urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs }, minIntervalMs: deps.config.monitorMinIntervalMs,
  });

  app.post('/monitors', {
    schema: { summary: 'Create a monitor: a URL or a crawl run on a schedule, its changes sent to a webhook', body: MonitorCreateBody, response: { 201: MonitorView, ...errors } },
  }, async (request, reply) => reply.code(201).send(await monitors.create(request.caller, request.body)));

  app.get('/monitors/:id', {
    schema: { summary: 'A monitor, with its next run and its last run', params: IdParams, response: { 200: MonitorView, ...errors } },
  }, async (request) => monitors.get(request.caller, request.params.id));

  app.get('/monitors', {
    schema: { summary: "The caller's monitors (not deleted), oldest first", response: { 200: Type.Array(MonitorSummary), ...errors } },
  }, async (request) => monitors.list(request.caller));

  app.delete('/monitors/:id', {
    schema: { summary: 'Delete a monitor: no run starts after this (a run in progress ends as it would)', params: IdParams, response: { 200: MonitorDeletedView, ...errors } },
  }, async (request) => monitors.remove(request.caller, request.params.id));
};
