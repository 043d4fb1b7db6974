// Embedded read-model store on node:sqlite: persistent, no native build, the default for
// `npm start` and CI. Each collection is one table of JSON documents with three indexed
// columns (owner, created_at, lookup); WAL mode lets the gateway read while the projector
// writes from another process.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ApiKeyDoc, KeyUsageDoc, ScrapeCacheDoc, Page, ReadModelStore, ScrapeJobDoc, ScrapeJobSummary } from './types.js';
import type { CrawlJobDoc, CrawlPageDoc, CrawlPageQuery } from './types.js';
import { toScrapeSummary } from './types.js';
import { toBatchSummary, type BatchJobDoc, type BatchJobSummary, type BatchPageDoc } from './types.js';
import type { AccountDoc, InviteDoc, KeyDailyPagesDoc, MapJobDoc, SessionDoc } from './types.js';

/** The owner column of collections listed whole (accounts, invites). */
const EVERYONE = '*';

export const COLLECTIONS = ['scrape_jobs', 'scrape_cache', 'api_keys', 'crawl_jobs', 'key_usage', 'accounts', 'invites', 'sessions', 'key_daily_pages', 'map_jobs'] as const;
type Collection = (typeof COLLECTIONS)[number] | (string & {});

interface Indexed {
  owner?: string | undefined;
  createdAt?: string | undefined;
  lookup?: string | undefined;
}

export class SqliteStore implements ReadModelStore {
  readonly kind = 'sqlite' as const;
  private db: DatabaseSync | undefined;

  constructor(private readonly file: string, private readonly collections: readonly string[] = COLLECTIONS) {}

  private get conn(): DatabaseSync {
    if (!this.db) throw new Error('SqliteStore used before init()');
    return this.db;
  }

