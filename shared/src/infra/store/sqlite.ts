// Embedded read-model store on node:sqlite: persistent, no native build, the default for
// `npm start` and CI. Each collection is one table of JSON documents with three indexed
// columns (owner, created_at, lookup); WAL mode lets the gateway read while the projector
// writes from another process.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { EVERYONE, listIndex, toListed, type CollectionDef, type DocCollection } from './collection.js';
import type { BatchPageDoc } from './batches.js';
import { originOf, withRepeatedContent, type CrawlPageDoc, type CrawlPageOrigin, type CrawlPageQuery, type RepeatableField, type RepeatedContent } from './crawls.js';
import { COLLECTIONS, openCollections, type Collections, type ReadModelStore } from './types.js';

// The collections (store.scrapeJobs, ...) are made in the constructor, one per COLLECTIONS entry.
/** Prepared statements kept at most (the store uses a few dozen). */
const MAX_STATEMENTS = 500;

export interface SqliteStore extends Collections {}

export class SqliteStore implements ReadModelStore {
  readonly kind = 'sqlite' as const;
  private db: DatabaseSync | undefined;

  constructor(private readonly file: string) {
    Object.assign(this, openCollections((def) => this.collection(def)));
  }

  /** Prepared statements by their SQL: compiling one costs more than running it (about 110 µs of 200). */
  private readonly statements = new Map<string, StatementSync>();

  private get conn(): { prepare(sql: string): StatementSync; exec(sql: string): void } {
    const db = this.db;
    if (!db) throw new Error('SqliteStore used before init()');
    return { prepare: (sql) => this.statement(sql), exec: (sql) => db.exec(sql) };
  }

  private statement(sql: string): StatementSync {
    let prepared = this.statements.get(sql);
    if (!prepared) {
      prepared = this.db!.prepare(sql);
      // The SQL is a fixed set (table names, IN lists up to a page's length); the bound is a guard.
      if (this.statements.size >= MAX_STATEMENTS) this.statements.clear();
      this.statements.set(sql, prepared);
    }
    return prepared;
  }

