// Pages each key had fetched per UTC day, for the console's 30-day chart. It counts what
// the monthly quota counts (key-usage): every page a browser loads for the key (a
// scrape, each crawl or batch page) and each map request; cache hits and joined identical
// scrapes count 0. Days older than 62 days before the newest are dropped.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { KeyDailyPagesDoc } from '../../../../../shared/src/infra/store/index.js';
import type { ReadModel } from '../types.js';

export const KEEP_DAYS = 62;
const DAY_MS = 24 * 3600 * 1000;

export function addPage(doc: KeyDailyPagesDoc, at: string, seq: number): KeyDailyPagesDoc {
  const day = at.slice(0, 10);
  const days = { ...doc.days, [day]: (doc.days[day] ?? 0) + 1 };
  const newest = Object.keys(days).sort().at(-1)!;
  const oldest = new Date(Date.parse(newest) - KEEP_DAYS * DAY_MS).toISOString().slice(0, 10);
  for (const d of Object.keys(days)) if (d < oldest) delete days[d];
  return { ...doc, days, lastSeq: seq };
}

export function evolve(doc: KeyDailyPagesDoc | null, event: StoredEvent): KeyDailyPagesDoc | null {
  if (!doc) return null;
  switch (event.event) {
    case 'page_requested':
      return event.kind === 'map' ? null : addPage(doc, event.data.requestedAt, event.seq);
    case 'map_requested':
      return addPage(doc, event.data.requestedAt, event.seq);
    default:
      return null;
  }
}

function keyOf(event: StoredEvent): string | null {
  return event.event === 'page_requested' || event.event === 'map_requested' ? event.data.apiKeyId : null;
}

export const keyDailyPagesReadModel: ReadModel<KeyDailyPagesDoc> = {
  name: 'key-daily-pages',
  handles: ['page_requested', 'map_requested'],
  load: async (store, event) => {
    const keyId = keyOf(event);
    return keyId ? ((await store.keyDailyPages.get(keyId)) ?? { id: keyId, days: {}, lastSeq: 0 }) : null;
  },
  save: (store, doc) => store.keyDailyPages.put(doc),
  evolve: (doc, event) => evolve(doc, event),
};