  async init(): Promise<void> {
    if (this.db) return;
    if (this.file !== ':memory:') fs.mkdirSync(path.dirname(this.file), { recursive: true });
    this.db = new DatabaseSync(this.file);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, seq INTEGER NOT NULL)');
    for (const c of this.collections) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${c} (
        id TEXT PRIMARY KEY, owner TEXT, created_at TEXT, lookup TEXT, doc TEXT NOT NULL)`);
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${c}_owner ON ${c} (owner, created_at DESC, id DESC)`);
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${c}_lookup ON ${c} (lookup)`);
    }
    this.initCrawlPages();
    this.initBatches();
  }

  async close(): Promise<void> {
    this.db?.close();
    this.db = undefined;
  }

  async ping(): Promise<boolean> {
    try {
      this.conn.prepare('SELECT 1').get();
      return true;
    } catch {
      return false;
    }
  }

  async getCheckpoint(projection: string): Promise<number> {
    const row = this.conn.prepare('SELECT seq FROM checkpoints WHERE projection = ?').get(projection) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  async setCheckpoint(projection: string, seq: number): Promise<void> {
    this.conn
      .prepare('INSERT INTO checkpoints (projection, seq) VALUES (?, ?) ON CONFLICT(projection) DO UPDATE SET seq = MAX(seq, excluded.seq)')
      .run(projection, seq);
  }

  // ---- generic document table -----------------------------------------------------

  protected getDoc<T>(collection: Collection, id: string): T | null {
    const row = this.conn.prepare(`SELECT doc FROM ${collection} WHERE id = ?`).get(id) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  protected findDoc<T>(collection: Collection, lookup: string): T | null {
    const row = this.conn.prepare(`SELECT doc FROM ${collection} WHERE lookup = ? LIMIT 1`).get(lookup) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as T) : null;
  }

  protected putDoc(collection: Collection, id: string, doc: unknown, idx: Indexed): void {
    this.conn
      .prepare(`INSERT INTO ${collection} (id, owner, created_at, lookup, doc) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, created_at = excluded.created_at, lookup = excluded.lookup, doc = excluded.doc`)
      .run(id, idx.owner ?? null, idx.createdAt ?? null, idx.lookup ?? null, JSON.stringify(doc));
  }

  /**
   * `omit`: top-level fields a list does not show, dropped inside SQLite (as the Mongo store's
   * projections do) so a page of 100 scrapes does not parse 100 results' content in JavaScript.
   */
  protected listDocs<T>(collection: Collection, owner: string, page: Page, omit: readonly string[] = []): T[] {
    const doc = omit.length ? `json_remove(doc, ${omit.map(() => '?').join(', ')})` : 'doc';
    const rows = this.conn
      .prepare(`SELECT ${doc} AS doc FROM ${collection} WHERE owner = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(...omit.map((f) => `$.${f}`), owner, page.limit, page.offset) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  // ---- domain operations ----------------------------------------------------------

  async getScrapeJob(id: string): Promise<ScrapeJobDoc | null> {
    return this.getDoc<ScrapeJobDoc>('scrape_jobs', id);
  }

  async saveScrapeJob(doc: ScrapeJobDoc): Promise<void> {
    this.putDoc('scrape_jobs', doc.id, doc, { owner: doc.apiKeyId, createdAt: doc.createdAt });
  }

  async listScrapeJobs(apiKeyId: string, page: Page): Promise<ScrapeJobSummary[]> {
    return this.listDocs<ScrapeJobDoc>('scrape_jobs', apiKeyId, page, ['content', 'options']).map(toScrapeSummary);
  }

  async getScrapeCacheEntry(cacheKey: string): Promise<ScrapeCacheDoc | null> {
    return this.getDoc<ScrapeCacheDoc>('scrape_cache', cacheKey);
  }

  async saveScrapeCacheEntry(doc: ScrapeCacheDoc): Promise<void> {
    this.putDoc('scrape_cache', doc.id, doc, {});
  }

  async getApiKey(id: string): Promise<ApiKeyDoc | null> {
    return this.getDoc<ApiKeyDoc>('api_keys', id);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyDoc | null> {
    return this.findDoc<ApiKeyDoc>('api_keys', keyHash);
  }

  async saveApiKey(doc: ApiKeyDoc): Promise<void> {
    this.putDoc('api_keys', doc.id, doc, { owner: doc.accountId, createdAt: doc.createdAt, lookup: doc.keyHash });
  }

  async getKeyUsage(keyId: string): Promise<KeyUsageDoc | null> {
    return this.getDoc<KeyUsageDoc>('key_usage', keyId);
  }

  async saveKeyUsage(doc: KeyUsageDoc): Promise<void> {
    this.putDoc('key_usage', doc.id, doc, {});
  }

  async reset(): Promise<void> {
    this.conn.exec('DELETE FROM checkpoints');
    for (const c of this.collections) this.conn.exec(`DELETE FROM ${c}`);
    this.conn.exec('DELETE FROM crawl_pages');
    this.resetBatches();
  }

  // ---- crawls --------------------------------------------------------------------
  // Crawl jobs are a document collection like the others; crawl pages get their own table
  // with the columns the crawl queries filter and order on.

  private initCrawlPages(): void {
    this.conn.exec(`CREATE TABLE IF NOT EXISTS crawl_pages (
      crawl_id TEXT NOT NULL, page_key TEXT NOT NULL, requested_seq INTEGER NOT NULL, status TEXT NOT NULL,
      result_seq INTEGER, doc TEXT NOT NULL, PRIMARY KEY (crawl_id, page_key))`);
    this.conn.exec('CREATE INDEX IF NOT EXISTS crawl_pages_order ON crawl_pages (crawl_id, requested_seq)');
  }

  async getCrawlJob(id: string): Promise<CrawlJobDoc | null> {
    return this.getDoc<CrawlJobDoc>('crawl_jobs', id);
  }

  async saveCrawlJob(doc: CrawlJobDoc): Promise<void> {
    this.putDoc('crawl_jobs', doc.id, doc, { owner: doc.apiKeyId, createdAt: doc.createdAt });
  }

  async listCrawlJobs(apiKeyId: string, page: Page): Promise<CrawlJobDoc[]> {
    return this.listDocs<CrawlJobDoc>('crawl_jobs', apiKeyId, page);
  }

  async getCrawlPage(crawlId: string, pageKey: string): Promise<CrawlPageDoc | null> {
    const row = this.conn.prepare('SELECT doc FROM crawl_pages WHERE crawl_id = ? AND page_key = ?').get(crawlId, pageKey) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as CrawlPageDoc) : null;
  }

  async saveCrawlPage(doc: CrawlPageDoc): Promise<void> {
    this.conn
      .prepare(`INSERT INTO crawl_pages (crawl_id, page_key, requested_seq, status, result_seq, doc) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(crawl_id, page_key) DO UPDATE SET requested_seq = excluded.requested_seq, status = excluded.status,
        result_seq = excluded.result_seq, doc = excluded.doc`)
      .run(doc.crawlId, doc.pageKey, doc.requestedSeq, doc.status, doc.resultSeq ?? null, JSON.stringify(doc));
  }

  async listCrawlPages(crawlId: string, query: CrawlPageQuery): Promise<CrawlPageDoc[]> {
    const rows = this.conn
      .prepare(`SELECT doc FROM crawl_pages WHERE crawl_id = ? AND (? OR status = 'COMPLETED') AND requested_seq > ?
        AND (? IS NULL OR result_seq < ?) ORDER BY requested_seq LIMIT ?`)
      .all(crawlId, query.anyStatus ? 1 : 0, query.afterRequestedSeq, query.beforeResultSeq ?? null, query.beforeResultSeq ?? null, query.limit) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as CrawlPageDoc);
  }

  async countCrawlPages(crawlId: string, beforeResultSeq?: number): Promise<{ completed: number; failed: number }> {
    const rows = this.conn
      // A completed error page (HTTP >= 400, or a soft 404) counts as failed (isHttpErrorPage).
      .prepare(`SELECT CASE WHEN status = 'COMPLETED' AND (COALESCE(json_extract(doc, '$.metadata.statusCode'), 0) >= 400
          OR json_extract(doc, '$.metadata.pageOutcome') = 'soft-404') THEN 'FAILED' ELSE status END AS status, COUNT(*) AS n
        FROM crawl_pages WHERE crawl_id = ? AND status != 'PENDING'
        AND (? IS NULL OR result_seq < ?) GROUP BY 1`)
      .all(crawlId, beforeResultSeq ?? null, beforeResultSeq ?? null) as { status: string; n: number }[];
    const count = (status: string): number => Number(rows.find((r) => r.status === status)?.n ?? 0);
    return { completed: count('COMPLETED'), failed: count('FAILED') };
  }

  // ---- batches -------------------------------------------------------------------
  // Batch jobs are documents like the others (owner, created_at indexed); batch pages are
  // keyed by (batch, page key).

  private initBatches(): void {
    this.conn.exec(`CREATE TABLE IF NOT EXISTS batch_jobs (
      id TEXT PRIMARY KEY, owner TEXT, created_at TEXT, lookup TEXT, doc TEXT NOT NULL)`);
    this.conn.exec('CREATE INDEX IF NOT EXISTS batch_jobs_owner ON batch_jobs (owner, created_at DESC, id DESC)');
    this.conn.exec(`CREATE TABLE IF NOT EXISTS batch_pages (
      batch_id TEXT NOT NULL, page_key TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (batch_id, page_key))`);
  }

  private resetBatches(): void {
    this.conn.exec('DELETE FROM batch_jobs');
    this.conn.exec('DELETE FROM batch_pages');
  }

  async getBatchJob(id: string): Promise<BatchJobDoc | null> {
    return this.getDoc<BatchJobDoc>('batch_jobs', id);
  }

  async saveBatchJob(doc: BatchJobDoc): Promise<void> {
    this.putDoc('batch_jobs', doc.id, doc, { owner: doc.apiKeyId, createdAt: doc.createdAt });
  }

  async listBatchJobs(apiKeyId: string, page: Page): Promise<BatchJobSummary[]> {
    return this.listDocs<BatchJobDoc>('batch_jobs', apiKeyId, page, ['pages', 'options']).map(toBatchSummary);
  }

  async getBatchPage(batchId: string, pageKey: string): Promise<BatchPageDoc | null> {
    const row = this.conn.prepare('SELECT doc FROM batch_pages WHERE batch_id = ? AND page_key = ?').get(batchId, pageKey) as { doc: string } | undefined;
    return row ? (JSON.parse(row.doc) as BatchPageDoc) : null;
  }

  async saveBatchPage(doc: BatchPageDoc): Promise<void> {
    this.conn
      .prepare(`INSERT INTO batch_pages (batch_id, page_key, doc) VALUES (?, ?, ?)
        ON CONFLICT(batch_id, page_key) DO UPDATE SET doc = excluded.doc`)
      .run(doc.batchId, doc.pageKey, JSON.stringify(doc));
  }

  async getBatchPages(batchId: string, pageKeys: readonly string[]): Promise<BatchPageDoc[]> {
    if (pageKeys.length === 0) return [];
    const rows = this.conn
      .prepare(`SELECT doc FROM batch_pages WHERE batch_id = ? AND page_key IN (${pageKeys.map(() => '?').join(', ')})`)
      .all(batchId, ...pageKeys) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as BatchPageDoc);
  }

  // ---- the web console -----------------------------------------------------------

  async getAccount(id: string): Promise<AccountDoc | null> {
    return this.getDoc<AccountDoc>('accounts', id);
  }

  async saveAccount(doc: AccountDoc): Promise<void> {
    this.putDoc('accounts', doc.id, doc, { owner: EVERYONE, createdAt: doc.createdAt });
  }

  async listAccounts(page: Page): Promise<AccountDoc[]> {
    return this.listDocs<AccountDoc>('accounts', EVERYONE, page);
  }

  async getInvite(id: string): Promise<InviteDoc | null> {
    return this.getDoc<InviteDoc>('invites', id);
  }

  async saveInvite(doc: InviteDoc): Promise<void> {
    this.putDoc('invites', doc.id, doc, { owner: EVERYONE, createdAt: doc.createdAt });
  }

  async listInvites(page: Page): Promise<InviteDoc[]> {
    return this.listDocs<InviteDoc>('invites', EVERYONE, page);
  }

  async getSession(id: string): Promise<SessionDoc | null> {
    return this.getDoc<SessionDoc>('sessions', id);
  }

  async saveSession(doc: SessionDoc): Promise<void> {
    this.putDoc('sessions', doc.id, doc, { owner: doc.accountId, createdAt: doc.startedAt });
  }

  async listApiKeysByAccount(accountId: string, page: Page): Promise<ApiKeyDoc[]> {
    return this.listDocs<ApiKeyDoc>('api_keys', accountId, page);
  }

  async getKeyDailyPages(keyId: string): Promise<KeyDailyPagesDoc | null> {
    return this.getDoc<KeyDailyPagesDoc>('key_daily_pages', keyId);
  }

  async saveKeyDailyPages(doc: KeyDailyPagesDoc): Promise<void> {
    this.putDoc('key_daily_pages', doc.id, doc, {});
  }

  async getMapJob(id: string): Promise<MapJobDoc | null> {
    return this.getDoc<MapJobDoc>('map_jobs', id);
  }

  async saveMapJob(doc: MapJobDoc): Promise<void> {
    this.putDoc('map_jobs', doc.id, doc, { owner: doc.apiKeyId, createdAt: doc.createdAt });
  }

  async listMapJobs(apiKeyId: string, page: Page): Promise<MapJobDoc[]> {
    return this.listDocs<MapJobDoc>('map_jobs', apiKeyId, page, ['links']);
  }
}
