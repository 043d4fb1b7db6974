// What a job's events show their owner (GET /api/v1/<kind>/:id/events and the console's
// timeline): the event data minus what is internal to the pipeline. A scrape served from
// the cache, or sharing the load of an identical running scrape, is recorded against the
// job that made the result, and that job may be another tenant's: its id (`sourceJobId`,
// `sourcePart`), the cache key both share (`cacheKey`), and the Object Store names of the
// payloads it wrote (`scrape/<its id>/...`) stay in the log for the services and never
// reach a response. Payload references keep their size and content type.
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';

/** Top-level data fields that name another job or the shared cache entry. */
const INTERNAL_FIELDS = new Set(['cacheKey', 'sourceJobId', 'sourcePart']);
/** Payload references sit at most this deep (result, rawHtml, document.ref, screenshots[].ref). */
const REF_DEPTH = 3;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A PayloadRef's fields (`chunk` only where the store wrote one chunk). */
const REF_FIELDS = new Set(['bucket', 'name', 'size', 'contentType', 'chunk']);

function isPayloadRef(v: Record<string, unknown>): boolean {
  const keys = Object.keys(v);
  return keys.length >= 4 && keys.every((k) => REF_FIELDS.has(k)) && (v.chunk === undefined || isRecord(v.chunk)) && typeof v.bucket === 'string' && typeof v.name === 'string' && typeof v.size === 'number' && typeof v.contentType === 'string';
}

function withoutRefNames(value: unknown, depth: number): unknown {
  if (depth > REF_DEPTH) return value;
  if (Array.isArray(value)) return value.map((v) => withoutRefNames(v, depth + 1));
  if (!isRecord(value)) return value;
  if (isPayloadRef(value)) return { size: value.size, contentType: value.contentType };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutRefNames(v, depth + 1)]));
}

/** The event's data as its job's owner may see it. */
export function publicEventData(event: { data: unknown }): unknown {
  if (!isRecord(event.data)) return event.data;
  const kept: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(event.data)) {
    if (INTERNAL_FIELDS.has(k)) continue;
    // A job's options are the caller's own input: shown as given, never rewritten.
    kept[k] = k === 'options' ? v : withoutRefNames(v, 1);
  }
  return kept;
}

/** The event with its data made public (for renderers that take whole events). */
export const publicEvent = <E extends StoredEvent>(event: E): E => ({ ...event, data: publicEventData(event) } as E);
