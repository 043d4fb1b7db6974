// Monitors (issue 27, docs/api.md "Monitors"): a URL or a crawl run again on a schedule, its
// changes sent to a webhook. Subjects are `trawl.monitor.<apiKeyId>.<monitorId>...` (one
// history per key: a key's monitors are one filtered read, another key's cannot be named);
// each run is an ordinary scrape or crawl job whose id derives from the monitor and the tick.
import { Type, type Static } from '@sinclair/typebox';
import { ResolvedScrapeOptions } from '../scrape-options.js';
import { Timestamp } from './common.js';
import { CrawlPlan } from './job.js';

export const MonitorSchedule = Type.Union([
  Type.Object({ intervalSeconds: Type.Integer({ minimum: 1 }) }),
  Type.Object({ cron: Type.String(), timezone: Type.Optional(Type.String()) }),
]);
export type MonitorSchedule = Static<typeof MonitorSchedule>;

/** A crawl monitor's crawl (the crawl request's fields but the start URL and the page options). */
export const MonitorCrawl = CrawlPlan;
export type MonitorCrawl = Static<typeof MonitorCrawl>;

export const MonitorCreated = Type.Object({
  apiKeyId: Type.String(),
  url: Type.String(),
  /** Present: each run is a crawl from `url`; absent: a scrape of `url`. */
  crawl: Type.Optional(MonitorCrawl),
  /** The page options of every run (formats include changeTracking; its tag is the monitor's). */
  scrapeOptions: ResolvedScrapeOptions,
  schedule: MonitorSchedule,
  webhookUrl: Type.String(),
  /** Send monitor.changed after every run, even when nothing changed. */
  notifyUnchanged: Type.Boolean(),
  createdAt: Timestamp,
});
export type MonitorCreated = Static<typeof MonitorCreated>;

export const MonitorDeleted = Type.Object({ deletedAt: Timestamp });

export const MonitorTicked = Type.Object({
  /** The scheduled time of this run (the schedule's, not the clock's). */
  tick: Timestamp,
  runId: Type.String(),
  jobKind: Type.Union([Type.Literal('scrape'), Type.Literal('crawl')]),
  tickedAt: Timestamp,
});

export const MonitorRunFinished = Type.Object({
  runId: Type.String(),
  tick: Timestamp,
  /** The run job's end: COMPLETED, FAILED (or CANCELLED for a crawl); SKIPPED: no job was made (`reason`). */
  status: Type.String(),
  /** Why a SKIPPED run did not run, e.g. `QUOTA_EXCEEDED: the monthly quota … is used up`. */
  reason: Type.Optional(Type.String({ maxLength: 1000 })),
  /** Pages new, changed or removed (new ones only after the first run: the first is the baseline). */
  changed: Type.Array(Type.Object({ url: Type.String(), changeStatus: Type.String() }), { maxItems: 1000 }),
  unchanged: Type.Integer({ minimum: 0 }),
  /** Whether a monitor.changed webhook was requested for the run. */
  notified: Type.Boolean(),
  finishedAt: Timestamp,
});
export type MonitorRunFinished = Static<typeof MonitorRunFinished>;

export const monitorEvents = {
  monitor_created: MonitorCreated,
  monitor_deleted: MonitorDeleted,
  monitor_ticked: MonitorTicked,
  monitor_run_finished: MonitorRunFinished,
} as const;
