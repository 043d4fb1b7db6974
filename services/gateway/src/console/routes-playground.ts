// The playground's routes: the form (one tab per request kind), and its POST that submits
// through the same services as the API (validated by the same schemas, limited by the
// same plan) as a key the account owns. A scrape or extract waits for its result (as
// POST /api/v1/scrape with waitMs does) before it opens the job's page, so the page opens
// on the content; a crawl or batch opens its job's page, which updates live; a map's
// links are shown on the playground itself.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { BatchScrapeRequestSchema, type BatchScrapeRequest } from '../../../../shared/src/domain/batch-options.js';
import { CrawlRequestSchema, type CrawlRequest } from '../../../../shared/src/domain/crawl-options.js';
import { NotFoundError, TrawlError } from '../../../../shared/src/domain/errors.js';
import { ScrapeRequestSchema, type ScrapeRequest } from '../../../../shared/src/domain/scrape-options.js';
import type { RouteDeps } from '../deps.js';
import { BatchService } from '../batch/service.js';
import { CrawlService } from '../crawl/service.js';
import { MAX_WAIT_MS } from '../job-waits.js';
import { MapService } from '../map/service.js';
import { MapRequestSchema, type MapRequest } from '../../../../shared/src/api/index.js';
import { validatorCompiler } from '../../../../shared/src/api/validation.js';
import type { ScrapeService } from '../scrape/service.js';
import { field, sendPage, signedInOnly, type ConsoleContext } from './context.js';
import { playgroundPage, type MapAnswer } from './pages/playground.js';
import { DEFAULT_VALUES, PLAYGROUND_FORMATS, requestOf, type PlaygroundValues } from './playground-request.js';
import { REQUEST_KINDS, type RequestKind } from './snippets.js';

const checker = (schema: TSchema, url: string) =>
  validatorCompiler({ schema, httpPart: 'body', method: 'POST', url }) as (data: unknown) => { value?: unknown; error?: Error };
const CHECKS: Record<RequestKind, (data: unknown) => { value?: unknown; error?: Error }> = {
  scrape: checker(ScrapeRequestSchema, '/api/v1/scrape'), extract: checker(ScrapeRequestSchema, '/api/v1/scrape'),
  crawl: checker(CrawlRequestSchema, '/api/v1/crawl'), batch: checker(BatchScrapeRequestSchema, '/api/v1/batch/scrape'), map: checker(MapRequestSchema, '/api/v1/map'),
};

const kindOf = (value: string | undefined): RequestKind => (REQUEST_KINDS as readonly string[]).includes(value ?? '') ? value as RequestKind : 'scrape';

function valuesOf(request: FastifyRequest): PlaygroundValues {
  const on = (name: string): boolean => field(request, name, 10) !== '';
  return {
    kind: kindOf(field(request, 'kind', 10)), keyId: field(request, 'keyId', 40), url: field(request, 'url', 8192).trim(),
    urls: field(request, 'urls', 100 * 8200), formats: PLAYGROUND_FORMATS.filter((f) => on(`format_${f}`)),
    onlyMainContent: on('onlyMainContent'), mobile: on('mobile'),
    waitFor: field(request, 'waitFor', 500).trim(), timeout: field(request, 'timeout', 12).trim(),
    limit: field(request, 'limit', 12).trim(), maxDepth: field(request, 'maxDepth', 12).trim(), search: field(request, 'search', 1000).trim(),
    schema: field(request, 'schema', 64 * 1024),
  };
}

export interface PlaygroundServices {
  scrapes: ScrapeService;
  route: RouteDeps;
}

export async function playgroundRoutes(app: FastifyInstance, ctx: ConsoleContext, services: PlaygroundServices): Promise<void> {
  const member = { preHandler: signedInOnly(ctx) };
  const base = ctx.deps.config.publicBaseUrl;
  const { scrapes, route } = services;
  const jobDeps = {
    log: route.log, store: route.store, waiter: route.waiter, newId: route.newId, clock: route.clock,
    urlPolicy: { allowCidrs: route.config.ssrfAllowCidrs }, limits: route.limits, dataMaxBytes: route.config.jobDataMaxBytes,
  };
  const crawls = new CrawlService({ ...jobDeps, publicBaseUrl: base });
  const batches = new BatchService({ ...jobDeps, publicBaseUrl: base, present: { screenshotUrl: () => '', screenshotBytes: async () => new Uint8Array() } });
  const maps = new MapService({ ...jobDeps, nc: route.nc, payloads: route.payloads });
  const activeKeys = async (accountId: string) => (await ctx.jobs.keys(accountId)).filter((k) => !k.revokedAt);

  app.get('/playground', member, async (request, reply) => {
    const { account, viewer } = request.signedIn!;
    const values = { ...DEFAULT_VALUES, kind: kindOf((request.query as { tab?: string }).tab) };
    return sendPage(reply, 'Playground', 'playground', viewer, playgroundPage({ csrf: viewer.csrf, keys: await activeKeys(account.id), values, baseUrl: base }));
  });

  app.post('/playground', member, async (request, reply) => {
    const { account, viewer } = request.signedIn!;
    const keys = await activeKeys(account.id);
    const values = valuesOf(request);
    // "Show as code": the snippets of what is typed, nothing run.
    if (field(request, 'preview', 2) === '1') return sendPage(reply, 'Playground', 'playground', viewer, playgroundPage({ csrf: viewer.csrf, keys, values, baseUrl: base }));
    try {
      const key = keys.find((k) => k.id === values.keyId);
      if (!key) throw new NotFoundError('choose one of your active keys');
      const caller = { keyId: key.id, plan: key.plan };
      const body = requestOf(values);
      const checked = CHECKS[values.kind](body);
      if (checked.error) throw checked.error;
      switch (values.kind) {
        case 'scrape':
        case 'extract': {
          const result = await scrapes.submit(caller, body as ScrapeRequest);
          const id = result.kind === 'cached' ? result.job.id : result.id;
          // Like POST /scrape with waitMs: the job's page opens on the result (or, after a
          // minute, on the job still running, which then updates live).
          if (result.kind !== 'cached') {
            await route.waits.wait({
              keyId: key.id, kind: 'scrape', id, waitMs: MAX_WAIT_MS, whenBusy: 'answer',
              load: async () => (await ctx.deps.store.scrapeJobs.get(id)) ?? { status: 'PENDING' },
            });
          }
          return reply.redirect(`/console/jobs/scrape/${id}`, 303);
        }
        case 'crawl':
          return reply.redirect(`/console/jobs/crawl/${(await crawls.submit(caller, body as CrawlRequest)).id}`, 303);
        case 'batch':
          return reply.redirect(`/console/jobs/batch/${(await batches.submit(caller, body as BatchScrapeRequest)).id}`, 303);
        case 'map': {
          const answer = await maps.map(caller, body as MapRequest);
          const mapped: MapAnswer = { url: values.url, links: answer.links, count: answer.count };
          return sendPage(reply, 'Playground', 'playground', viewer, playgroundPage({ csrf: viewer.csrf, keys, values, baseUrl: base, mapped }));
        }
      }
    } catch (err) {
      if (!(err instanceof TrawlError) || err.status >= 500) throw err;
      return sendPage(reply, 'Playground', 'playground', viewer, playgroundPage({ csrf: viewer.csrf, keys, values, error: err.message, baseUrl: base }), err.status);
    }
  });
}
