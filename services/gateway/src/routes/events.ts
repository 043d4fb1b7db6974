// Audit replay over the API: a job's own events, straight from the log (the truth, not a
// read model), in order, paged by stream sequence. Only the key that created the job sees
// them: ownership is read from the job's first event, which always names its key. The id
// is a plain token (the jobIdGuard plugin and historyFilter both insist), and every event
// returned is checked again to be this job's and, where it names a key, the caller's: a
// filter that matched more than the job can never leak another tenant's events. The data
// is shown without the pipeline's internals (../job-event-view.ts): a cache hit's events
// never name the job, possibly another tenant's, whose result it serves.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { NotFoundError } from '../../../../shared/src/domain/errors.js';
import type { StoredEvent } from '../../../../shared/src/domain/events/index.js';
import { historyFilter, type AggregateKind } from '../../../../shared/src/infra/subjects.js';
import type { RouteDeps } from '../deps.js';
import { publicEventData } from '../job-event-view.js';
import { EventsQuery, EventsView, IdParams, ProblemSchema } from '../../../../shared/src/api/index.js';

const ROUTES: { path: string; kind: AggregateKind }[] = [
  { path: '/scrape/:id/events', kind: 'scrape' },
  { path: '/crawl/:id/events', kind: 'crawl' },
  { path: '/batch/scrape/:id/events', kind: 'batch' },
  { path: '/map/:id/events', kind: 'map' },
];

function ownerOf(event: StoredEvent | undefined): string | undefined {
  const data = event?.data as { apiKeyId?: unknown } | undefined;
  return typeof data?.apiKeyId === 'string' ? data.apiKeyId : undefined;
}

function belongsTo(event: StoredEvent, kind: AggregateKind, id: string, keyId: string): boolean {
  const owner = ownerOf(event);
  return event.kind === kind && event.id === id && (owner === undefined || owner === keyId);
}

export const eventRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  for (const { path, kind } of ROUTES) {
    app.get(path, {
      schema: {
        summary: `The ${kind} job's events, in order (audit replay)`,
        params: IdParams,
        querystring: EventsQuery,
        response: { 200: EventsView, 400: ProblemSchema, 401: ProblemSchema, 404: ProblemSchema },
      },
    }, async (request) => {
      const { id } = request.params;
      const filter = historyFilter(kind, id);
      const [first] = await deps.log.read(filter, 1, 1);
      if (ownerOf(first) !== request.caller.keyId) throw new NotFoundError(`no ${kind} job with id "${id}"`);
      const { after, limit } = request.query;
      const read = await deps.log.read(filter, after + 1, limit);
      const events = read.filter((e) => belongsTo(e, kind, id, request.caller.keyId));
      if (events.length !== read.length) request.log.error({ kind, id, dropped: read.length - events.length }, 'events of another job matched a history filter');
      const last = read.at(-1);
      return {
        id,
        kind,
        events: events.map((e) => ({ seq: e.seq, event: e.event, part: e.part, occurredAt: e.occurredAt, data: publicEventData(e) })),
        ...(read.length === limit && last
          ? { next: `${deps.config.publicBaseUrl}/api/v1${path.replace(':id', encodeURIComponent(id))}?after=${last.seq}&limit=${limit}` }
          : {}),
      };
    });
  }
};
