// Map endpoint (spec "Map"): synchronous. The schema validates, the service asks the map
// worker over NATS and waits for its answer within the map budget.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { MapRequestSchema, MapResultSchema, type MapService } from '../map/service.js';
import { ProblemSchema } from '../scrape/schemas.js';

export interface MapRoutesOptions {
  maps: MapService;
}

const errors = { 400: ProblemSchema, 401: ProblemSchema, 429: ProblemSchema, 500: ProblemSchema, 503: ProblemSchema, 504: ProblemSchema };

export const mapRoutes: FastifyPluginAsyncTypebox<MapRoutesOptions> = async (app, { maps }) => {
  app.post('/map', {
    schema: { summary: "Discover a website's URLs (synchronous)", body: MapRequestSchema, response: { 200: MapResultSchema, ...errors } },
  }, async (request) => maps.map(request.caller, request.body));
};
