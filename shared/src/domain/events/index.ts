// The event contract: every event type of the log as a TypeBox schema, the envelope that
// carries it, and the encode/decode pair every producer and consumer goes through.
// Consumers validate on decode: a message that does not match its schema is poison and is
// terminated rather than half-processed.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { parseSubject, subjectOf, type AggregateKind } from '../../infra/subjects.js';
import { accountEvents } from './account.js';
import { apiKeyEvents } from './apikey.js';
import { jobEvents } from './job.js';
import { mapEvents } from './map.js';
import { observationEvents } from './observation.js';
import { pageEvents } from './page.js';
import { recrawlEvents } from './recrawl.js';
import { monitorEvents } from './monitor.js';

export * from './common.js';
export * from './page.js';
export * from './apikey.js';
export * from './account.js';
export * from './observation.js';
export * from './recrawl.js';
export * from './monitor.js';

/** Every event type of the log. New aggregates add their map here. */
export const EVENT_SCHEMAS = {
  ...pageEvents,
  ...apiKeyEvents,
  ...jobEvents,
  ...mapEvents,
  ...accountEvents,
  ...observationEvents,
  ...recrawlEvents,
  ...monitorEvents,
} as const satisfies Record<string, TSchema>;

export type EventName = keyof typeof EVENT_SCHEMAS;
export type EventData<N extends EventName> = Static<(typeof EVENT_SCHEMAS)[N]>;

export interface TrawlEvent<N extends EventName = EventName> {
  kind: AggregateKind;
  /** Aggregate (job or key) id. */
  id: string;
  /** `job`, a page key, `key`, `webhook`. */
  part: string;
  event: N;
  eventId: string;
  occurredAt: string;
  data: EventData<N>;
}

/** Discriminated union over `event`, so `switch (e.event)` narrows `e.data`. */
export type AnyEvent = { [N in EventName]: TrawlEvent<N> }[EventName];

/** An event as read back from the stream. */
export type StoredEvent = AnyEvent & { seq: number };

const checkers = new Map<string, TypeCheck<TSchema>>(
  Object.entries(EVENT_SCHEMAS).map(([name, schema]) => [name, TypeCompiler.Compile(schema as TSchema)]),
);

export class PoisonMessageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PoisonMessageError';
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function isEventName(name: string): name is EventName {
  return checkers.has(name);
}

export function validateEventData(name: EventName, data: unknown): void {
  const check = checkers.get(name)!;
  if (!check.Check(data)) {
    const first = check.Errors(data).First();
    throw new PoisonMessageError(`${name}: ${first ? `${first.path || '/'} ${first.message}` : 'invalid'}`);
  }
}

export function encodeEvent(event: AnyEvent): { subject: string; body: Uint8Array } {
  validateEventData(event.event, event.data);
  const subject = subjectOf({ kind: event.kind, id: event.id, part: event.part, event: event.event });
  const body = encoder.encode(JSON.stringify({ eventId: event.eventId, occurredAt: event.occurredAt, data: event.data }));
  return { subject, body };
}

export function decodeEvent(subject: string, body: Uint8Array, seq: number): StoredEvent {
  const parts = parseSubject(subject);
  if (!parts) throw new PoisonMessageError(`subject "${subject}" is not a Trawl event subject`);
  if (!isEventName(parts.event)) throw new PoisonMessageError(`unknown event type "${parts.event}"`);
  let envelope: { eventId?: unknown; occurredAt?: unknown; data?: unknown };
  try {
    envelope = JSON.parse(decoder.decode(body));
  } catch {
    throw new PoisonMessageError(`${subject}: body is not JSON`);
  }
  if (typeof envelope.eventId !== 'string' || typeof envelope.occurredAt !== 'string') {
    throw new PoisonMessageError(`${subject}: envelope lacks eventId or occurredAt`);
  }
  validateEventData(parts.event, envelope.data);
  return {
    ...parts,
    event: parts.event,
    eventId: envelope.eventId,
    occurredAt: envelope.occurredAt,
    data: envelope.data,
    seq,
  } as StoredEvent;
}

/** Builds an event with a fresh id and the clock's time; ids and clock come from the edge. */
export function makeEvent<N extends EventName>(
  event: N,
  at: { kind: AggregateKind; id: string; part: string },
  data: EventData<N>,
  meta: { eventId: string; now: Date },
): TrawlEvent<N> {
  return { ...at, event, data, eventId: meta.eventId, occurredAt: meta.now.toISOString() };
}
