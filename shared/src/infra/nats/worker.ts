// The worker loop every work consumer runs (fetcher, transformer, frontier, dispatcher):
//   - a durable pull consumer with explicit acks, shared by all replicas (work-queue
//     semantics on the limits-retention log: exactly one replica holds a message);
//   - bounded concurrency: it pulls only as many messages as it has free slots;
//   - a fresh AbortSignal per message, aborted at the handler deadline or on shutdown; a
//     handler deaf to its deadline is abandoned `abandonAfterMs` later (its slot freed, its
//     heartbeat stopped, the message settled as a handler that ended at its deadline would
//     be): before, one that never returned kept its message alive by heartbeat, unseen by
//     every other replica, for good (a shutdown still waits for its handlers: one may be
//     appending a page it loaded, and a message handed back early would load it again);
//   - `working()` heartbeats while a handler runs, so a long page is not redelivered;
//   - outcomes decided by `ackDecision`: ack, nak with backoff, or give up (the handler's
//     `giveUp` records a failure event so the job ends FAILED) and term;
//   - a NATS outage (an election, a server cut off: outage.ts) runs the handler again in place
//     for up to `outageRetryMs` instead of counting as a failed attempt, so a page does not
//     end FAILED because the cluster was electing a leader while it was being worked on;
//   - a redelivery of a message this process is still handling (its ack or heartbeats were
//     lost with a consumer's leader, or its appends wait out an outage) waits for that
//     delivery to end before its handler runs: the handler then finds the work done;
//   - a copy of a message it settled, sent again as new (nats-server 2.9), is acked unrun;
//   - graceful drain: stop pulling, let in-flight work finish within a grace period, then
//     abort the rest and nak them so another replica takes them at once;
//   - re-drive: a message its consumer let go of without its work done (nats-server 2.9 can
//     skip one for good around a leader change; redrive-sweep.ts) is asked for again by a
//     sweep on core NATS (redriveSubject, a queue group per consumer), read from the stream
//     by its sequence and handled as a delivery whose settling is a no-op.
import { AckPolicy, DeliverPolicy, nanos, type Consumer, type JetStreamClient, type JetStreamManager, type JsMsg, type Subscription } from 'nats';
import { ackDecision, toTrawlError, type TrawlError } from '../../domain/errors.js';
import { consumerMetrics } from '../metrics.js';
import { isNatsOutage } from './outage.js';
import { PoisonMessageError, type StoredEvent } from '../../domain/events/index.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeConfirmed } from './confirmed-decode.js';
import type { Logger } from '../logger.js';
import { redriveSubject, STREAM_NAME, subjectMatches } from '../subjects.js';
import { DEFAULT_STOP_GRACE_MS } from '../config.js';
import { jsApiOf } from './leader-message-get.js';
import { SettledSequences } from './settled-sequences.js';

export interface MessageContext {
  signal: AbortSignal;
  /** 1 on the first delivery. */
  deliveryCount: number;
  /** Tells JetStream the message is still being worked on (also sent automatically). */
  working(): void;
  logger: Logger;
}

export interface WorkerOptions<E extends StoredEvent = StoredEvent> {
  js: JetStreamClient;
  jsm: JetStreamManager;
  logger: Logger;
  /** Durable consumer name, shared by all replicas of the service. */
  durable: string;
  filterSubject: string;
  concurrency: number;
  /** How long JetStream waits for an ack before redelivering (heartbeats extend it). */
  ackWaitMs?: number;
  /** Attempts before giving up; a message that crashed its worker this often is given up unrun. */
  maxDeliver?: number;
  /** How long one delivery keeps running its handler again through a NATS outage. */
  outageRetryMs?: number;
  /** Hard deadline of one handler run. */
  handlerTimeoutMs?: number | ((event: E) => number);
  /** How long stop() lets in-flight messages finish before it aborts them and hands them back (STOP_GRACE_MS). */
  stopGraceMs?: number;
  /** How long a handler whose deadline passed may take to end before it is abandoned (not on shutdown). */
  abandonAfterMs?: number;
  /** Where a brand-new consumer starts: all history (default) or only new events. */
  deliverNewOnly?: boolean;
  /** Where a brand-new consumer starts instead: this stream sequence (taking over from another consumer). */
  startSeq?: number;
  /**
   * Events the handler has nothing to do with, known from the subject (a consumer of a
   * whole aggregate's subjects that reacts to a few of them): acked as they come, not
   * decoded, no slot taken.
   */
  ignores?(subject: string): boolean;
  /**
   * Wait for the server to confirm each ack (asked again through an election), for consumers
   * whose redelivery would repeat an effect outside the log (asking a site, posting a
   * webhook). Others take a plain ack: a redelivery after a lost one finds its work done.
   */
  confirmAcks?: boolean;
  handle(event: E, ctx: MessageContext): Promise<void>;
  /** Records the final failure of a message (for example a page_failed event). */
  giveUp?(event: E, error: TrawlError, ctx: MessageContext): Promise<void>;
}

