// Embedded read-model store on node:sqlite: persistent, no native build, the default for
// `npm start` and CI. Each collection is one table of JSON documents with three indexed
// columns (owner, created_at, lookup); WAL mode lets the gateway read while the projector
// writes from another process.
import fs from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { ApiKeyDoc, Page, ReadModelStore, ScrapeJobDoc, ScrapeJobSummary } from './types.js';
import { toScrapeSummary } from './types.js';

export const COLLECTIONS = ['scrape_jobs', 'api_keys'] as const;
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

  protected listDocs<T>(collection: Collection, owner: string, page: Page): T[] {
    const rows = this.conn
      .prepare(`SELECT doc FROM ${collection} WHERE owner = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .all(owner, page.limit, page.offset) as { doc: string }[];
    return rows.map((r) => JSON.parse(r.doc) as T);
  }

  // ---- domain operations ----------------------------------------------------------

  async getScrapeJob(id: string): Promise<ScrapeJobDoc | null> {
    return this.getDoc<ScrapeJobDoc>('scrape_jobs', id);
  }

  async saveScrapeJob(doc: ScrapeJobDoc): Promise<void> {
    this.putDoc('scrape_jobs', doc.id, doc, { owner: doc.apiKeyId, createdAt: doc.createdAt, lookup: doc.cacheKey });
  }

  async listScrapeJobs(apiKeyId: string, page: Page): Promise<ScrapeJobSummary[]> {
    return this.listDocs<ScrapeJobDoc>('scrape_jobs', apiKeyId, page).map(toScrapeSummary);
  }

  async getApiKey(id: string): Promise<ApiKeyDoc | null> {
    return this.getDoc<ApiKeyDoc>('api_keys', id);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyDoc | null> {
    return this.findDoc<ApiKeyDoc>('api_keys', keyHash);
  }

  async saveApiKey(doc: ApiKeyDoc): Promise<void> {
    this.putDoc('api_keys', doc.id, doc, { createdAt: doc.createdAt, lookup: doc.keyHash });
  }

  async reset(): Promise<void> {
    this.conn.exec('DELETE FROM checkpoints');
    for (const c of this.collections) this.conn.exec(`DELETE FROM ${c}`);
  }
}
