// The requests of the API. Scrape, crawl and batch requests live beside the functions that
// resolve them (their defaults, written once, become the options every event carries);
// this module is where clients and the gateway name them.
export {
  ScrapeOptionsSchema, ScrapeRequestSchema, SCRAPE_DEFAULTS, FORMATS, PARSERS, DEVICES,
  type Format, type Parser, type Device, type ScrapeOptionsInput as ScrapeOptions, type ScrapeRequest, type Action,
} from '../domain/scrape-options.js';
export { CrawlRequestSchema, CRAWL_DEFAULTS, CRAWL_BOUNDS, type CrawlRequest } from '../domain/crawl-options.js';
export { BatchScrapeRequestSchema, BATCH_DEFAULTS, BATCH_BOUNDS, type BatchScrapeRequest } from '../domain/batch-options.js';
