// The map worker: consumes map_requested, discovers the site's URLs within the job's
// budget and records map_completed (or map_failed), which the waiting gateway receives.
//
// Time: the budget runs from the request's requestedAt, so time spent queued counts; the
// worker stops discovering RESULT_RESERVE_MS before the end to leave time to write the
// answer. A request whose budget is over before a worker takes it (workers were down, the
// caller has gone) is recorded as failed without doing the work.
import { ConsumerWorker } from '../../../../shared/src/infra/nats/worker.js';
import { toTrawlError, type TrawlError } from '../../../../shared/src/domain/errors.js';
import { makeEvent, type EventData, type TrawlEvent } from '../../../../shared/src/domain/events/index.js';
import { MAP_INLINE_LINKS_MAX_BYTES } from '../../../../shared/src/domain/events/map.js';
import { newId as defaultNewId, systemClock, type Clock, type IdGenerator } from '../../../../shared/src/infra/ids.js';
import { normalizeScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import type { RunningService, ServiceContext } from '../../../../shared/src/infra/service.js';
import { eventFilter } from '../../../../shared/src/infra/subjects.js';
import { parseHttpUrl, resolveAllowed } from '../../../../shared/src/net/url-safety.js';
import { discoverLinks } from './discover.js';
import { MapPagePipeline } from './page-pipeline.js';

type MapRequestedEvent = TrawlEvent<'map_requested'> & { seq: number };

export const MAP_WORKER_DEFAULTS = {
  durable: 'crawler-frontier-map',
  /** Map jobs one instance runs at once (each has up to crawlConcurrency pages in flight). */
  concurrency: 4,
  resultReserveMs: 1_500,
  /** Page timeout bounds of the fallback crawl (the remaining budget, clamped). */
  minPageTimeoutMs: 1_000,
  maxPageTimeoutMs: 30_000,
} as const;

export interface MapWorkerOptions {
  newId?: IdGenerator;
  clock?: Clock;
  concurrency?: number;
}

export async function startMapWorker(ctx: ServiceContext, options: MapWorkerOptions = {}): Promise<RunningService> {
  const newId = options.newId ?? defaultNewId;
  const clock = options.clock ?? systemClock;
  const { config, log, payloads } = ctx;

  // Appended with `once`: a redelivered job cannot answer twice.
  const at = (event: MapRequestedEvent) => ({ kind: 'map' as const, id: event.id, part: 'job' });
  const meta = () => ({ eventId: newId(), now: clock() });
  const complete = async (event: MapRequestedEvent, data: EventData<'map_completed'>): Promise<void> => {
    await log.append(makeEvent('map_completed', at(event), data, meta()), { once: true });
  };
  const fail = async (event: MapRequestedEvent, error: TrawlError | { code: string; message: string }): Promise<void> => {
    const data = { error: { code: error.code, message: error.message }, failedAt: clock().toISOString() };
    await log.append(makeEvent('map_failed', at(event), data, meta()), { once: true });
  };

  /** True when the map already has its one answer (a redelivery after a crash). */
  const answered = async (event: MapRequestedEvent): Promise<boolean> => {
    const [completed, failed] = await Promise.all([
      log.exists({ ...at(event), event: 'map_completed' }), log.exists({ ...at(event), event: 'map_failed' }),
    ]);
    return completed || failed;
  };

  const run = async (event: MapRequestedEvent, signal: AbortSignal, logger: ServiceContext['logger']): Promise<void> => {
    if (await answered(event)) return;
    const { data } = event;
    const started = Date.now();
    const deadlineAt = Date.parse(data.requestedAt) + data.budgetMs - MAP_WORKER_DEFAULTS.resultReserveMs;
    const remainingMs = deadlineAt - clock().getTime();
    if (remainingMs <= 0) {
      return fail(event, { code: 'SERVICE_UNAVAILABLE', message: 'the map request expired before a worker could take it' });
    }
    try {
      await resolveAllowed(parseHttpUrl(data.url), config.ssrfAllowCidrs);
    } catch (err) {
      return fail(event, toTrawlError(err));
    }
    const budget = AbortSignal.any([signal, AbortSignal.timeout(remainingMs)]);
    const pageOptions = normalizeScrapeOptions({
      formats: ['links'],
      timeout: Math.min(MAP_WORKER_DEFAULTS.maxPageTimeoutMs, Math.max(MAP_WORKER_DEFAULTS.minPageTimeoutMs, remainingMs)),
    });
    const outcome = await discoverLinks(data, {
      allow: config.ssrfAllowCidrs,
      maxCrawlPages: config.mapMaxCrawlPages,
      signal: budget,
      openPageFetcher: () => MapPagePipeline.open({ nc: ctx.nc, log, logger, newId, clock }, { mapId: event.id, apiKeyId: data.apiKeyId, options: pageOptions }),
    });
    // Shutdown, not the budget, cut it short: hand the job back rather than answer half.
    if (signal.aborted) throw signal.reason;
    logger.info({
      count: outcome.links.length, sources: outcome.sources, partial: outcome.partial, sitemapsFetched: outcome.sitemapsFetched,
      pagesCrawled: outcome.pagesCrawled, sitemapErrors: outcome.sitemap?.errors.length ?? 0, ms: Date.now() - started,
    }, 'map finished');
    if (outcome.error) return fail(event, outcome.error);
    const json = JSON.stringify(outcome.links);
    const inline = Buffer.byteLength(json) <= MAP_INLINE_LINKS_MAX_BYTES;
    await complete(event, {
      ...(inline
        ? { links: outcome.links }
        : { linksRef: await payloads.putBytes(`map/${event.id}/links.json`, Buffer.from(json), 'application/json') }),
      count: outcome.links.length,
      sources: outcome.sources,
      partial: outcome.partial,
      sitemapsFetched: outcome.sitemapsFetched,
      pagesCrawled: outcome.pagesCrawled,
      durationMs: Date.now() - started,
      completedAt: clock().toISOString(),
    });
  };

  const worker = new ConsumerWorker<MapRequestedEvent>({
    js: ctx.js,
    jsm: ctx.jsm,
    logger: ctx.logger.child({ worker: 'map' }),
    durable: MAP_WORKER_DEFAULTS.durable,
    filterSubject: eventFilter('map_requested'),
    concurrency: options.concurrency ?? MAP_WORKER_DEFAULTS.concurrency,
    handlerTimeoutMs: (event) => event.data.budgetMs + 30_000,
    // A map nobody waits for any more is pointless: a new consumer does not replay old ones.
    deliverNewOnly: true,
    handle: (event, mctx) => run(event, mctx.signal, mctx.logger),
    giveUp: (event, error) => fail(event, error),
  });
  await worker.start();
  return {
    ready: async () => ({ mapWorker: worker.ready }),
    stop: () => worker.stop(),
  };
}