// The outage allowance covers an election (a few seconds) and a server cut off until its
// peers notice (nats-server's defaults: about 10-20 s), with room to spare.
const DEFAULTS = { ackWaitMs: 30_000, maxDeliver: 4, handlerTimeoutMs: 120_000, graceMs: DEFAULT_STOP_GRACE_MS, outageRetryMs: 60_000, abandonAfterMs: 5_000 };
/** An ack's confirmation: how long one ask waits for it, and the pauses between asks. */
const ACK_RETRY_MS = { answer: 3_000, first: 250, most: 2_000 };
/** Pauses between in-place runs through an outage: 0.5 s doubling to 5 s. */
const OUTAGE_PAUSE_MS = { first: 500, most: 5_000 };

/** What the worker uses of a delivered message: a JetStream delivery, or a re-drive (settling it is a no-op). */
type Delivery = Pick<JsMsg, 'subject' | 'data' | 'seq' | 'working' | 'ack' | 'nak' | 'term' | 'ackAck'> & { info: { redeliveryCount: number } };
/** A re-drive request (redriveSubject): the stream sequence of the message to handle again. */
export interface RedriveRequest { seq: number }

export class ConsumerWorker<E extends StoredEvent = StoredEvent> {
  private stopping = false;
  private readonly inFlight = new Map<Delivery, AbortController>();
  private redrives: Subscription | undefined;
  /** The delivery of each stream sequence being handled here (a redelivery waits for it). */
  private readonly handling = new Map<number, Promise<void>>();
  private readonly settled = new SettledSequences(); // acked or termed here
  private slotFreed: (() => void) | undefined;
  private loop: Promise<void> | undefined;
  private readonly opts: Required<Pick<WorkerOptions<E>, 'ackWaitMs' | 'maxDeliver' | 'handlerTimeoutMs' | 'outageRetryMs' | 'abandonAfterMs'>> & WorkerOptions<E>;
  ready = false; // set once the consumer exists and the loop is pulling
  private readonly labels: { consumer: string };

  constructor(options: WorkerOptions<E>) {
    this.opts = { ...DEFAULTS, ...options };
    this.labels = { consumer: options.durable };
  }

