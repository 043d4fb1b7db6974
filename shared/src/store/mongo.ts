// Production read-model store on MongoDB with the official driver. Same documents as the
// embedded store; indexes are created at init.
import { MongoClient, type Collection, type Db, type Document } from 'mongodb';
import type { ApiKeyDoc, Page, ReadModelStore, ScrapeJobDoc, ScrapeJobSummary } from './types.js';
import { toScrapeSummary } from './types.js';

type Stored<T> = T & { _id: string };

function strip<T>(doc: Stored<T> | null): T | null {
  if (!doc) return null;
  const { _id, ...rest } = doc as Stored<T> & Document;
  void _id;
  return rest as T;
}

export class MongoStore implements ReadModelStore {
  readonly kind = 'mongodb' as const;
  private client: MongoClient | undefined;
  protected db!: Db;

  constructor(private readonly url: string, private readonly dbName?: string) {}

  protected col<T extends Document>(name: string): Collection<Stored<T>> {
    return this.db.collection<Stored<T>>(name);
  }

  async init(): Promise<void> {
    if (this.client) return;
    this.client = new MongoClient(this.url, { serverSelectionTimeoutMS: 5000 });
    await this.client.connect();
    this.db = this.client.db(this.dbName);
    await this.col<ScrapeJobDoc>('scrape_jobs').createIndexes([
      { key: { apiKeyId: 1, createdAt: -1, _id: -1 }, name: 'by_owner' },
      { key: { cacheKey: 1 }, name: 'by_cache_key', sparse: true },
    ]);
    await this.col<ApiKeyDoc>('api_keys').createIndex({ keyHash: 1 }, { name: 'by_hash', unique: true });
  }

  async close(): Promise<void> {
    await this.client?.close();
    this.client = undefined;
  }

  async ping(): Promise<boolean> {
    try {
      await this.db.command({ ping: 1 });
      return true;
    } catch {
      return false;
    }
  }

  async getCheckpoint(projection: string): Promise<number> {
    const doc = await this.db.collection<{ _id: string; seq: number }>('checkpoints').findOne({ _id: projection });
    return doc?.seq ?? 0;
  }

  async setCheckpoint(projection: string, seq: number): Promise<void> {
    await this.db.collection<{ _id: string; seq: number }>('checkpoints').updateOne({ _id: projection }, { $max: { seq } }, { upsert: true });
  }

  protected async put<T extends { id: string }>(name: string, doc: T): Promise<void> {
    await this.col<T>(name).replaceOne({ _id: doc.id } as never, { ...doc, _id: doc.id } as never, { upsert: true });
  }

  async getScrapeJob(id: string): Promise<ScrapeJobDoc | null> {
    return strip(await this.col<ScrapeJobDoc>('scrape_jobs').findOne({ _id: id }));
  }

  async saveScrapeJob(doc: ScrapeJobDoc): Promise<void> {
    await this.put('scrape_jobs', doc);
  }

  async listScrapeJobs(apiKeyId: string, page: Page): Promise<ScrapeJobSummary[]> {
    const docs = await this.col<ScrapeJobDoc>('scrape_jobs')
      .find({ apiKeyId }, { projection: { content: 0, options: 0 } })
      .sort({ createdAt: -1, _id: -1 })
      .skip(page.offset)
      .limit(page.limit)
      .toArray();
    return docs.map((d) => toScrapeSummary(strip(d)!));
  }

  async getApiKey(id: string): Promise<ApiKeyDoc | null> {
    return strip(await this.col<ApiKeyDoc>('api_keys').findOne({ _id: id }));
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyDoc | null> {
    return strip(await this.col<ApiKeyDoc>('api_keys').findOne({ keyHash }));
  }

  async saveApiKey(doc: ApiKeyDoc): Promise<void> {
    await this.put('api_keys', doc);
  }

  async reset(): Promise<void> {
    for (const c of await this.db.listCollections({}, { nameOnly: true }).toArray()) {
      await this.db.collection(c.name).deleteMany({});
    }
  }
}
