// Every `:id` a client sends is a job id or no job at all. Ids reach NATS subject filters
// (`trawl.<kind>.<id>.>`) and store keys, where `*`, `>`, `.` or a space would widen or
// break them; so anything not shaped like an id newId() makes is "no such job" (404) at
// once, before a route builds anything from it.
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { NotFoundError } from '../../../../shared/src/domain/errors.js';
import { isJobId } from '../../../../shared/src/infra/ids.js';

export const jobIdGuard = fp(async (app: FastifyInstance) => {
  app.addHook('preValidation', async (request) => {
    const { id } = (request.params ?? {}) as { id?: unknown };
    if (typeof id === 'string' && !isJobId(id)) throw new NotFoundError('no job with that id');
  });
});
