// Map requests as the console lists them: map_requested makes the document (PROCESSING),
// the map worker's map_completed or map_failed ends it. A map answers its caller at once
// and keeps no other job document, so without this the console could not show a key's maps.
// Links are kept only when the event carried them inline (at most 32 KiB of JSON).
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { MapJobDoc } from '../../../../../shared/src/infra/store/index.js';
import { inCollection, type ReadModel } from '../types.js';

export function evolve(doc: MapJobDoc | null, event: StoredEvent): MapJobDoc | null {
  switch (event.event) {
    case 'map_requested':
      if (doc) return null;
      return {
        id: event.id, apiKeyId: event.data.apiKeyId, url: event.data.url, ...(event.data.search ? { search: event.data.search } : {}),
        status: 'PROCESSING', createdAt: event.data.requestedAt, lastSeq: event.seq,
      };
    case 'map_completed':
      if (!doc || doc.status !== 'PROCESSING') return null;
      return {
        ...doc, status: 'COMPLETED', completedAt: event.data.completedAt, count: event.data.count, partial: event.data.partial,
        ...(event.data.links ? { links: event.data.links } : {}), lastSeq: event.seq,
      };
    case 'map_failed':
      if (!doc || doc.status !== 'PROCESSING') return null;
      return { ...doc, status: 'FAILED', completedAt: event.data.failedAt, error: event.data.error, lastSeq: event.seq };
    default:
      return null;
  }
}

export const mapJobsReadModel: ReadModel<MapJobDoc> = {
  name: 'map-jobs',
  handles: ['map_requested', 'map_completed', 'map_failed'],
  // The map's own events (not the pages of its browser fallback).
  accepts: (event) => event.kind === 'map' && event.part === 'job',
  ...inCollection((store) => store.mapJobs),
  evolve,
};
