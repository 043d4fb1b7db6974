// The sweep that re-drives a job nothing moves any more. A job runner handles each trigger
// its consumers hand out; when nats-server lets a message go for good (stuck-pages.ts), the
// job waits for a step that never comes, and nothing in the system says so. So a job of
// this replica's that has had no trigger here for IDLE_MS is looked at every SWEEP_EVERY_MS:
//   1. it is advanced from the log's end (a lost trigger of the frontier's own: a page's
//      result is in the log, the decision it calls for is not);
//   2. each page in flight whose message its consumer let go of without the page's step in
//      the log is asked for again: its consumer's workers take the message from the stream
//      by its sequence (shared/src/infra/nats/worker.ts, re-drive), on core NATS, again at
//      each sweep while the page stays stuck. A handler run twice is what a redelivery is:
//      every consumer checks the log before its work, and a fetcher claims a page before it
//      asks the site.
// A look at a job is one read of its events (not point reads page by page), from the
// request of the oldest page in flight at the last look (inFlightFromEvents): the whole
// history the first time, then only the part of the log its pages in flight can be in.
// Both frontier replicas may sweep one job (each sees its own triggers); a page re-driven
// twice at once is claimed by one fetcher, and the other waits for its result.
// The jobs a replica knows of are in memory, lost when it restarts: its first sweep first
// adds every job of the kind the log has requested and not finished (seed()), so a job no
// trigger reaches any more (its `<kind>_requested` lost, or its only message lost while every
// replica restarted) is swept too.
import type { JetStreamManager, NatsConnection } from 'nats';
import { LRUCache } from 'lru-cache';
import type { MultiPageKind } from '../../../../shared/src/domain/events/job.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import { fetcherDurable, parseSubject, redriveSubject, STREAM_NAME, SUBJECT_ROOT, TRANSFORMER_DURABLE } from '../../../../shared/src/infra/subjects.js';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { inFlightFromEvents, stuckPages, type AckFloors } from './stuck-pages.js';

export const REDRIVE_SWEEP_DEFAULTS = {
  /** How often idle jobs are looked at. */
  sweepEveryMs: 10_000,
  /** A job with a trigger handled here this recently is moving: not looked at. */
  idleMs: 30_000,
  /** Jobs remembered (the most recently triggered). */
  jobsKept: 1_000,
} as const;

export interface SweptJobs {
  /** Advances the job from the log's end, on a state rebuilt from its whole history. */
  advance(jobId: string): Promise<void>;
  /** The parts of the job's pages in flight; undefined once it is over or cancelled (nothing to re-drive). */
  pagesInFlight(jobId: string): Promise<readonly string[] | undefined>;
}

export interface RedriveSweepDeps {
  kind: MultiPageKind;
  log: EventLog;
  jsm: JetStreamManager;
  nc: Pick<NatsConnection, 'publish'>;
  jobs: SweptJobs;
  logger: Logger;
  now?: () => number;
  sweepEveryMs?: number;
  idleMs?: number;
}

export class RedriveSweep {
  /**
   * Job id -> when a trigger of it was last handled here, and where the next read of its
   * events starts (inFlightFromEvents).
   */
  private readonly lastTrigger: LRUCache<string, { at: number; readFrom: number }>;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** Whether the jobs in flight in the log were added (seed()): tried at each sweep until once done. */
  private seeded = false;
  private readonly now: () => number;

  constructor(private readonly deps: RedriveSweepDeps) {
    this.now = deps.now ?? Date.now;
    this.lastTrigger = new LRUCache({ max: REDRIVE_SWEEP_DEFAULTS.jobsKept });
  }

  /** A trigger of the job was handled here. */
  touched(jobId: string): void {
    this.lastTrigger.set(jobId, { at: this.now(), readFrom: this.lastTrigger.peek(jobId)?.readFrom ?? 1 });
  }

