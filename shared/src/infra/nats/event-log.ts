// Appending to the event log is the publish: there is no other write. Two guards make
// appends idempotent under redelivery:
//   - Nats-Msg-Id: the server drops a repeat within the duplicate window;
//   - `once`: the append carries "expected last subject sequence = 0", so an event that
//     may happen only once per subject (a page fetched, a key created) is refused by the
//     server forever after the first, not only within the window.
// A third, `expectedLastSubjectSequence`, is optimistic concurrency for events that may
// repeat on a subject but must each follow the one the writer read (a key's secret
// rotations): the server refuses the append when anything was appended in between.
import { DeliverPolicy, headers as natsHeaders, NatsError, type JetStreamClient, type JetStreamManager, type JetStreamPublishOptions, type StoredMsg } from 'nats';
import { decodeEvent, encodeEvent, PoisonMessageError, type AnyEvent, type StoredEvent } from '../../domain/events/index.js';
import { confirmPoison } from './confirmed-decode.js';
import { historyFilter, partFilter, STREAM_NAME, subjectOf, type AggregateKind, type SubjectParts } from '../subjects.js';
import { orderedStart } from './ordered-start.js';
import { jsApiOf, leaderMessageGet } from './leader-message-get.js';

export interface AppendOptions {
  /** Dedup id; defaults to the subject for `once` appends and to the event id otherwise. */
  msgId?: string;
  /** Refuse the append when the subject already has an event (first writer wins). */
  once?: boolean;
  /**
   * Append only when the subject's last event is at this stream sequence (0: it has none),
   * i.e. nothing was appended since the caller read it. Otherwise AppendConflictError is
   * thrown: re-read and decide again. Not with `once` (which is this with 0, as a duplicate).
   */
  expectedLastSubjectSequence?: number;
}

export interface AppendResult {
  seq: number;
  /** True when the log already had this event: nothing new was written. */
  duplicate: boolean;
}

const WRONG_LAST_SEQUENCE = 10071;
/** A read's ordered consumer is removed by the server after this long unused, if the delete is lost. */
const READ_CONSUMER_INACTIVE_MS = 10_000;
const NO_MESSAGE_FOUND = 10037;

/** Another writer appended to the subject after the sequence the caller expected. */
export class AppendConflictError extends Error {
  constructor(readonly subject: string, readonly expectedLastSubjectSequence: number) {
    super(`${subject}: its last event is no longer at sequence ${expectedLastSubjectSequence}`);
    this.name = 'AppendConflictError';
  }
}

/** A stored message as the log's point reads use it (nats.js's, without its headers and helpers). */
type RawMessage = Pick<StoredMsg, 'subject' | 'data' | 'seq'>;

/** nats.js's direct API (implemented by its JetStreamManager, not declared on the interface). */
interface DirectGet {
  getMessage(stream: string, query: { seq: number; next_by_subj: string }): Promise<RawMessage>;
}

/** A catch-up longer than this many events is read through a consumer (see historyAfter). */
const DEFAULT_MAX_POINT_READS = 32;

/** A direct get found nothing at or after the sequence asked for. */
const isNoMessage = (err: unknown): boolean =>
  (err as { code?: string }).code === '404' || /message not found|no message found/i.test(String((err as Error).message));

const isWrongLastSequence = (err: unknown): boolean =>
  (err as { api_error?: { err_code?: number } }).api_error?.err_code === WRONG_LAST_SEQUENCE;

export class EventLog {
  /**
   * `connected` (the service's NATS connection state) lets an append whose ack timed out be
   * retried once the client has reconnected (the server it used died); without it, only a
   * stream with no leader yet is waited for.
   */
  constructor(private readonly js: JetStreamClient, private readonly jsm: JetStreamManager, private readonly connected: () => boolean = () => false) {}

  /** The last event on one exact subject, or null: a point read, no consumer needed. */
  async last(parts: SubjectParts): Promise<StoredEvent | null> {
    const m = await this.lastRaw(parts);
    return m ? decodeEvent(m.subject, m.data, m.seq) : null;
  }

