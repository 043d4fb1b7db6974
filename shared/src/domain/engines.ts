// The fetch engines' names and per-job-kind defaults: constants that config.ts needs
// without the scrape options' schemas (shared/src/domain/scrape-options.ts re-exports them).

/**
 * How a page is fetched: `browser` (Chromium renders it), `http` (one GET, no browser) or
 * `auto` (HTTP when the host is verified to serve the same page without JavaScript, see
 * services/fetcher/src/engine). The default depends on the job kind (ENGINE_DEFAULTS).
 */
export const ENGINES = ['browser', 'http', 'auto'] as const;
export type Engine = (typeof ENGINES)[number];

/**
 * The engine a page gets when the request names none, per job kind: a single scrape is
 * "fetched in a browser" (spec); crawl and batch pages are bulk and take `auto`. Servers
 * change each with SCRAPE_ENGINE / CRAWL_ENGINE / BATCH_ENGINE / MAP_ENGINE (config.ts).
 * Applied by the fetcher, which records the engine used and why on page_fetched.
 */
export const ENGINE_DEFAULTS = { scrape: 'browser', crawl: 'auto', batch: 'auto', map: 'browser' } as const satisfies Record<string, Engine>;
export type EngineDefaults = Record<keyof typeof ENGINE_DEFAULTS, Engine>;
