// Scrape jobs: status, result and timings of each POST /api/v1/scrape, for GET by id and
// the caller's history. Only page events of `scrape` jobs land here (crawl pages have
// their own read model). A job's status only moves forward: PENDING -> PROCESSING ->
// COMPLETED | FAILED; the first terminal event wins, later ones are ignored.
import type { PageResultPayload, StoredEvent, Timings } from '../../../../../shared/src/domain/events/index.js';
import { pageResult, resultStoredAt } from '../../../../../shared/src/domain/reused-result.js';
import type { PageContent, ScrapeJobDoc, ScreenshotInfo } from '../../../../../shared/src/infra/store/index.js';
import { inCollection, type HydrateDeps, type ReadModel } from '../types.js';

export interface ScrapeHydrated {
  content?: PageContent;
}

const TERMINAL = new Set(['COMPLETED', 'FAILED']);

export function evolve(doc: ScrapeJobDoc | null, event: StoredEvent, hydrated: ScrapeHydrated = {}): ScrapeJobDoc | null {
  if (event.event === 'page_requested' || event.event === 'page_shared' || event.event === 'page_served_from_cache') {
    if (doc) return doc;
    const created: ScrapeJobDoc = {
      id: event.id,
      apiKeyId: event.data.apiKeyId,
      url: event.data.url,
      status: 'PENDING',
      fromCache: false,
      createdAt: event.data.requestedAt,
      options: event.data.options,
      ...(event.data.cacheKey ? { cacheKey: event.data.cacheKey } : {}),
      attempts: 0,
      lastSeq: event.seq,
    };
    if (event.event === 'page_shared') return { ...created, sourceJobId: event.data.sourceJobId };
    if (event.event === 'page_served_from_cache') {
      // The content stays with the source job (read through it): a hit is a small document.
      return {
        ...created,
        status: 'COMPLETED',
        fromCache: true,
        completedAt: event.data.requestedAt,
        sourceJobId: event.data.sourceJobId,
        resultRef: event.data.result,
        metadata: event.data.metadata,
      };
    }
    return created;
  }
  if (!doc) return null; // an event before its job: nothing to attach it to
  const next: ScrapeJobDoc = { ...doc, lastSeq: event.seq };
  if (TERMINAL.has(doc.status)) return next;
  switch (event.event) {
    case 'page_started':
      return { ...next, status: 'PROCESSING', startedAt: doc.startedAt ?? event.data.startedAt, attempts: event.data.attempt };
    case 'page_completed':
      return {
        ...next,
        status: 'COMPLETED',
        completedAt: event.data.completedAt,
        resultRef: event.data.result,
        metadata: event.data.metadata,
        // The API's timings.engine is the result's metadata.engine (the event records it once).
        timings: withEngine(event.data.timings, event.data.timings.engine ?? event.data.metadata.engine),
        ...(hydrated.content ? { content: hydrated.content } : {}),
      };
    case 'page_failed':
      return { ...next, status: 'FAILED', completedAt: event.data.failedAt, error: event.data.error };
    default:
      return next;
  }
}

async function hydrate(event: StoredEvent, deps: HydrateDeps): Promise<ScrapeHydrated> {
  if (event.event !== 'page_completed') return {};
  // A 304's page may name an older page's result (reused-result.ts): its formats and change report are the event's.
  const payload = pageResult(await deps.getJson<PageResultPayload>(event.data.result), event.data);
  // Screenshots live as long as the payloads written when the page was fetched.
  const expiresAt = new Date(Date.parse(resultStoredAt(event.data)) + deps.payloadTtlMs).toISOString();
  const shot = (s: PageResultPayload['screenshot']): ScreenshotInfo | undefined => (s ? { ...s, expiresAt } : undefined);
  const content: PageContent = {
    ...(payload.markdown !== undefined ? { markdown: payload.markdown } : {}),
    ...(payload.html !== undefined ? { html: payload.html } : {}),
    ...(payload.rawHtml !== undefined ? { rawHtml: payload.rawHtml } : {}),
    ...(payload.links !== undefined ? { links: payload.links } : {}),
    ...(payload.json !== undefined ? { json: payload.json } : {}),
    ...(payload.screenshot ? { screenshot: shot(payload.screenshot)! } : {}),
    ...(payload.actionScreenshots ? { actionScreenshots: payload.actionScreenshots.map((s) => shot(s)!) } : {}),
    ...(payload.changeTracking ? { changeTracking: payload.changeTracking } : {}),
    ...(payload.document ? { document: { ...payload.document, expiresAt } } : {}),
  };
  return { content };
}

export const scrapeJobsReadModel: ReadModel<ScrapeJobDoc, ScrapeHydrated> = {
  name: 'scrape-jobs',
  handles: ['page_requested', 'page_shared', 'page_served_from_cache', 'page_started', 'page_fetched', 'page_completed', 'page_failed'],
  accepts: (event) => event.kind === 'scrape',
  announcesStatus: true,
  ...inCollection((store) => store.scrapeJobs),
  hydrate,
  evolve,
};

function withEngine(timings: Timings, engine: Timings['engine']): Timings {
  return engine ? { ...timings, engine } : timings;
}