  /** The event at one stream sequence, or null (none there, or deleted): a point read. */
  async atSeq(seq: number): Promise<StoredEvent | null> {
    try {
      const m = await this.jsm.streams.getMessage(STREAM_NAME, { seq });
      return decodeEvent(m.subject, m.data, m.seq);
    } catch (err) {
      if ((err as { api_error?: { err_code?: number } }).api_error?.err_code === NO_MESSAGE_FOUND || isNoMessage(err)) return null;
      throw err;
    }
  }

  /**
   * The first event on one exact subject at or after `fromSeq`, or null: a point read. For a
   * subject written once whose event is known to follow `fromSeq`, the same as `last` and far
   * cheaper to nats-server 2.9 when the subject is not in the stream's last block: its
   * last-by-subject then matches every subject of each newer block against it (tokenized), a
   * share of its CPU in an unchanged recrawl (docs/benchmarks.md), where this looks the
   * subject up in the block holding `fromSeq` and those after it.
   */
  async next(parts: SubjectParts, fromSeq: number): Promise<StoredEvent | null> {
    const m = await this.nextRawOf(subjectOf(parts), fromSeq);
    return m ? decodeEvent(m.subject, m.data, m.seq) : null;
  }

  /** Whether the subject has any event (without decoding it). */
  async exists(parts: SubjectParts): Promise<boolean> {
    return (await this.lastRaw(parts)) !== null;
  }

  /**
   * The last event of one part of an aggregate, whatever its name (a page's latest step): one
   * point read. Given an event of that part the caller holds (`known`, a delivered
   * `page_requested`), the read asks for the part's next event after it instead, and `known`
   * is the answer when there is none. The answer is the same; its cost to nats-server is not:
   * the last event on a wildcard subject has nats-server 2.9 match every subject of the
   * stream's last block (thousands: one per event) against the filter, 28% of its CPU in an
   * unchanged recrawl (a profile, docs/benchmarks.md), where the next one after a recent
   * sequence is found by looking at the few messages appended since. Both are answered by
   * the stream's leader (the JSON API, not a direct get a follower may answer behind it).
   */
  async lastOfPart(kind: AggregateKind, id: string, part: string, known?: StoredEvent): Promise<StoredEvent | null> {
    const filter = partFilter(kind, id, part);
    if (known && (await this.nextRawOf(filter, known.seq + 1)) === null) return known;
    const m = await this.lastRawOf(filter);
    return m ? decodeEvent(m.subject, m.data, m.seq) : null;
  }

  private nextRawOf(filter: string, fromSeq: number): Promise<RawMessage | null> {
    // nats-server 2.9 answers `next_by_subj` on this API too; nats.js types it for direct gets only.
    return this.leaderGet({ seq: fromSeq, next_by_subj: filter });
  }

  private lastRaw(parts: SubjectParts): Promise<RawMessage | null> {
    return this.lastRawOf(subjectOf(parts));
  }

  private lastRawOf(subject: string): Promise<RawMessage | null> {
    return this.leaderGet({ last_by_subj: subject });
  }

  /**
   * A point read answered by the stream's leader (the JSON API's message get), null when it
   * finds nothing (leader-message-get.ts: not nats.js's `streams.getMessage`, which builds
   * an error for each miss, and the fetcher's check that a page has no step past its
   * delivered `page_requested` misses on every page). Other errors are thrown as nats.js
   * throws them (a NatsError with the answer's `code` and `api_error`).
   */
  private async leaderGet(query: Record<string, unknown>): Promise<RawMessage | null> {
    const api = jsApiOf(this.jsm);
    const body = await leaderMessageGet(api.nc, STREAM_NAME, query, api.timeout, api.prefix);
    if (body.error) {
      if (body.error.err_code === NO_MESSAGE_FOUND || /no message found/i.test(body.error.description ?? '')) return null;
      // A NatsError with the answer's code, as nats.js throws it: a 503 (no leader yet) is an outage (outage.ts).
      throw Object.assign(new NatsError(body.error.description ?? 'message get failed', String(body.error.code)), { api_error: body.error });
    }
    const { subject, seq, data } = body.message!;
    return { subject, seq, data: data ? Buffer.from(data, 'base64') : new Uint8Array(0) };
  }

