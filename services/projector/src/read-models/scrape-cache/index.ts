// The scrape result cache: one small document per cache key, so a POST finds a cached
// result (or a running identical scrape to join) with one key lookup, however many jobs
// shared that key before. Cache hits and joined scrapes do not change it: only scrapes that
// load a page do. Expiry is decided at read time (CACHE_TTL_MS may change between runs).
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { ScrapeCacheDoc } from '../../../../../shared/src/infra/store/index.js';
import { inCollection, type ReadModel } from '../types.js';

function cacheKeyOf(event: StoredEvent): string | undefined {
  if (event.kind !== 'scrape') return undefined;
  switch (event.event) {
    case 'page_requested':
    case 'page_completed':
    case 'page_failed':
      return event.data.cacheKey;
    default:
      return undefined;
  }
}

export function evolve(current: ScrapeCacheDoc | null, event: StoredEvent): ScrapeCacheDoc | null {
  const key = cacheKeyOf(event);
  if (!key) return null;
  const doc: ScrapeCacheDoc = { ...(current ?? { id: key, lastSeq: 0 }), lastSeq: event.seq };
  const { running, ...rest } = doc;
  const stillRunning = running && running.jobId !== event.id ? { running } : {};
  switch (event.event) {
    case 'page_requested':
      return { ...doc, running: { jobId: event.id, createdAt: event.data.requestedAt } };
    case 'page_completed':
      if (doc.completed && doc.completed.completedAt > event.data.completedAt) return { ...rest, ...stillRunning };
      return { ...rest, ...stillRunning, completed: { jobId: event.id, completedAt: event.data.completedAt } };
    case 'page_failed':
      return { ...rest, ...stillRunning };
    default:
      return null;
  }
}

export const scrapeCacheReadModel: ReadModel<ScrapeCacheDoc> = {
  name: 'scrape-cache',
  handles: ['page_requested', 'page_completed', 'page_failed'],
  accepts: (event) => cacheKeyOf(event) !== undefined,
  ...inCollection((store) => store.scrapeCache, (event) => cacheKeyOf(event)!),
  evolve,
};
