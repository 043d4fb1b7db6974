// Where a scrape's time goes, from its own events in the log: the timestamps the services
// wrote (requestedAt, startedAt, fetchedAt, completedAt) split totalMs into the fetcher's
// and the transformer's share, and the job's timings split those again into the measured
// work (navigation + render, transform) and the rest (browser context and SSRF proxy set-up
// and tear-down, Object Store writes and reads, event appends, consumer pick-up).
import type { NatsConnection, Subscription } from 'nats';
import type { StoredEvent } from '../../shared/src/domain/events/index.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { connectNats } from '../../shared/src/infra/nats/connect.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import { decodeNotice } from '../../shared/src/infra/projection-notice.js';
import { PROJECTED_SUBJECT, STREAM_NAME } from '../../shared/src/infra/subjects.js';
import type { JobTimings } from './system.js';

export interface StageBreakdown {
  /** page_requested → page_started. */
  queueMs: number;
  /** page_started → page_fetched: the whole fetcher attempt. */
  fetcherMs: number;
  /** fetchMs + renderMs + screenshotMs: navigation and rendering as the fetcher measures them. */
  browserWorkMs: number;
  /** fetcherMs − browserWorkMs: context/proxy set-up and tear-down, raw HTML to the Object Store, appends. */
  fetcherOverheadMs: number;
  /** page_fetched → page_completed: the whole transformer step. */
  transformerMs: number;
  transformMs: number;
  /** transformerMs − transformMs: pick-up, reading the request and the HTML, writing the result. */
  transformerOverheadMs: number;
}

const at = (iso: string | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

/** The breakdown of one job from its events, or undefined when an event is missing. */
export function stageBreakdown(events: readonly StoredEvent[], timings: JobTimings): StageBreakdown | undefined {
  const find = (name: string) => events.find((e) => e.event === name)?.data as Record<string, string> | undefined;
  const requested = at(find('page_requested')?.requestedAt);
  // The last attempt's start: earlier attempts' time is queueing as far as this one is concerned.
  const started = at((events.filter((e) => e.event === 'page_started').at(-1)?.data as { startedAt?: string } | undefined)?.startedAt);
  const fetched = at(find('page_fetched')?.fetchedAt);
  const completed = at(find('page_completed')?.completedAt);
  if ([requested, started, fetched, completed].some(Number.isNaN)) return undefined;
  const browserWorkMs = timings.fetchMs + timings.renderMs + timings.screenshotMs;
  const fetcherMs = fetched - started;
  const transformerMs = completed - fetched;
  return {
    queueMs: started - requested,
    fetcherMs,
    browserWorkMs,
    fetcherOverheadMs: fetcherMs - browserWorkMs,
    transformerMs,
    transformMs: timings.transformMs,
    transformerOverheadMs: transformerMs - timings.transformMs,
  };
}

/** The NATS URL the supervisor printed at start (`nats-server with JetStream at nats://...`). */
export function natsUrlFromLogs(logs: string): string | undefined {
  return /JetStream at (nats:\/\/[^\s]+)/.exec(logs)?.[1];
}

/**
 * One scrape's critical path, as epoch ms: the client's send, each step's event as JetStream
 * stored it (the server's clock, the same machine's), the projector's notice that the job
 * became final as this process received it, and the client's answer.
 */
export interface CriticalPath {
  sentAt: number;
  requestedAt: number;
  startedAt: number;
  fetchedAt: number;
  completedAt: number;
  projectedAt: number;
  answeredAt: number;
}

/** The hops between a critical path's marks, in order, in ms. */
export const CRITICAL_HOPS = [
  ['receive → page_requested appended', 'sentAt', 'requestedAt'],
  ['→ fetcher starts (page_started appended)', 'requestedAt', 'startedAt'],
  ['→ page_fetched appended', 'startedAt', 'fetchedAt'],
  ['→ page_completed appended', 'fetchedAt', 'completedAt'],
  ['→ projected (final notice received)', 'completedAt', 'projectedAt'],
  ['→ answered (client has the body)', 'projectedAt', 'answeredAt'],
] as const;

export function criticalHops(path: CriticalPath): Record<string, number> {
  return Object.fromEntries(CRITICAL_HOPS.map(([name, from, to]) => [name, path[to] - path[from]]));
}

/** Reads the event history of scrape jobs, and notes when each job's final notice came. */
export class JobEvents {
  private readonly finalNoticeAt = new Map<string, number>();
  private sub: Subscription | undefined;

  private constructor(private readonly nc: NatsConnection, private readonly log: EventLog) {}

  static async connect(natsUrl: string): Promise<JobEvents> {
    const nc = await connectNats(natsUrl, 'trawl-bench', createLogger('bench', 'warn'));
    return new JobEvents(nc, new EventLog(nc.jetstream(), await nc.jetstreamManager()));
  }

  /** From now on, notes when a notice says a scrape became COMPLETED or FAILED. */
  async watchNotices(): Promise<void> {
    this.sub = this.nc.subscribe(PROJECTED_SUBJECT, {
      callback: (err, msg) => {
        if (err) return;
        const { change } = decodeNotice(msg);
        if (change?.kind === 'scrape' && (change.status === 'COMPLETED' || change.status === 'FAILED')) this.finalNoticeAt.set(change.id, Date.now());
      },
    });
    await this.nc.flush();
  }

  history(jobId: string): Promise<StoredEvent[]> {
    return this.log.history('scrape', jobId);
  }

  /** The job's critical path, or undefined when a step's event or its notice is missing. */
  async criticalPath(jobId: string, sentAt: number, answeredAt: number): Promise<CriticalPath | undefined> {
    const events = await this.history(jobId);
    const jsm = await this.nc.jetstreamManager();
    const storedAt = async (name: string): Promise<number> => {
      const event = events.filter((e) => e.event === name).at(-1);
      return event ? (await jsm.streams.getMessage(STREAM_NAME, { seq: event.seq })).time.getTime() : Number.NaN;
    };
    const path: CriticalPath = {
      sentAt,
      requestedAt: await storedAt('page_requested'),
      startedAt: await storedAt('page_started'),
      fetchedAt: await storedAt('page_fetched'),
      completedAt: await storedAt('page_completed'),
      projectedAt: this.finalNoticeAt.get(jobId) ?? Number.NaN,
      answeredAt,
    };
    return Object.values(path).some(Number.isNaN) ? undefined : path;
  }

  async close(): Promise<void> {
    this.sub?.unsubscribe();
    await this.nc.drain();
  }
}
