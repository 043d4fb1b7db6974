// @trawl/sdk: a typed client for the Trawl API (fetch only; standardwebhooks for verifyWebhook).
export { Trawl, DEFAULT_API_URL, type TrawlOptions, type ScrapeCallOptions, type ScrapeWaitOptions, type ListOptions } from './client.js';
export { CrawlHandle, BatchHandle, MAX_WAIT_MS, type WaitOptions } from './job-handle.js';
export { verifyWebhook, type WebhookHeaders } from './webhooks.js';
export * from './errors.js';
export { ROUTES, routePath, type RouteSpec, type RouteName } from './routes.js';
export type { RetryInfo, RateLimitState } from './transport.js';
export type * from './types.js';