  start(): void {
    this.timer = setInterval(() => { this.sweeping ??= this.sweep().finally(() => { this.sweeping = undefined; }); }, this.deps.sweepEveryMs ?? REDRIVE_SWEEP_DEFAULTS.sweepEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /**
   * One look at every idle job (one at a time: a stuck job is rare, and each look is a few
   * reads). The consumers' ack floors are read once, before any job's events: a message
   * acked after that read has its step in the log by then.
   */
  async sweep(): Promise<void> {
    const idleMs = this.deps.idleMs ?? REDRIVE_SWEEP_DEFAULTS.idleMs;
    if (!this.seeded) {
      this.seeded = await this.seed().then(() => true, (err: unknown) => {
        this.deps.logger.warn({ err: String(err) }, 'could not list the jobs in flight; the next sweep tries again');
        return false;
      });
    }
    let floors: Promise<AckFloors> | undefined;
    for (const [jobId, { at }] of [...this.lastTrigger.entries()]) {
      if (this.now() - at < idleMs) continue;
      try {
        await this.sweepJob(jobId, idleMs, () => (floors ??= this.ackFloors()));
      } catch (err) {
        this.deps.logger.warn({ jobId, err: String(err) }, 'sweep of an idle job failed; the next one tries again');
      }
    }
  }

  private async sweepJob(jobId: string, idleMs: number, ackFloors: () => Promise<AckFloors>): Promise<void> {
    const { kind, log, nc, jobs, logger } = this.deps;
    await jobs.advance(jobId);
    const floors = await ackFloors();
    const parts = await jobs.pagesInFlight(jobId);
    if (!parts) {
      this.lastTrigger.delete(jobId); // over: nothing will ever be due
      return;
    }
    if (parts.length === 0) return; // nothing in flight: the advance was all there was to do
    const readFrom = this.lastTrigger.peek(jobId)?.readFrom ?? 1;
    const seen = inFlightFromEvents(await log.history(kind, jobId, readFrom), parts, readFrom);
    const remembered = this.lastTrigger.peek(jobId);
    if (remembered) remembered.readFrom = seen.readFrom;
    for (const { part, consumer, seq } of stuckPages(seen.pages, floors, this.now(), idleMs)) {
      const durable = consumer === 'fetch' ? fetcherDurable(kind) : TRANSFORMER_DURABLE;
      logger.warn({ [`${kind}Id`]: jobId, part, seq, durable }, 'a page\'s message was let go of by its consumer without its step in the log; re-driving it');
      nc.publish(redriveSubject(durable), JSON.stringify({ seq }));
    }
  }

  /**
   * Adds the jobs of the kind requested and not finished in the log, as triggered now (swept
   * once idle): two stream infos listing the kind's `_requested` and `_finished` subjects,
   * once per process.
   */
  async seed(): Promise<void> {
    const { jsm, kind } = this.deps;
    const jobs = async (event: string): Promise<string[]> => {
      const info = await jsm.streams.info(STREAM_NAME, { subjects_filter: `${SUBJECT_ROOT}.${kind}.*.${JOB_PART}.${event}` });
      return Object.keys(info.state.subjects ?? {}).flatMap((subject) => parseSubject(subject)?.id ?? []);
    };
    const [requested, finished] = await Promise.all([jobs(`${kind}_requested`), jobs(`${kind}_finished`)]);
    const over = new Set(finished);
    for (const id of requested) {
      if (!over.has(id) && !this.lastTrigger.has(id)) this.lastTrigger.set(id, { at: this.now(), readFrom: 1 });
    }
  }

  private async ackFloors(): Promise<AckFloors> {
    const floor = async (durable: string): Promise<number> => (await this.deps.jsm.consumers.info(STREAM_NAME, durable)).ack_floor.stream_seq;
    const [fetch, transform] = await Promise.all([floor(fetcherDurable(this.deps.kind)), floor(TRANSFORMER_DURABLE)]);
    return { fetch, transform };
  }
}
