// One reader of the log for every partition a projector process folds. Each partition
// (partitions.ts) keeps its own models, checkpoint, notices and lease, but they all read
// the whole log in order: one ordered consumer per partition had nats-server deliver every
// event once per partition (three times on one replica holding all three, where the
// `accounts` and `charts` models handle a few event kinds: nats-server 2.9 filters a
// consumer by one subject, which cannot name theirs). The reader starts where the least
// advanced member stands; a member passes what it already applied (each document's
// `lastSeq` and the forward-only checkpoints make a replay harmless). A change of members
// (a lease won or lost) restarts it from there.
// The stream holds only events (`trawl.>`) and loses none in its middle (only the oldest age
// out), so a read that jumps a sequence skipped one: an ordered consumer placed on a replica
// still catching up after a thaw can be handed later events before an earlier one arrives
// there (the chaos drill: a crawl COMPLETED with 199 of its 200 pages in the results). A
// jump is checked with the stream's leader (the first event at or after the one expected);
// one it holds is a hole, and the read starts again from there, placed anew.
import { setTimeout as sleep } from 'node:timers/promises';
import { DeliverPolicy, type Consumer, type ConsumerMessages, type JetStreamClient, type JsMsg } from 'nats';
import { decodeEvent, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { Logger } from '../../../shared/src/infra/logger.js';
import { jsApiOf, leaderMessageGet } from '../../../shared/src/infra/nats/leader-message-get.js';
import { orderedStart } from '../../../shared/src/infra/nats/ordered-start.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';
import { ALL_EVENTS, STREAM_NAME, parseSubject } from '../../../shared/src/infra/subjects.js';
import { madeOnce } from '../../../shared/src/infra/made-once.js';

/** Messages the ordered consumer asks for at a time. */
const READ_BATCH = 512;
/**
 * How long one pull of the ordered consumer lasts. nats.js also waits about this long (half
 * to one and a half times) before it asks again for a consumer whose create failed: at its
 * default of 30 s, a create that met a frozen server left a partition just taken reading
 * nothing for 15-45 s after the others had elected new leaders.
 */
const READ_PULL_EXPIRES_MS = 2_000;
/** Pauses between starts that met a NATS outage (the stream's leader or the meta leader frozen). */
const START_PAUSE_MS = { first: 250, most: 2_000 };
/**
 * How long a restart waits for the previous read to end (an event whose store write is
 * retried in place); the members take one event at a time, so a late one cannot overlap.
 */
const HALT_WAIT_MS = 5_000;
/** The pause before a read that skipped an event starts again (the replica may still be catching up). */
const HOLE_RESTART_MS = 1_000;

/** One delivered event, decoded at most once whatever the number of members handling it. */
export interface Delivery {
  seq: number;
  subject: string;
  /** The event's name, from its subject (undefined: not a Trawl subject). */
  named: string | undefined;
  /** Throws PoisonMessageError for an undecodable event. */
  decode(): StoredEvent;
}

/** What the reader needs of a partition's projector (projector.ts). */
export interface ReaderMember {
  /** Highest sequence this member has applied or passed: the reader starts after the least of them. */
  readonly appliedSeq: number;
  /** Applies or passes one event; events at or below `appliedSeq` are passed at once. */
  take(delivery: Delivery): Promise<void>;
  /** Announces and checkpoints what is applied (the reader's end). */
  settle(): Promise<void>;
}

export class ProjectionReader {
  private messages: ConsumerMessages | undefined;
  private consumer: Consumer | undefined;
  private loop: Promise<void> | undefined;
  private members: readonly ReaderMember[] = [];
  /** Member changes and stops, one at a time. */
  private changes: Promise<void> = Promise.resolve();
  /** Counts read() calls: a start retried through an outage gives way to a later one. */
  private generation = 0;

  constructor(private readonly js: JetStreamClient, private readonly logger: Logger) {}

  /** Reads for `members` from now on (none: stops reading). */
  read(members: readonly ReaderMember[]): Promise<void> {
    const generation = ++this.generation;
    const next = this.changes.then(async () => {
      await this.halt();
      this.members = [...members];
      if (this.members.length) await this.beginThroughOutages(generation);
    });
    this.changes = next.catch(() => undefined);
    return next;
  }

  stop(): Promise<void> {
    return this.read([]);
  }

  /**
   * Starts reading, again after a pause while NATS is unavailable (the stream's info or the
   * consumer's create unanswered: a frozen leader, a consumer placed on a frozen server),
   * until a later read() replaces this one.
   * Before, a start that met an outage was tried again by the watchdog, 30 s or more later.
   */
  private async beginThroughOutages(generation: number): Promise<void> {
    for (let pauseMs = START_PAUSE_MS.first; ; pauseMs = Math.min(START_PAUSE_MS.most, pauseMs * 2)) {
      try {
        return await this.begin();
      } catch (err) {
        if (!isNatsOutage(err) || generation !== this.generation) throw err;
        this.logger.warn({ err: String(err), pauseMs }, 'projector reader could not start; trying again');
        await sleep(pauseMs);
        if (generation !== this.generation) return; // a later read() starts instead
      }
    }
  }

  private async begin(): Promise<void> {
    const from = Math.min(...this.members.map((m) => m.appliedSeq)) + 1;
    const consumer = await this.js.consumers.get(STREAM_NAME, {
      filterSubjects: ALL_EVENTS,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: from,
    });
    // Bounded: a create nats-server placed on a frozen server waits for its thaw (ordered-start.ts).
    const messages = await orderedStart(consumer.consume({ max_messages: READ_BATCH, expires: READ_PULL_EXPIRES_MS }), consumer, (late) => {
      late.stop();
      void consumer.delete().catch(() => undefined);
    });
    this.consumer = consumer;
    this.messages = messages;
    this.loop = this.run(messages, this.members, from, this.generation);
    this.logger.info({ from, members: this.members.length }, 'projector reading the log');
  }

  private async halt(): Promise<void> {
    const { messages, consumer } = this;
    this.messages = undefined;
    this.consumer = undefined;
    // Not awaited: a close resolves once the loop takes its next message, and the loop may be
    // in a member's take, waiting for its lease to be renewed (by the lease loop that may be
    // the one restarting this reader).
    messages?.stop();
    // Else left on the server for its inactivity threshold, matched against every append.
    void consumer?.delete().catch(() => undefined);
    const ended = this.loop?.catch((err) => this.logger.warn({ err: String(err) }, 'projector reader ended with an error'));
    this.loop = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([ended, new Promise((r) => { timer = setTimeout(r, HALT_WAIT_MS); })]);
    clearTimeout(timer);
  }

  private async run(messages: ConsumerMessages, members: readonly ReaderMember[], from: number, generation: number): Promise<void> {
    let expected = from;
    for await (const m of messages) {
      if (this.messages !== messages) break;
      if (m.seq > expected && await this.holeAt(expected, m.seq)) {
        this.logger.warn({ expected, delivered: m.seq }, 'projector read skipped an event the stream holds; reading again from it');
        messages.stop();
        void sleep(HOLE_RESTART_MS).then(() => {
          if (generation === this.generation) void this.read(members).catch(() => undefined);
        });
        break;
      }
      expected = m.seq + 1;
      const delivery = deliveryOf(m);
      for (const member of members) await member.take(delivery);
    }
    for (const member of members) await member.settle();
  }

  /** Whether the stream's leader holds an event from `seq` on, before `before` (unsure: yes). */
  private async holeAt(seq: number, before: number): Promise<boolean> {
    try {
      const api = jsApiOf(await this.manager());
      const answer = await leaderMessageGet(api.nc, STREAM_NAME, { seq, next_by_subj: ALL_EVENTS }, api.timeout, api.prefix);
      return answer.message !== undefined && answer.message.seq < before;
    } catch {
      return true;
    }
  }

  private readonly manager = madeOnce(() => this.js.jetstreamManager());
}

function deliveryOf(m: JsMsg): Delivery {
  let decoded: StoredEvent | undefined;
  return {
    seq: m.seq,
    subject: m.subject,
    named: parseSubject(m.subject)?.event,
    decode: () => (decoded ??= decodeEvent(m.subject, m.data, m.seq)),
  };
}
