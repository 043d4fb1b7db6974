// GET /<kind>/:id/events: a job's own events from the log, paged by stream sequence.
import { Type, type Static } from '@sinclair/typebox';

export const EventsQuery = Type.Object(
  {
    after: Type.Integer({ minimum: 0, default: 0, description: 'stream sequence to continue after (the `next` link carries it)' }),
    limit: Type.Integer({ minimum: 1, maximum: 1000, default: 500 }),
  },
  { additionalProperties: false },
);
export type EventsQuery = Static<typeof EventsQuery>;

export const EventView = Type.Object({
  seq: Type.Integer(),
  event: Type.String(),
  part: Type.String(),
  occurredAt: Type.String(),
  data: Type.Unknown(),
});
export type EventView = Static<typeof EventView>;

export const EventsView = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  events: Type.Array(EventView),
  next: Type.Optional(Type.String()),
});
export type EventsView = Static<typeof EventsView>;
