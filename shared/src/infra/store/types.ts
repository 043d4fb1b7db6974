// The read-model store: one small, domain-level interface with two implementations,
// MongoDB (production) and node:sqlite (embedded default). The projector is its only
// writer; the gateway reads. Everything in it can be rebuilt from the event log.
import { BATCH_JOBS, type BatchPageStore } from './batches.js';
import type { CollectionDef, DocCollection } from './collection.js';
import { ACCOUNTS, INVITES, MAP_JOBS, SESSIONS } from './console.js';
import { CRAWL_JOBS, type CrawlPageStore } from './crawls.js';
import { API_KEYS, KEY_DAILY_PAGES, KEY_USAGE } from './keys.js';
import { SCRAPE_CACHE, SCRAPE_JOBS } from './scrapes.js';

export * from './batches.js';
export * from './collection.js';
export * from './console.js';
export * from './crawls.js';
export * from './keys.js';
export * from './scrapes.js';

/** Every document collection, by the name a store serves it under (`store.scrapeJobs`). */
export const COLLECTIONS = {
  scrapeJobs: SCRAPE_JOBS,
  scrapeCache: SCRAPE_CACHE,
  apiKeys: API_KEYS,
  keyUsage: KEY_USAGE,
  keyDailyPages: KEY_DAILY_PAGES,
  crawlJobs: CRAWL_JOBS,
  batchJobs: BATCH_JOBS,
  accounts: ACCOUNTS,
  invites: INVITES,
  sessions: SESSIONS,
  mapJobs: MAP_JOBS,
} as const;

export type Collections = {
  readonly [K in keyof typeof COLLECTIONS]: (typeof COLLECTIONS)[K] extends CollectionDef<infer Doc, infer Listed> ? DocCollection<Doc, Listed> : never;
};

/** Every collection of COLLECTIONS, made by a store's own `make`. */
export function openCollections(make: <Doc extends { id: string }, Listed>(def: CollectionDef<Doc, Listed>) => DocCollection<Doc, Listed>): Collections {
  return Object.fromEntries(Object.entries(COLLECTIONS).map(([name, def]) => [name, make(def as CollectionDef<{ id: string }, unknown>)])) as unknown as Collections;
}

export interface ReadModelStore extends Collections, CrawlPageStore, BatchPageStore {
  readonly kind: 'sqlite' | 'mongodb';
  /** Creates tables / collections and indexes. Idempotent. */
  init(): Promise<void>;
  close(): Promise<void>;
  ping(): Promise<boolean>;

  /** Last stream sequence a projection has applied (0 when none). */
  getCheckpoint(projection: string): Promise<number>;
  setCheckpoint(projection: string, seq: number): Promise<void>;

  /** Drops every read model and checkpoint: the next projector run rebuilds from the log. */
  reset(): Promise<void>;
}