  async start(): Promise<void> {
    const { jsm, durable, filterSubject, ackWaitMs } = this.opts;
    const config = {
      durable_name: durable,
      ack_policy: AckPolicy.Explicit,
      filter_subject: filterSubject,
      ack_wait: nanos(ackWaitMs),
      // Unlimited at the server: the worker itself gives up after maxDeliver and records
      // why, so a message that keeps crashing its worker still ends its job as FAILED.
      max_deliver: -1,
      max_ack_pending: 10_000,
      ...(this.opts.startSeq !== undefined && this.opts.startSeq > 1
        ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.opts.startSeq }
        : { deliver_policy: this.opts.deliverNewOnly ? DeliverPolicy.New : DeliverPolicy.All }),
    };
    try {
      await jsm.consumers.info(STREAM_NAME, durable);
      await jsm.consumers.update(STREAM_NAME, durable, { ack_wait: config.ack_wait, max_ack_pending: config.max_ack_pending });
    } catch {
      try {
        await jsm.consumers.add(STREAM_NAME, config);
      } catch (err) {
        if (!/already (in use|exists)/i.test(String((err as Error).message))) throw err;
      }
    }
    this.loop = this.pullLoop();
    this.listenForRedrives();
    this.ready = true;
  }

  /** One replica of the service takes each re-drive of this consumer's messages (a queue group). */
  private listenForRedrives(): void {
    const { js, durable, logger } = this.opts;
    this.redrives = jsApiOf(js).nc.subscribe(redriveSubject(durable), {
      queue: durable,
      callback: (err, msg) => {
        if (err || this.stopping) return;
        let seq: number;
        try { seq = msg.json<RedriveRequest>().seq; } catch { return; }
        if (!Number.isSafeInteger(seq) || seq < 1) return;
        this.redrive(seq).catch((e) => logger.warn({ seq, err: String(e) }, 're-drive failed; the next sweep asks again'));
      },
    });
  }

  /**
   * Handles the stream's message at `seq` again, as a delivery (unless one of it is being
   * handled here): its consumer let it go without its work done. Nothing to ack, nak or
   * term: a failure that a redelivery would retry waits for the next sweep.
   */
  async redrive(seq: number): Promise<void> {
    if (this.handling.has(seq) || this.stopping) return;
    const stored = await this.opts.jsm.streams.getMessage(STREAM_NAME, { seq });
    if (!subjectMatches(this.opts.filterSubject, stored.subject) || this.handling.has(seq)) return;
    this.opts.logger.warn({ seq, subject: stored.subject }, 'handling a message its consumer let go of without its work done (re-drive)');
    const none = (): void => undefined;
    this.dispatch({ subject: stored.subject, data: stored.data, seq, info: { redeliveryCount: 1 }, working: none, ack: none, nak: none, term: none, ackAck: () => Promise.resolve(true) });
  }

  private get freeSlots(): number {
    return this.opts.concurrency - this.inFlight.size;
  }

  private async pullLoop(): Promise<void> {
    // Looked up inside the retry: a lookup that met an outage just after start (the
    // consumer's leader frozen) once ended the loop for good, its rejection unhandled.
    let consumer: Consumer | undefined;
    while (!this.stopping) {
      if (this.freeSlots <= 0) {
        await new Promise<void>((resolve) => { this.slotFreed = resolve; });
        continue;
      }
      try {
        consumer ??= await this.opts.js.consumers.get(STREAM_NAME, this.opts.durable);
        const batch = await consumer.fetch({ max_messages: this.freeSlots, expires: 1000 });
        for await (const msg of batch) {
          if (this.stopping) { msg.nak(); continue; }
          const ignored = this.opts.ignores?.(msg.subject);
          if (ignored || this.settled.has(msg.seq)) {
            msg.ack();
            consumerMetrics.handled().inc({ ...this.labels, outcome: ignored ? 'ignored' : 'duplicate' });
            continue;
          }
          this.dispatch(msg);
        }
      } catch (err) {
        if (this.stopping) break;
        this.opts.logger.warn({ err: String(err) }, 'fetch from consumer failed; retrying');
        await sleep(500);
      }
    }
  }

  private dispatch(msg: Delivery): void {
    const controller = new AbortController();
    this.inFlight.set(msg, controller);
    consumerMetrics.inFlight().inc(this.labels);
    // The promise is tracked in inFlight and awaited by stop(); it never rejects.
    const run = this.process(msg, controller, this.handling.get(msg.seq)).finally(() => {
      if (this.handling.get(msg.seq) === run) this.handling.delete(msg.seq);
      this.inFlight.delete(msg);
      consumerMetrics.inFlight().dec(this.labels);
      this.slotFreed?.();
      this.slotFreed = undefined;
    });
    this.handling.set(msg.seq, run);
  }

  private async process(msg: Delivery, controller: AbortController, earlier: Promise<void> | undefined): Promise<void> {
    const endTimer = consumerMetrics.duration().startTimer(this.labels);
    const outcome = await this.handleDelivery(msg, controller, earlier);
    if (outcome === 'ack' || outcome === 'gave_up' || outcome === 'poison') this.settled.add(msg.seq);
    endTimer();
    consumerMetrics.handled().inc({ ...this.labels, outcome });
  }

  /** Handles one delivery and settles it; returns what was done, for the metrics. */
  private async handleDelivery(msg: Delivery, controller: AbortController, earlier: Promise<void> | undefined): Promise<Outcome> {
    const { logger: baseLogger, maxDeliver, ackWaitMs } = this.opts;
    const deliveryCount = msg.info.redeliveryCount;
    if (deliveryCount > 1) consumerMetrics.redelivered().inc(this.labels);
    let event: E;
    try {
      event = await decodeConfirmed(jsApiOf(this.opts.jsm).nc, msg, (err) => baseLogger.warn({ subject: msg.subject, seq: msg.seq, err: err.message }, 'delivered body did not decode; handled from the log\'s copy')) as E;
    } catch (err) {
      const poison = err instanceof PoisonMessageError; // on the log's word (confirmed-decode.ts); else retried, never termed on a guess
      baseLogger[poison ? 'error' : 'warn']({ subject: msg.subject, seq: msg.seq, err: String(err) }, poison ? 'poison message terminated' : 'undecodable delivery not yet confirmed by the log; retrying');
      if (poison) msg.term(err.message); else msg.nak(1_000);
      return poison ? 'poison' : 'retry';
    }
    const logger = baseLogger.child({ jobId: event.id, part: event.part, event: event.event, seq: msg.seq, delivery: deliveryCount });
    const ctx: MessageContext = { signal: controller.signal, deliveryCount, working: () => msg.working(), logger };
    const heartbeat = setInterval(() => msg.working(), Math.max(1000, Math.floor(ackWaitMs / 3)));
    const timeoutMs = typeof this.opts.handlerTimeoutMs === 'function' ? this.opts.handlerTimeoutMs(event) : this.opts.handlerTimeoutMs;
    const deadline = setTimeout(() => controller.abort(new Error(`handler exceeded ${timeoutMs} ms`)), timeoutMs);
    try {
      if (deliveryCount > maxDeliver) {
        throw new WorkerCrashLoopError(`gave up after ${deliveryCount - 1} deliveries that never finished`);
      }
      if (earlier) {
        // The same message, still in this process's hands: doing it twice at once would ask
        // a site twice; once the earlier delivery ends, this one's handler finds it done.
        logger.warn('redelivered while an earlier delivery is handled here; waiting for it');
        // No longer than this delivery's own deadline, whatever the earlier one waits on.
        await untilAborted(earlier, controller.signal);
        controller.signal.throwIfAborted(); // shut down or past its deadline meanwhile
      }
      await this.abandonedIfDeaf(this.handleThroughOutages(event, ctx), controller.signal, logger);
      if (this.opts.confirmAcks) await this.ackConfirmed(msg, logger);
      else msg.ack();
      return 'ack';
    } catch (err) {
      if (this.stopping && controller.signal.aborted) {
        // Shutdown abandoned it: hand it back at once, this attempt does not count as a failure.
        msg.nak();
        return 'handed_back';
      }
      const decision = err instanceof WorkerCrashLoopError
        ? { kind: 'giveUp' as const, error: toTrawlError(err) }
        : ackDecision(err, { deliveryCount, maxDeliver });
      if (decision.kind === 'nak') {
        logger.warn({ err: toTrawlError(err).message, delayMs: decision.delayMs }, 'retrying message');
        msg.nak(decision.delayMs);
        return 'retry';
      } else if (decision.kind === 'giveUp') {
        logger.warn({ code: decision.error.code, err: decision.error.message }, 'giving up on message');
        try {
          await this.opts.giveUp?.(event, decision.error, ctx);
          msg.term(decision.error.message.slice(0, 200));
          return 'gave_up';
        } catch (recordErr) {
          // Could not record the failure (NATS down?): let it be redelivered and try again.
          logger.error({ err: String(recordErr) }, 'could not record failure; will retry');
          msg.nak(5000);
          return 'retry';
        }
      } else {
        msg.ack();
        return 'ack';
      }
    } finally {
      clearInterval(heartbeat);
      clearTimeout(deadline);
    }
  }

  /**
   * The handler, run again after a pause while it fails because NATS is unavailable (every
   * handler is idempotent: this is what a redelivery would do, without spending an attempt).
   */
  private async handleThroughOutages(event: E, ctx: MessageContext): Promise<void> {
    const until = Date.now() + this.opts.outageRetryMs;
    for (let pauseMs = OUTAGE_PAUSE_MS.first; ; pauseMs = Math.min(OUTAGE_PAUSE_MS.most, pauseMs * 2)) {
      try {
        return await this.opts.handle(event, ctx);
      } catch (err) {
        if (!isNatsOutage(err) || ctx.signal.aborted || this.stopping || Date.now() + pauseMs > until) throw err;
        ctx.logger.warn({ err: String(err), pauseMs }, 'NATS unavailable; running the message again in place');
        consumerMetrics.outageRetries().inc(this.labels);
        await sleep(pauseMs);
      }
    }
  }

  /**
   * `work`, or, once `signal` is aborted by the deadline and `work` has not ended
   * `abandonAfterMs` later, the abort's reason thrown: the delivery ends as one whose handler
   * stopped at its deadline. The handler is left to end on its own (its appends are
   * idempotent; a later result is dropped).
   */
  private abandonedIfDeaf(work: Promise<void>, signal: AbortSignal, logger: Logger): Promise<void> {
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const abandon = (): void => {
        if (this.stopping) return;
        timer = setTimeout(() => {
          logger.warn({ afterMs: this.opts.abandonAfterMs, reason: String(signal.reason) }, 'handler did not end after its abort; abandoned');
          reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason)));
        }, this.opts.abandonAfterMs);
      };
      if (signal.aborted) abandon(); else signal.addEventListener('abort', abandon, { once: true });
      work.then(resolve, reject).finally(() => {
        clearTimeout(timer);
        signal.removeEventListener('abort', abandon);
      });
    });
  }

  /**
   * Acks and waits for the server to confirm it, asking again while it does not answer (the
   * consumer's leader died or is being elected; heartbeats keep the message meanwhile). A
   * plain ack lost with a leader got the message redelivered after its ack wait, and a
   * leader just elected may answer a point read before it has applied the log's last
   * entries: the chaos drill's redelivered pages were loaded again though their
   * page_fetched was in the log. An ack still unconfirmed after one ack wait is left to it.
   */
  private async ackConfirmed(msg: Delivery, logger: Logger): Promise<void> {
    const until = Date.now() + this.opts.ackWaitMs;
    for (let pauseMs = ACK_RETRY_MS.first; ; pauseMs = Math.min(ACK_RETRY_MS.most, pauseMs * 2)) {
      try {
        if (await msg.ackAck({ timeout: ACK_RETRY_MS.answer })) return;
      } catch {
        // no answer (a timeout, no responders): ask again
      }
      if (Date.now() + pauseMs > until) {
        logger.warn('ack not confirmed; the message may be delivered again');
        return;
      }
      await sleep(pauseMs);
    }
  }

  /** Stop pulling, wait up to graceMs for in-flight messages, abort the rest. */
  async stop(graceMs = this.opts.stopGraceMs ?? DEFAULTS.graceMs): Promise<void> {
    this.stopping = true;
    this.redrives?.unsubscribe();
    this.slotFreed?.();
    await this.loop?.catch(() => undefined);
    const deadline = Date.now() + graceMs;
    while (this.inFlight.size > 0 && Date.now() < deadline) await sleep(50);
    for (const controller of this.inFlight.values()) controller.abort(new Error('shutting down'));
    while (this.inFlight.size > 0) await sleep(20);
    this.ready = false;
  }
}

class WorkerCrashLoopError extends Error {}

type Outcome = 'ack' | 'retry' | 'gave_up' | 'poison' | 'handed_back';

/** `work` settled, or `signal` aborted, whichever comes first (never rejects). */
function untilAborted(work: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => { signal.removeEventListener('abort', done); resolve(); };
    signal.addEventListener('abort', done, { once: true });
    work.then(done, done);
  });
}
