// A poison verdict on the log's word, not a delivery's. A delivered body that does not
// decode is asked again of the stream's leader by its sequence (the JSON API's message get,
// leader-message-get.ts) before anyone terms or skips it: the delivery may have been spoiled
// on its way (issue 26: nats.js parsed one socket's bytes into another's messages after a
// frozen server's thaw, reader-handover.ts), and a consumer that terms a sound event on such a
// body loses it. The leader's copy is used when it decodes; it is poison only when the
// stored copy itself does not decode. When the leader cannot be asked, the NATS error is
// thrown as it came (an outage, outage.ts): the caller retries, it does not term.
import { NatsError, type NatsConnection } from 'nats';
import { decodeEvent, PoisonMessageError, type StoredEvent } from '../../domain/events/index.js';
import { STREAM_NAME } from '../subjects.js';
import { leaderMessageGet } from './leader-message-get.js';

/** How long the leader is asked for its copy (asked again each second within it). */
const CONFIRM_TIMEOUT_MS = 5_000;

/** What a delivery holds of its stored message. */
export interface DeliveredMessage { subject: string; data: Uint8Array; seq: number }

/**
 * `m` decoded; a body that does not decode is replaced by the leader's copy of sequence
 * `m.seq` when that one decodes (`garbled` is told). Throws PoisonMessageError when the log's
 * copy does not decode either (or is gone), a NATS error when the leader cannot be asked.
 */
export async function decodeConfirmed(nc: Pick<NatsConnection, 'request'>, m: DeliveredMessage, garbled?: (err: PoisonMessageError) => void): Promise<StoredEvent> {
  try {
    return decodeEvent(m.subject, m.data, m.seq);
  } catch (err) {
    if (!(err instanceof PoisonMessageError)) throw err;
    return confirmPoison(nc, m, err, garbled);
  }
}

/** The leader's copy of `m.seq` decoded, or `poison` thrown when the stored copy is poison too. */
export async function confirmPoison(nc: Pick<NatsConnection, 'request'>, m: Pick<DeliveredMessage, 'subject' | 'seq'>, poison: PoisonMessageError, garbled?: (err: PoisonMessageError) => void): Promise<StoredEvent> {
  const answer = await leaderMessageGet(nc, STREAM_NAME, { seq: m.seq }, CONFIRM_TIMEOUT_MS);
  const stored = answer.message;
  if (!stored || stored.subject !== m.subject) {
    if (answer.error && answer.error.code !== 404) {
      // A NatsError with the answer's code, as nats.js throws it: a 503 (no leader yet) is an outage.
      throw Object.assign(new NatsError(answer.error.description ?? 'message get failed', String(answer.error.code)), { api_error: answer.error });
    }
    throw poison;
  }
  const event = decodeEvent(stored.subject, stored.data ? Buffer.from(stored.data, 'base64') : new Uint8Array(0), stored.seq);
  garbled?.(poison);
  return event;
}
