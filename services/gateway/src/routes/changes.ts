// A URL's change history for the caller's key (docs/api.md "Change tracking"): its
// observations straight from the log (trawl.observation.<keyId>.<part>.url_observed), in
// order, paged by stream sequence like the job events. The subject is built from the
// caller's own key id, so another key's history cannot be named; every event returned is
// checked again to be the caller's.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { historyPart } from '../../../../shared/src/domain/change-tracking.js';
import { InvalidUrlError } from '../../../../shared/src/domain/errors.js';
import { subjectOf } from '../../../../shared/src/infra/subjects.js';
import { normalizeUrl } from '../../../../shared/src/net/url-normalize.js';
import type { RouteDeps } from '../deps.js';
import { ChangeHistory, ChangesQuery, ProblemSchema } from '../../../../shared/src/api/index.js';

export const changeRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.get('/changes', {
    schema: {
      summary: 'A URL\'s change history for this key: every observation (scrape, crawl or batch page), oldest first',
      querystring: ChangesQuery,
      response: { 200: ChangeHistory, 400: ProblemSchema, 401: ProblemSchema },
    },
  }, async (request) => {
    const { url, tag, after, limit } = request.query;
    const normalized = normalizeUrl(url);
    if (!normalized || !/^https?:$/.test(new URL(normalized.url).protocol)) throw new InvalidUrlError(`"${url}" is not a valid http(s) URL`);
    const keyId = request.caller.keyId;
    const subject = subjectOf({ kind: 'observation', id: keyId, part: historyPart(normalized.url, tag), event: 'url_observed' });
    const read = await deps.log.read(subject, after + 1, limit);
    const observations = read.flatMap((e) => (e.event === 'url_observed' && e.data.apiKeyId === keyId ? [{
      seq: e.seq,
      observedAt: e.data.observedAt,
      changeStatus: e.data.changeStatus,
      statusCode: e.data.statusCode,
      jobId: e.data.source.jobId,
      jobKind: e.data.source.kind,
      ...(e.data.markdownBytes !== undefined ? { markdownBytes: e.data.markdownBytes } : {}),
      ...(e.data.previous?.optionsHash && e.data.optionsHash ? { optionsChanged: e.data.previous.optionsHash !== e.data.optionsHash } : {}),
    }] : []));
    const last = read.at(-1);
    const query = new URLSearchParams({ url, ...(tag !== undefined ? { tag } : {}), after: String(last?.seq ?? after), limit: String(limit) });
    return {
      url: normalized.url,
      ...(tag !== undefined ? { tag } : {}),
      observations,
      ...(read.length === limit && last ? { next: `${deps.config.publicBaseUrl}/api/v1/changes?${query}` } : {}),
    };
  });
};
