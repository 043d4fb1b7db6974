// The API contract: every request and answer of /api/v1 as TypeBox schemas (each with its
// TypeScript type of the same name), the job statuses, the media types and the payload
// URLs. The gateway validates and serializes with these; the SDK, CLI and MCP server
// depend on this module only, never on the gateway.
export * from './common.js';
export * from './lifecycle.js';
export * from './media.js';
export * from './payload-urls.js';
export * from './requests.js';
export * from './scrape.js';
export * from './crawl.js';
export * from './batch.js';
export * from './map.js';
export * from './webhooks.js';
export * from './changes.js';
export * from './key.js';
export * from './events.js';
export * from './recrawl.js';
export * from './monitors.js';
