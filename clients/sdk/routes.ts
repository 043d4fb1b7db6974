// Every route the SDK calls, with the body fields, query parameters and response fields it
// knows. The field lists are checked against the TypeBox-derived types at compile time
// (`exact` below: a field added to or removed from a schema breaks the build until it is
// listed here), and against the live /openapi.json by test/clients/openapi-drift.test.ts.
import type {
  BatchJob, BatchPage, BatchScrapeRequest, CrawlJob, CrawlPage, CrawlRequest, MapRequest, MapResult, ScrapeJob, ScrapeRequest,
  ScrapeListItem, CrawlListItem, BatchListItem, WebhookSecret, ChangeHistory, KeyStanding,
  RecrawlRequest, RecrawlReport, MonitorRequest, Monitor, MonitorListItem,
} from './types.js';

type Keys<T> = T extends unknown ? keyof T : never;
/** Compiles only when `L` lists exactly the keys of `T`. */
type Exact<T, L extends readonly string[]> =
  [Exclude<Keys<T>, L[number]>, Exclude<L[number], Keys<T>>] extends [never, never] ? L : { missing: Exclude<Keys<T>, L[number]>; unknown: Exclude<L[number], Keys<T>> };
const exact = <T>() => <const L extends readonly string[]>(list: L & Exact<T, L>): L => list;

export const SCRAPE_FIELDS = exact<ScrapeRequest>()([
  'url', 'formats', 'onlyMainContent', 'includeTags', 'excludeTags', 'viewport', 'mobile', 'device', 'darkMode', 'headers',
  'waitFor', 'timeout', 'screenshotOptions', 'actions', 'engine', 'extract', 'changeTrackingOptions', 'parsers', 'maxPages', 'acceptOutcomes', 'consent', 'conditional',
]);
export const CRAWL_FIELDS = exact<CrawlRequest>()([
  'url', 'maxDepth', 'limit', 'includePaths', 'excludePaths', 'allowExternalLinks', 'ignoreRobots', 'scrapeOptions', 'webhookUrl',
]);
export const BATCH_FIELDS = exact<BatchScrapeRequest>()([
  'urls', 'ignoreInvalidUrls', 'webhookUrl', ...SCRAPE_FIELDS.filter((f) => f !== 'url') as Exclude<(typeof SCRAPE_FIELDS)[number], 'url'>[],
] as const);
export const MAP_FIELDS = exact<MapRequest>()(['url', 'search', 'limit', 'ignoreSitemap', 'includeSubdomains']);

export const SCRAPE_JOB_FIELDS = exact<ScrapeJob>()([
  'id', 'url', 'status', 'fromCache', 'createdAt', 'startedAt', 'completedAt', 'markdown', 'html', 'rawHtml', 'links', 'screenshot',
  'actions', 'metadata', 'timings', 'error', 'json', 'changeTracking', 'document',
]);
export const CRAWL_JOB_FIELDS = exact<CrawlJob>()([
  'id', 'status', 'startUrl', 'totalUrls', 'completedUrls', 'failedUrls', 'createdAt', 'startedAt', 'completedAt', 'data', 'next', 'error', 'blockedHosts', 'slowed',
]);
export const CRAWL_PAGE_FIELDS = exact<CrawlPage>()(['url', 'depth', 'markdown', 'html', 'rawHtml', 'json', 'changeTracking', 'metadata', 'links', 'document']);
export const BATCH_JOB_FIELDS = exact<BatchJob>()([
  'id', 'status', 'totalUrls', 'completedUrls', 'failedUrls', 'createdAt', 'startedAt', 'completedAt', 'data', 'next', 'error',
]);
export const BATCH_PAGE_FIELDS = exact<BatchPage>()([
  'url', 'status', 'markdown', 'html', 'rawHtml', 'links', 'screenshot', 'actions', 'metadata', 'error', 'json', 'changeTracking', 'document',
]);
export const MAP_RESULT_FIELDS = exact<MapResult>()(['links', 'count']);
export const SCRAPE_LIST_FIELDS = exact<ScrapeListItem>()(['id', 'url', 'status', 'fromCache', 'createdAt', 'completedAt']);
export const CRAWL_LIST_FIELDS = exact<CrawlListItem>()(['id', 'status', 'startUrl', 'totalUrls', 'completedUrls', 'failedUrls', 'createdAt']);
export const BATCH_LIST_FIELDS = exact<BatchListItem>()(['id', 'status', 'totalUrls', 'completedUrls', 'failedUrls', 'createdAt', 'completedAt']);
export const WEBHOOK_SECRET_FIELDS = exact<WebhookSecret>()(['secret', 'generation']);
export const CHANGE_HISTORY_FIELDS = exact<ChangeHistory>()(['url', 'tag', 'observations', 'next']);
export const KEY_STANDING_FIELDS = exact<KeyStanding>()([
  'keyId', 'plan', 'limits', 'enforced', 'month', 'pagesUsed', 'pagesHeld', 'pagesLeft', 'runningJobs', 'quotaRenewsAt',
]);
export const RECRAWL_FIELDS = exact<RecrawlRequest>()(['revalidate']);
export const RECRAWL_REPORT_FIELDS = exact<RecrawlReport>()(['id', 'recrawlOf', 'status', 'complete', 'pages', 'unchangedUrls', 'unlinkedUrls', 'failedUrls', 'counts']);
export const MONITOR_REQUEST_FIELDS = exact<MonitorRequest>()(['url', 'crawl', 'formats', 'scrapeOptions', 'schedule', 'webhookUrl', 'notifyUnchanged']);
export const MONITOR_FIELDS = exact<Monitor>()([
  'id', 'url', 'jobKind', 'schedule', 'status', 'createdAt', 'formats', 'crawl', 'webhookUrl', 'notifyUnchanged', 'nextRunAt', 'lastTick', 'lastRun',
]);
export const MONITOR_LIST_FIELDS = exact<MonitorListItem>()(['id', 'url', 'jobKind', 'schedule', 'status', 'createdAt']);
/** JobEventsPage has no exported schema; the drift test compares it with the OpenAPI document. */
export const EVENTS_FIELDS = ['id', 'kind', 'events', 'next'] as const;

export interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI form: `{id}` for the job id. */
  path: string;
  body?: readonly string[];
  query?: readonly string[];
  /** Success status and the fields of its body (an array answer: the fields of its items). */
  ok: number;
  fields: readonly string[];
}

const LIST_QUERY = ['limit', 'offset'] as const;

export const ROUTES = {
  scrape: { method: 'POST', path: '/api/v1/scrape', body: [...SCRAPE_FIELDS, 'waitMs'], ok: 200, fields: SCRAPE_JOB_FIELDS },
  getScrape: { method: 'GET', path: '/api/v1/scrape/{id}', query: ['waitMs'], ok: 200, fields: SCRAPE_JOB_FIELDS },
  listScrapes: { method: 'GET', path: '/api/v1/scrape', query: LIST_QUERY, ok: 200, fields: SCRAPE_LIST_FIELDS },
  crawl: { method: 'POST', path: '/api/v1/crawl', body: CRAWL_FIELDS, ok: 202, fields: ['id', 'status'] },
  getCrawl: { method: 'GET', path: '/api/v1/crawl/{id}', query: ['cursor', 'waitMs'], ok: 200, fields: CRAWL_JOB_FIELDS },
  cancelCrawl: { method: 'DELETE', path: '/api/v1/crawl/{id}', ok: 200, fields: ['id', 'status'] },
  listCrawls: { method: 'GET', path: '/api/v1/crawl', query: LIST_QUERY, ok: 200, fields: CRAWL_LIST_FIELDS },
  batch: { method: 'POST', path: '/api/v1/batch/scrape', body: BATCH_FIELDS, ok: 202, fields: ['id', 'status', 'invalidUrls'] },
  getBatch: { method: 'GET', path: '/api/v1/batch/scrape/{id}', query: ['cursor', 'waitMs'], ok: 200, fields: BATCH_JOB_FIELDS },
  cancelBatch: { method: 'DELETE', path: '/api/v1/batch/scrape/{id}', ok: 200, fields: ['id', 'status'] },
  listBatches: { method: 'GET', path: '/api/v1/batch/scrape', query: LIST_QUERY, ok: 200, fields: BATCH_LIST_FIELDS },
  map: { method: 'POST', path: '/api/v1/map', body: MAP_FIELDS, ok: 200, fields: MAP_RESULT_FIELDS },
  scrapeEvents: { method: 'GET', path: '/api/v1/scrape/{id}/events', query: ['after', 'limit'], ok: 200, fields: EVENTS_FIELDS },
  crawlEvents: { method: 'GET', path: '/api/v1/crawl/{id}/events', query: ['after', 'limit'], ok: 200, fields: EVENTS_FIELDS },
  batchEvents: { method: 'GET', path: '/api/v1/batch/scrape/{id}/events', query: ['after', 'limit'], ok: 200, fields: EVENTS_FIELDS },
  mapEvents: { method: 'GET', path: '/api/v1/map/{id}/events', query: ['after', 'limit'], ok: 200, fields: EVENTS_FIELDS },
  webhookSecret: { method: 'GET', path: '/api/v1/webhooks/secret', ok: 200, fields: WEBHOOK_SECRET_FIELDS },
  key: { method: 'GET', path: '/api/v1/key', ok: 200, fields: KEY_STANDING_FIELDS },
  changes: { method: 'GET', path: '/api/v1/changes', query: ['url', 'tag', 'after', 'limit'], ok: 200, fields: CHANGE_HISTORY_FIELDS },
  recrawl: { method: 'POST', path: '/api/v1/crawl/{id}/recrawl', body: RECRAWL_FIELDS, ok: 202, fields: ['id', 'status', 'recrawlOf'] },
  recrawlReport: { method: 'GET', path: '/api/v1/crawl/{id}/recrawl', ok: 200, fields: RECRAWL_REPORT_FIELDS },
  createMonitor: { method: 'POST', path: '/api/v1/monitors', body: MONITOR_REQUEST_FIELDS, ok: 201, fields: MONITOR_FIELDS },
  getMonitor: { method: 'GET', path: '/api/v1/monitors/{id}', ok: 200, fields: MONITOR_FIELDS },
  listMonitors: { method: 'GET', path: '/api/v1/monitors', ok: 200, fields: MONITOR_LIST_FIELDS },
  deleteMonitor: { method: 'DELETE', path: '/api/v1/monitors/{id}', ok: 200, fields: ['id', 'status'] },
  rotateWebhookSecret: {
    method: 'POST', path: '/api/v1/webhooks/secret/rotate', body: ['graceSeconds'], ok: 200, fields: ['secret', 'generation', 'previousSecretValidUntil'],
  },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof ROUTES;

/** The request path of a route, with the job id filled in. */
export function routePath(name: RouteName, id?: string): string {
  const { path } = ROUTES[name];
  if (!path.includes('{id}')) return path;
  if (id === undefined) throw new TypeError(`${name} needs a job id`);
  return path.replace('{id}', encodeURIComponent(id));
}
