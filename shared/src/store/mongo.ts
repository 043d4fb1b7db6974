// Production read-model store on MongoDB with the official driver. Same documents as the
// embedded store; indexes are created at init. The driver is imported in init(), not at
// load: it costs about 25 MB of memory in every process that merely links this file (the
// gateway and projector with the default embedded store never load it).
import type { Collection, Db, Document, MongoClient } from 'mongodb';
import type { ApiKeyDoc, KeyUsageDoc, ScrapeCacheDoc, Page, ReadModelStore, ScrapeJobDoc, ScrapeJobSummary } from './types.js';
import type { CrawlJobDoc, CrawlPageDoc, CrawlPageQuery } from './types.js';
import { toScrapeSummary } from './types.js';
import { toBatchSummary, type BatchJobDoc, type BatchJobSummary, type BatchPageDoc } from './types.js';
import type { AccountDoc, InviteDoc, KeyDailyPagesDoc, MapJobDoc, SessionDoc } from './types.js';

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
    const { MongoClient } = await import('mongodb');
    if (this.client) return;
    this.client = new MongoClient(this.url, { serverSelectionTimeoutMS: 5000 });
    await this.client.connect();
    this.db = this.client.db(this.dbName);
    await this.col<ScrapeJobDoc>('scrape_jobs').createIndexes([
      { key: { apiKeyId: 1, createdAt: -1, _id: -1 }, name: 'by_owner' },
    ]);
    await this.col<ApiKeyDoc>('api_keys').createIndex({ keyHash: 1 }, { name: 'by_hash', unique: true });
    await this.col<ApiKeyDoc>('api_keys').createIndex({ accountId: 1, createdAt: -1, _id: -1 }, { name: 'by_account', sparse: true });
    await this.col<AccountDoc>('accounts').createIndex({ createdAt: -1, _id: -1 }, { name: 'newest' });
    await this.col<InviteDoc>('invites').createIndex({ createdAt: -1, _id: -1 }, { name: 'newest' });
    await this.col<MapJobDoc>('map_jobs').createIndex({ apiKeyId: 1, createdAt: -1, _id: -1 }, { name: 'by_owner' });
    await this.initCrawls();
    await this.initBatches();
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

  async getScrapeCacheEntry(cacheKey: string): Promise<ScrapeCacheDoc | null> {
    return strip(await this.col<ScrapeCacheDoc>('scrape_cache').findOne({ _id: cacheKey }));
  }

  async saveScrapeCacheEntry(doc: ScrapeCacheDoc): Promise<void> {
    await this.put('scrape_cache', doc);
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

  async getKeyUsage(keyId: string): Promise<KeyUsageDoc | null> {
    return strip(await this.col<KeyUsageDoc>('key_usage').findOne({ _id: keyId }));
  }

  async saveKeyUsage(doc: KeyUsageDoc): Promise<void> {
    await this.put('key_usage', doc);
  }

  async reset(): Promise<void> {
    for (const c of await this.db.listCollections({}, { nameOnly: true }).toArray()) {
      await this.db.collection(c.name).deleteMany({});
    }
  }

  // ---- crawls --------------------------------------------------------------------

  private async initCrawls(): Promise<void> {
    await this.col<CrawlJobDoc>('crawl_jobs').createIndex({ apiKeyId: 1, createdAt: -1, _id: -1 }, { name: 'by_owner' });
    await this.col<CrawlPageDoc>('crawl_pages').createIndexes([
      { key: { crawlId: 1, requestedSeq: 1 }, name: 'by_crawl_order' },
      { key: { crawlId: 1, status: 1, resultSeq: 1 }, name: 'by_crawl_status' },
    ]);
  }

  async getCrawlJob(id: string): Promise<CrawlJobDoc | null> {
    return strip(await this.col<CrawlJobDoc>('crawl_jobs').findOne({ _id: id }));
  }

  async saveCrawlJob(doc: CrawlJobDoc): Promise<void> {
    await this.put('crawl_jobs', doc);
  }

  async listCrawlJobs(apiKeyId: string, page: Page): Promise<CrawlJobDoc[]> {
    const docs = await this.col<CrawlJobDoc>('crawl_jobs')
      .find({ apiKeyId })
      .sort({ createdAt: -1, _id: -1 })
      .skip(page.offset)
      .limit(page.limit)
      .toArray();
    return docs.map((d) => strip(d)!);
  }

  private static pageId(crawlId: string, pageKey: string): string {
    return `${crawlId}:${pageKey}`;
  }

  async getCrawlPage(crawlId: string, pageKey: string): Promise<CrawlPageDoc | null> {
    return strip(await this.col<CrawlPageDoc>('crawl_pages').findOne({ _id: MongoStore.pageId(crawlId, pageKey) }));
  }

  async saveCrawlPage(doc: CrawlPageDoc): Promise<void> {
    const _id = MongoStore.pageId(doc.crawlId, doc.pageKey);
    await this.col<CrawlPageDoc>('crawl_pages').replaceOne({ _id } as never, { ...doc, _id } as never, { upsert: true });
  }

  private static resultFilter(beforeResultSeq?: number): Document {
    return beforeResultSeq === undefined ? {} : { resultSeq: { $lt: beforeResultSeq } };
  }

  async listCrawlPages(crawlId: string, query: CrawlPageQuery): Promise<CrawlPageDoc[]> {
    const docs = await this.col<CrawlPageDoc>('crawl_pages')
      .find({ crawlId, ...(query.anyStatus ? {} : { status: 'COMPLETED' }), requestedSeq: { $gt: query.afterRequestedSeq }, ...MongoStore.resultFilter(query.beforeResultSeq) } as never)
      .sort({ requestedSeq: 1 })
      .limit(query.limit)
      .toArray();
    return docs.map((d) => strip(d)!);
  }

  async countCrawlPages(crawlId: string, beforeResultSeq?: number): Promise<{ completed: number; failed: number }> {
    const pages = this.col<CrawlPageDoc>('crawl_pages');
    const scope = { crawlId, ...MongoStore.resultFilter(beforeResultSeq) };
    // A completed error page (HTTP >= 400, or a soft 404) counts as failed (isHttpErrorPage).
    const [completed, failed] = await Promise.all([
      pages.countDocuments({ ...scope, status: 'COMPLETED', 'metadata.statusCode': { $not: { $gte: 400 } }, 'metadata.pageOutcome': { $ne: 'soft-404' } } as never),
      pages.countDocuments({ ...scope, $or: [{ status: 'FAILED' }, { status: 'COMPLETED', 'metadata.statusCode': { $gte: 400 } }, { status: 'COMPLETED', 'metadata.pageOutcome': 'soft-404' }] } as never),
    ]);
    return { completed, failed };
  }

  // ---- batches -------------------------------------------------------------------

  private async initBatches(): Promise<void> {
    await this.col<BatchJobDoc>('batch_jobs').createIndex({ apiKeyId: 1, createdAt: -1, _id: -1 }, { name: 'by_owner' });
    // batch_pages are found by _id (`<batchId>:<pageKey>`) only.
  }

  async getBatchJob(id: string): Promise<BatchJobDoc | null> {
    return strip(await this.col<BatchJobDoc>('batch_jobs').findOne({ _id: id }));
  }

  async saveBatchJob(doc: BatchJobDoc): Promise<void> {
    await this.put('batch_jobs', doc);
  }

  async listBatchJobs(apiKeyId: string, page: Page): Promise<BatchJobSummary[]> {
    const docs = await this.col<BatchJobDoc>('batch_jobs')
      .find({ apiKeyId }, { projection: { pages: 0, options: 0 } })
      .sort({ createdAt: -1, _id: -1 })
      .skip(page.offset)
      .limit(page.limit)
      .toArray();
    return docs.map((d) => toBatchSummary(strip(d)!));
  }

  private static batchPageId(batchId: string, pageKey: string): string {
    return `${batchId}:${pageKey}`;
  }

  async getBatchPage(batchId: string, pageKey: string): Promise<BatchPageDoc | null> {
    return strip(await this.col<BatchPageDoc>('batch_pages').findOne({ _id: MongoStore.batchPageId(batchId, pageKey) }));
  }

  async saveBatchPage(doc: BatchPageDoc): Promise<void> {
    const _id = MongoStore.batchPageId(doc.batchId, doc.pageKey);
    await this.col<BatchPageDoc>('batch_pages').replaceOne({ _id } as never, { ...doc, _id } as never, { upsert: true });
  }

  async getBatchPages(batchId: string, pageKeys: readonly string[]): Promise<BatchPageDoc[]> {
    if (pageKeys.length === 0) return [];
    const ids = pageKeys.map((k) => MongoStore.batchPageId(batchId, k));
    const docs = await this.col<BatchPageDoc>('batch_pages').find({ _id: { $in: ids } } as never).toArray();
    return docs.map((d) => strip(d)!);
  }

  // ---- the web console -----------------------------------------------------------

  private async newest<T extends Document>(name: string, filter: Document, page: Page): Promise<T[]> {
    const docs = await this.col<T>(name).find(filter as never).sort({ createdAt: -1, _id: -1 }).skip(page.offset).limit(page.limit).toArray();
    return docs.map((d) => strip<T>(d as Stored<T>)!);
  }

  async getAccount(id: string): Promise<AccountDoc | null> {
    return strip(await this.col<AccountDoc>('accounts').findOne({ _id: id }));
  }

  async saveAccount(doc: AccountDoc): Promise<void> {
    await this.put('accounts', doc);
  }

  async listAccounts(page: Page): Promise<AccountDoc[]> {
    return this.newest<AccountDoc>('accounts', {}, page);
  }

  async getInvite(id: string): Promise<InviteDoc | null> {
    return strip(await this.col<InviteDoc>('invites').findOne({ _id: id }));
  }

  async saveInvite(doc: InviteDoc): Promise<void> {
    await this.put('invites', doc);
  }

  async listInvites(page: Page): Promise<InviteDoc[]> {
    return this.newest<InviteDoc>('invites', {}, page);
  }

  async getSession(id: string): Promise<SessionDoc | null> {
    return strip(await this.col<SessionDoc>('sessions').findOne({ _id: id }));
  }

  async saveSession(doc: SessionDoc): Promise<void> {
    await this.put('sessions', doc);
  }

  async listApiKeysByAccount(accountId: string, page: Page): Promise<ApiKeyDoc[]> {
    return this.newest<ApiKeyDoc>('api_keys', { accountId }, page);
  }

  async getKeyDailyPages(keyId: string): Promise<KeyDailyPagesDoc | null> {
    return strip(await this.col<KeyDailyPagesDoc>('key_daily_pages').findOne({ _id: keyId }));
  }

  async saveKeyDailyPages(doc: KeyDailyPagesDoc): Promise<void> {
    await this.put('key_daily_pages', doc);
  }

  async getMapJob(id: string): Promise<MapJobDoc | null> {
    return strip(await this.col<MapJobDoc>('map_jobs').findOne({ _id: id }));
  }

  async saveMapJob(doc: MapJobDoc): Promise<void> {
    await this.put('map_jobs', doc);
  }

  async listMapJobs(apiKeyId: string, page: Page): Promise<MapJobDoc[]> {
    const docs = await this.col<MapJobDoc>('map_jobs').find({ apiKeyId }, { projection: { links: 0 } })
      .sort({ createdAt: -1, _id: -1 }).skip(page.offset).limit(page.limit).toArray();
    return docs.map((d) => strip(d)!);
  }
}