  async append(event: AnyEvent, opts: AppendOptions = {}): Promise<AppendResult> {
    if (opts.once && opts.expectedLastSubjectSequence !== undefined) {
      throw new Error('append: `once` and `expectedLastSubjectSequence` exclude each other');
    }
    const { subject, body } = encodeEvent(event);
    const h = natsHeaders();
    h.set('Trawl-Event', event.event);
    const expected = opts.once ? 0 : opts.expectedLastSubjectSequence;
    const publishOpts: Partial<JetStreamPublishOptions> = {
      msgID: opts.msgId ?? (opts.once ? subject : event.eventId),
      headers: h,
      expect: { streamName: STREAM_NAME, ...(expected !== undefined ? { lastSubjectSequence: expected } : {}) },
    };
    try {
      const ack = await publishThroughElection(() => this.js.publish(subject, body, publishOpts), this.connected);
      return { seq: ack.seq, duplicate: ack.duplicate };
    } catch (err) {
      if (isWrongLastSequence(err)) {
        if (opts.once) return { seq: 0, duplicate: true };
        if (expected !== undefined) throw new AppendConflictError(subject, expected);
      }
      throw err;
    }
  }

  /** Every event of one aggregate, in log order: audit replay and aggregate rehydration. */
  async history(kind: AggregateKind, id: string, fromSeq = 1): Promise<StoredEvent[]> {
    return this.read(historyFilter(kind, id), fromSeq);
  }

  /**
   * The events of one aggregate after `afterSeq`, by point reads (direct get, "next message
   * on this filter from sequence n"): no consumer is made, so catching a cached state up with
   * its few new events costs the server a lookup per event instead of a consumer's creation,
   * info, fetch and deletion (about 6x less nats-server CPU for a 5-event catch-up). Past
   * `maxPointReads` events it finishes with one consumer read, as history() does. With
   * `untilSeq`, it stops at the first event at or past that sequence (no read past the end
   * to learn it is the end: that read misses, an error built on both sides).
   *
   * `knownSeqs`: sequences of the aggregate's events the caller knows are there (its own
   * appends, the events it was delivered), ascending, past `afterSeq`, up to `untilSeq`. The
   * reads "next from afterSeq + 1" and "next from each known one + 1" are then sent at once
   * (one socket write each way instead of one round trip per event); each answer that is the
   * known event expected confirms nothing lies between. The first that is not (an event the
   * caller did not know of) ends the batch, and the reads go on one by one from there.
   */
  async historyAfter(kind: AggregateKind, id: string, afterSeq: number, maxPointReads = DEFAULT_MAX_POINT_READS, untilSeq = Number.POSITIVE_INFINITY, knownSeqs: readonly number[] = []): Promise<StoredEvent[]> {
    const filter = historyFilter(kind, id);
    const events: StoredEvent[] = [];
    let seq = afterSeq + 1;
    const known = knownSeqs.filter((k) => k > afterSeq && k <= untilSeq).slice(0, maxPointReads);
    if (known.length > 1) {
      const answers = await Promise.all([afterSeq, ...known.slice(0, -1)].map((from) => this.directNext(filter, from + 1)));
      for (const [i, m] of answers.entries()) {
        if (!m) return events; // none at or past it: the log has nothing more
        events.push(await this.decodeDelivered(m));
        seq = m.seq + 1;
        if (m.seq !== known[i]) break;
      }
    }
    while (events.length < maxPointReads) {
      if (seq > untilSeq) return events;
      const m = await this.directNext(filter, seq);
      if (!m) return events;
      events.push(await this.decodeDelivered(m));
      seq = m.seq + 1;
    }
    return [...events, ...(await this.read(filter, seq))];
  }

