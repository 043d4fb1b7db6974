// Where a scrape's time goes, from its own events in the log: the timestamps the services
// wrote (requestedAt, startedAt, fetchedAt, completedAt) split totalMs into the fetcher's
// and the transformer's share, and the job's timings split those again into the measured
// work (navigation + render, transform) and the rest (browser context and SSRF proxy set-up
// and tear-down, Object Store writes and reads, event appends, consumer pick-up).
import type { NatsConnection } from 'nats';
import type { StoredEvent } from '../../shared/src/domain/events/index.js';
import { createLogger } from '../../shared/src/infra/logger.js';
import { connectNats } from '../../shared/src/infra/nats/connect.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
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

/** Reads the event history of scrape jobs. */
export class JobEvents {
  private constructor(private readonly nc: NatsConnection, private readonly log: EventLog) {}

  static async connect(natsUrl: string): Promise<JobEvents> {
    const nc = await connectNats(natsUrl, 'trawl-bench', createLogger('bench', 'warn'));
    return new JobEvents(nc, new EventLog(nc.jetstream(), await nc.jetstreamManager()));
  }

  history(jobId: string): Promise<StoredEvent[]> {
    return this.log.history('scrape', jobId);
  }

  async close(): Promise<void> {
    await this.nc.drain();
  }
}
