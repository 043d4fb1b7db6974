// Map endpoint (spec "Map"): synchronous. The schema validates, the service asks the map
// worker over NATS and waits for its answer within the map budget.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MapService, type MapServiceDeps } from '../map/service.js';
import { MapRequestSchema, MapResultSchema, ProblemSchema } from '../../../../shared/src/api/index.js';
import type { Config } from '../../../../shared/src/infra/config.js';

/** The gateway's dependencies this route uses (app.ts passes its GatewayDeps). */
export type MapRoutesOptions = Pick<MapServiceDeps, 'nc' | 'log' | 'payloads' | 'newId' | 'clock' | 'limits' | 'waiter'> & { config: Pick<Config, 'ssrfAllowCidrs'> };

const errors = { 400: ProblemSchema, 401: ProblemSchema, 429: ProblemSchema, 500: ProblemSchema, 503: ProblemSchema, 504: ProblemSchema };

export const mapRoutes: FastifyPluginAsyncTypebox<MapRoutesOptions> = async (app, deps) => {
  const maps = new MapService({
    nc: deps.nc, log: deps.log, payloads: deps.payloads, newId: deps.newId, clock: deps.clock, limits: deps.limits, waiter: deps.waiter,
    urlPolicy: { allowCidrs: deps.config.ssrfAllowCidrs },
  });
  app.post('/map', {
    schema: { summary: "Discover a website's URLs (synchronous)", body: MapRequestSchema, response: { 200: MapResultSchema, ...errors } },
  }, async (request) => maps.map(request.caller, request.body));
};