  async init(): Promise<void> {
    if (this.db) return;
    if (this.file !== ':memory:') fs.mkdirSync(path.dirname(this.file), { recursive: true });
    this.db = new DatabaseSync(this.file);
    this.db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000;');
    this.db.exec('CREATE TABLE IF NOT EXISTS checkpoints (projection TEXT PRIMARY KEY, seq INTEGER NOT NULL)');
    for (const { name: c } of Object.values(COLLECTIONS)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS ${c} (
        id TEXT PRIMARY KEY, owner TEXT, created_at TEXT, lookup TEXT, doc TEXT NOT NULL)`);
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${c}_owner ON ${c} (owner, created_at DESC, id DESC)`);
      this.db.exec(`CREATE INDEX IF NOT EXISTS ${c}_lookup ON ${c} (lookup)`);
    }
    this.initCrawlPages();
    this.initBatches();
  }

  async close(): Promise<void> {
    this.statements.clear();
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

  // ---- document collections ---------------------------------------------------------

  private collection<Doc extends { id: string }, Listed>(def: CollectionDef<Doc, Listed>): DocCollection<Doc, Listed> {
    const parse = (row: unknown): Doc | null => (row ? (JSON.parse((row as { doc: string }).doc) as Doc) : null);
    const collection: DocCollection<Doc, Listed> = {
      get: async (id) => parse(this.conn.prepare(`SELECT doc FROM ${def.name} WHERE id = ?`).get(id)),
      find: async (value) => parse(this.conn.prepare(`SELECT doc FROM ${def.name} WHERE lookup = ? LIMIT 1`).get(value)),
      put: async (doc) => {
        const { owner, createdAt } = listIndex(def, doc);
        const lookup = def.lookup ? doc[def.lookup.field] : undefined;
        this.conn
          .prepare(`INSERT INTO ${def.name} (id, owner, created_at, lookup, doc) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(id) DO UPDATE SET owner = excluded.owner, created_at = excluded.created_at, lookup = excluded.lookup, doc = excluded.doc`)
          .run(doc.id, owner, createdAt, typeof lookup === 'string' ? lookup : null, JSON.stringify(doc));
      },
      delete: async (id) => {
        this.conn.prepare(`DELETE FROM ${def.name} WHERE id = ?`).run(id);
      },
      listBy: async (owner, page) => {
        // Omitted fields are dropped inside SQLite (as the Mongo store's projections do), so
        // a page of 100 scrapes does not parse 100 results' content in JavaScript.
        const omit = def.list?.omit ?? [];
        const doc = omit.length ? `json_remove(doc, ${omit.map(() => '?').join(', ')})` : 'doc';
        const rows = this.conn
          .prepare(`SELECT ${doc} AS doc FROM ${def.name} WHERE owner = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
          .all(...omit.map((f) => `$.${f}`), owner, page.limit, page.offset);
        return rows.map((r) => toListed(def, parse(r)!));
      },
      list: (page) => collection.listBy(EVERYONE, page),
    };
    return collection;
  }

  async reset(): Promise<void> {
    this.conn.exec('DELETE FROM checkpoints');
    for (const { name } of Object.values(COLLECTIONS)) this.conn.exec(`DELETE FROM ${name}`);
    this.conn.exec('DELETE FROM crawl_pages');
    this.conn.exec('DELETE FROM batch_pages');
  }

  // ---- crawls --------------------------------------------------------------------
  // Crawl pages get their own table with the columns the crawl queries filter and order on.

  private initCrawlPages(): void {
    this.conn.exec(`CREATE TABLE IF NOT EXISTS crawl_pages (
      crawl_id TEXT NOT NULL, page_key TEXT NOT NULL, requested_seq INTEGER NOT NULL, status TEXT NOT NULL,
      result_seq INTEGER, doc TEXT NOT NULL, PRIMARY KEY (crawl_id, page_key))`);
    this.conn.exec('CREATE INDEX IF NOT EXISTS crawl_pages_order ON crawl_pages (crawl_id, requested_seq)');
  }

  async getCrawlPage(crawlId: string, pageKey: string, read: { asStored?: boolean } = {}): Promise<CrawlPageDoc | null> {
    const row = this.conn.prepare('SELECT doc FROM crawl_pages WHERE crawl_id = ? AND page_key = ?').get(crawlId, pageKey) as { doc: string } | undefined;
    if (!row) return null;
    const doc = JSON.parse(row.doc) as CrawlPageDoc;
    return read.asStored ? doc : (await withRepeatedContent([doc], this.repeatedContent))[0]!;
  }

  async crawlPageOrigin(crawlId: string, pageKey: string): Promise<CrawlPageOrigin | null> {
    // Read inside SQLite: the content itself is not parsed in JavaScript.
    const row = this.conn
      .prepare(`SELECT status, doc -> '$.repeats' AS repeats, json_type(doc, '$.markdown') AS markdown, json_type(doc, '$.html') AS html,
        json_type(doc, '$.rawHtml') AS rawHtml, json_type(doc, '$.json') AS json FROM crawl_pages WHERE crawl_id = ? AND page_key = ?`)
      .get(crawlId, pageKey) as ({ status: string; repeats: string | null } & Record<RepeatableField, string | null>) | undefined;
    if (!row) return null;
    return originOf({ crawlId, pageKey, status: row.status, ...(row.repeats ? { repeats: JSON.parse(row.repeats) as CrawlPageOrigin } : {}) }, (f) => row[f] !== null);
  }

  /** A page's content fields only (what a page repeating it shows). */
  private readonly repeatedContent = async (crawlId: string, pageKey: string): Promise<RepeatedContent | null> => {
    const row = this.conn
      .prepare(`SELECT doc ->> '$.markdown' AS markdown, doc ->> '$.html' AS html, doc ->> '$.rawHtml' AS rawHtml, doc -> '$.json' AS json
        FROM crawl_pages WHERE crawl_id = ? AND page_key = ?`)
      .get(crawlId, pageKey) as Record<RepeatableField, string | null> | undefined;
    if (!row) return null;
    return {
      ...(row.markdown !== null ? { markdown: row.markdown } : {}),
      ...(row.html !== null ? { html: row.html } : {}),
      ...(row.rawHtml !== null ? { rawHtml: row.rawHtml } : {}),
      ...(row.json !== null ? { json: JSON.parse(row.json) as unknown } : {}),
    };
  };

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
    return withRepeatedContent(rows.map((r) => JSON.parse(r.doc) as CrawlPageDoc), this.repeatedContent);
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
  // Batch pages are keyed by (batch, page key).

  private initBatches(): void {
    this.conn.exec(`CREATE TABLE IF NOT EXISTS batch_pages (
      batch_id TEXT NOT NULL, page_key TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (batch_id, page_key))`);
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
}
