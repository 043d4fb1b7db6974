// Appending what a decider decided, with the concurrency rule of each event
// (docs/architecture.md "Idempotency"): an event that happens once per subject is a `once`
// append; a repeating one carries its subject's last sequence as the writer read it. Null
// when another writer got in first (a duplicate or a conflict): re-read and decide again.
import { makeEvent, type AnyEvent, type EventName, type StoredEvent } from './events/index.js';
import { newId } from '../infra/ids.js';
import { AppendConflictError, type EventLog } from '../infra/nats/event-log.js';
import type { AggregateKind } from '../infra/subjects.js';

export async function appendDecision(
  log: EventLog,
  at: { kind: AggregateKind; id: string },
  emitted: readonly { part: string; event: string; data: unknown }[],
  history: readonly StoredEvent[],
  opts: { once: (event: string) => boolean; now: Date },
): Promise<number | null> {
  let seq = 0;
  for (const e of emitted) {
    const event = makeEvent(e.event as EventName, { ...at, part: e.part }, e.data as never, { eventId: newId(), now: opts.now }) as AnyEvent;
    try {
      const result = opts.once(e.event)
        ? await log.append(event, { once: true })
        : await log.append(event, { expectedLastSubjectSequence: history.findLast((h) => h.event === e.event)?.seq ?? 0 });
      if (result.duplicate) return null;
      seq = result.seq;
    } catch (err) {
      if (err instanceof AppendConflictError) return null;
      throw err;
    }
  }
  return seq;
}