  /** The first event on a filter at or after `seq` (a direct get), or null. */
  private async directNext(filter: string, seq: number): Promise<RawMessage | null> {
    try {
      // The manager has `direct` (nats.js marks it experimental and leaves it off the interface).
      return await (this.jsm as JetStreamManager & { direct: DirectGet }).direct.getMessage(STREAM_NAME, { seq, next_by_subj: filter });
    } catch (err) {
      if (isNoMessage(err)) return null;
      throw err;
    }
  }

  /**
   * A delivered or direct-get message decoded; one that does not decode is poison only when
   * the leader's copy does not either (confirmed-decode.ts): a replica's answer or a delivery
   * spoiled on its way is not taken for the log's.
   */
  private decodeDelivered(m: RawMessage): StoredEvent | Promise<StoredEvent> {
    try {
      return decodeEvent(m.subject, m.data, m.seq);
    } catch (err) {
      if (!(err instanceof PoisonMessageError)) throw err;
      return confirmPoison(jsApiOf(this.jsm).nc, m, err);
    }
  }

  /** Reads the events matching a subject filter from `fromSeq` on, in order (at most `maxEvents`). */
  async read(filter: string, fromSeq = 1, maxEvents = Number.POSITIVE_INFINITY): Promise<StoredEvent[]> {
    const consumer = await this.js.consumers.get(STREAM_NAME, {
      filterSubjects: filter,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, fromSeq),
      inactive_threshold: READ_CONSUMER_INACTIVE_MS,
    });
    try {
      const events: StoredEvent[] = [];
      // Bounded: a create nats-server placed on a frozen server waits for its thaw (ordered-start.ts).
      let pending = (await orderedStart(consumer.info(), consumer, () => void consumer.delete().catch(() => undefined))).num_pending;
      while (pending > 0 && events.length < maxEvents) {
        const batch = await consumer.fetch({ max_messages: Math.min(pending, 500, maxEvents - events.length), expires: 2000 });
        let got = 0;
        for await (const m of batch) {
          events.push(await this.decodeDelivered(m));
          pending = m.info.pending;
          got++;
          if (pending === 0 || events.length >= maxEvents) break;
        }
        if (got === 0) break;
      }
      return events;
    } finally {
      // The client leaves an ordered consumer on the server for 5 minutes after its last use.
      // Reads are frequent (the frontier catches a crawl up on each of its page events), and
      // every live consumer costs nats-server memory and a filter match on every append:
      // thousands of them made nats-server the second CPU user of a crawl. Deleted at once
      // (not awaited), with a short inactivity threshold as the backstop.
      void consumer.delete().catch(() => undefined);
    }
  }
}

/** How long an append keeps trying while the stream has no leader (a cluster electing one). */
export const APPEND_ELECTION_ALLOWANCE_MS = 20_000;

/**
 * A publish retried while the stream cannot answer: no leader yet (503, no responders) or
 * an ack that never came (the leader died with the message maybe stored). The same message
 * id each time, so a message that was stored is acknowledged as a duplicate, never stored
 * twice. Without this, work done just before a leader died (a page fetched) would be
 * thrown away with the failed append and done again on redelivery.
 */
async function publishThroughElection<T>(publish: () => Promise<T>, connected: () => boolean): Promise<T> {
  const deadline = Date.now() + APPEND_ELECTION_ALLOWANCE_MS;
  for (let delayMs = 250; ; delayMs = Math.min(2_000, delayMs * 2)) {
    try {
      return await publish();
    } catch (err) {
      const e = err as { code?: string; message?: string };
      // A timeout while disconnected fails at once: the caller answers "NATS is down".
      const noLeader = e?.code === '503' || /no responders|temporarily unavailable/i.test(e?.message ?? '');
      const transient = noLeader || (e?.code === 'TIMEOUT' && connected());
      if (!transient || Date.now() + delayMs > deadline) throw err;
      await new Promise((r) => setTimeout(r, delayMs));
    }
  }
}
