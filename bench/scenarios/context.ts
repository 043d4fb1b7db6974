// What every benchmark scenario gets and gives back.
import type { TestSite } from '../../test/support/site.js';
import type { BenchSystem } from '../lib/system.js';
import type { Row } from '../lib/table.js';

/** Sizes of the runs; each can be overridden with an environment variable (see run.ts). */
export interface Sizes {
  pageBytes: number;
  latencyScrapes: number;
  /** 1: the latency baseline runs before the system boots; more: in rounds between the system's scrapes. */
  latencyRounds: number;
  warmupScrapes: number;
  throughputPages: number;
  baselineThroughputPages: number;
  loadDurationSec: number;
  loadConnections: number;
  mapChildren: number;
  mapUrlsPerChild: number;
  crawlPages: number;
  /** Pages of the engines bench's mixed site (a third built by JavaScript). */
  mixedPages: number;
  /** GETs at once of the no-browser HTTP crawler baseline (engines bench). */
  httpCrawlerConcurrency: number;
  stabilityScrapes: number;
  stabilityConcurrency: number;
  stabilityPageBytes: number;
  /** Scrapes of the 20-page PDF in the documents bench. */
  documentRuns: number;
}

export interface BenchContext {
  bs: BenchSystem;
  /** The site serving the scrape pages (article, throughput and stability pages). */
  site: TestSite;
  sizes: Sizes;
  log(message: string): void;
}

export interface ScenarioResult {
  rows: Row[];
  /** Raw figures for bench/results.json. */
  details: Record<string, unknown>;
}

/** The scrape request every scrape benchmark sends: markdown only (the default format). */
export const SCRAPE_BODY = { formats: ['markdown'] } as const;
