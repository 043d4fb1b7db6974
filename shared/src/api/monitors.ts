// Schemas of the monitor endpoints (docs/api.md "Monitors"): the single source of their
// validation and of their OpenAPI description.
import { Type, type Static } from '@sinclair/typebox';
import { CrawlRequestSchema } from '../domain/crawl-options.js';
import { ScrapeOptionsSchema, StringEnum } from '../domain/scrape-options.js';

const crawlField = CrawlRequestSchema.properties;

export const MonitorScheduleInput = Type.Union([
  Type.Object({
    intervalSeconds: Type.Integer({ minimum: 1, maximum: 31_536_000, description: 'Run every this many seconds, counted from the monitor\'s creation (at least MONITOR_MIN_INTERVAL_MS)' }),
  }, { additionalProperties: false }),
  Type.Object({
    cron: Type.String({ minLength: 1, maxLength: 200, description: 'A cron expression (5 fields, or 6 with seconds first), e.g. "0 */6 * * *"' }),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone of the cron expression (default UTC)' })),
  }, { additionalProperties: false }),
]);

export const MonitorCreateBody = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 8192, description: 'The page to watch, or the crawl\'s start URL' }),
  crawl: Type.Optional(Type.Object({
    maxDepth: crawlField.maxDepth, limit: crawlField.limit, includePaths: crawlField.includePaths, excludePaths: crawlField.excludePaths,
    allowExternalLinks: crawlField.allowExternalLinks, ignoreRobots: crawlField.ignoreRobots,
  }, { additionalProperties: false, description: 'Present: each run crawls from url with these options; absent: each run scrapes url' })),
  formats: Type.Optional(ScrapeOptionsSchema.properties.formats),
  scrapeOptions: Type.Optional(ScrapeOptionsSchema),
  schedule: MonitorScheduleInput,
  webhookUrl: Type.String({ minLength: 1, maxLength: 8192, description: 'Receives monitor.changed (signed like every webhook)' }),
  notifyUnchanged: Type.Optional(Type.Boolean({ default: false, description: 'Send monitor.changed after every run, even when nothing changed' })),
}, { additionalProperties: false });
export type MonitorCreateBody = Static<typeof MonitorCreateBody>;

const MonitorStatus = StringEnum(['ACTIVE', 'DELETED'] as const);

export const MonitorSummary = Type.Object({
  id: Type.String(),
  url: Type.String(),
  jobKind: StringEnum(['scrape', 'crawl'] as const),
  schedule: MonitorScheduleInput,
  status: MonitorStatus,
  createdAt: Type.String(),
});
export type MonitorSummary = Static<typeof MonitorSummary>;

export const MonitorView = Type.Object({
  ...MonitorSummary.properties,
  formats: Type.Array(Type.String()),
  crawl: Type.Optional(Type.Object({
    maxDepth: Type.Integer(), limit: Type.Integer(), includePaths: Type.Array(Type.String()), excludePaths: Type.Array(Type.String()),
    allowExternalLinks: Type.Boolean(), ignoreRobots: Type.Boolean(),
  })),
  webhookUrl: Type.String(),
  notifyUnchanged: Type.Boolean(),
  nextRunAt: Type.Optional(Type.String({ description: 'The next scheduled time (absent once deleted)' })),
  lastTick: Type.Optional(Type.Object({ tick: Type.String(), runId: Type.String({ description: 'The run\'s scrape or crawl job id' }), jobKind: Type.String() })),
  lastRun: Type.Optional(Type.Object({
    runId: Type.String(), tick: Type.String(),
    status: Type.String({ description: 'The run job\'s end (COMPLETED, FAILED, CANCELLED), or SKIPPED: no job was made' }),
    reason: Type.Optional(Type.String({ description: 'Why a SKIPPED run did not run (QUOTA_EXCEEDED: …)' })),
    changed: Type.Array(Type.Object({ url: Type.String(), changeStatus: Type.String() })),
    unchanged: Type.Integer(), notified: Type.Boolean(), finishedAt: Type.String(),
  })),
});
export type MonitorView = Static<typeof MonitorView>;

export const MonitorDeletedView = Type.Object({ id: Type.String(), status: Type.Literal('DELETED') });
