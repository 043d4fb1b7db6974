// Production read-model store on MongoDB with the official driver. Same documents as the
// embedded store; indexes are created at init. The driver is imported in init(), not at
// load: it costs tens of MB in every process that merely links this file (docs/benchmarks.md
// "Third session"; the gateway and projector with the default embedded store never load it).
import type { Collection, Db, Document, MongoClient } from 'mongodb';
import type { BatchPageDoc } from './batches.js';
import { toListed, type CollectionDef, type DocCollection, type Page } from './collection.js';
import { originOf, REPEATABLE_FIELDS, withRepeatedContent, type CrawlPageDoc, type CrawlPageOrigin, type CrawlPageQuery, type RepeatableField, type RepeatedContent } from './crawls.js';
import { COLLECTIONS, openCollections, type Collections, type ReadModelStore } from './types.js';

type Stored<T> = T & { _id: string };

function strip<T>(doc: Stored<T> | null): T | null {
  if (!doc) return null;
  const { _id, ...rest } = doc as Stored<T> & Document;
  void _id;
  return rest as T;
}

// The collections (store.scrapeJobs, ...) are made in the constructor, one per COLLECTIONS entry.
export interface MongoStore extends Collections {}

export class MongoStore implements ReadModelStore {
  readonly kind = 'mongodb' as const;
  private client: MongoClient | undefined;
  protected db!: Db;

  constructor(private readonly url: string, private readonly dbName?: string) {
    Object.assign(this, openCollections((def) => this.collection(def)));
  }

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
    for (const def of Object.values(COLLECTIONS) as CollectionDef<{ id: string }, unknown>[]) {
      const col = this.db.collection(def.name);
      if (def.list) {
        const key = { ...(def.list.owner ? { [def.list.owner]: 1 } : {}), [def.list.createdAt]: -1, _id: -1 };
        await col.createIndex(key, { name: def.list.mongoIndex, ...(def.list.sparse ? { sparse: true } : {}) });
      }
      if (def.lookup) await col.createIndex({ [def.lookup.field]: 1 }, { name: def.lookup.mongoIndex, unique: true });
    }
    await this.initCrawls();
    // batch_pages are found by _id (`<batchId>:<pageKey>`) only.
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

  // ---- document collections ---------------------------------------------------------

  private collection<Doc extends { id: string }, Listed>(def: CollectionDef<Doc, Listed>): DocCollection<Doc, Listed> {
    const col = (): Collection<Document> => this.db.collection(def.name);
    const list = async (filter: Document, page: Page): Promise<Listed[]> => {
      const projection = Object.fromEntries((def.list?.omit ?? []).map((f) => [f, 0]));
      const docs = await col().find(filter, { projection }).sort({ [def.list?.createdAt ?? 'createdAt']: -1, _id: -1 })
        .skip(page.offset).limit(page.limit).toArray();
      return docs.map((d) => toListed(def, strip<Doc>(d as unknown as Stored<Doc>)!));
    };
    return {
      get: async (id) => strip<Doc>((await col().findOne({ _id: id } as never)) as unknown as Stored<Doc> | null),
      find: async (value) => (def.lookup ? strip<Doc>((await col().findOne({ [def.lookup.field]: value } as never)) as unknown as Stored<Doc> | null) : null),
      put: async (doc) => {
        await col().replaceOne({ _id: doc.id } as never, { ...doc, _id: doc.id } as never, { upsert: true });
      },
      delete: async (id) => {
        await col().deleteOne({ _id: id } as never);
      },
      listBy: (owner, page) => list(def.list?.owner ? { [def.list.owner]: owner } : {}, page),
      list: (page) => list({}, page),
    };
  }

  async reset(): Promise<void> {
    for (const c of await this.db.listCollections({}, { nameOnly: true }).toArray()) {
      await this.db.collection(c.name).deleteMany({});
    }
  }

  // ---- a job's pages: one document per (job, page key), `_id` `<jobId>:<pageKey>` ------

  private static pageId(jobId: string, pageKey: string): string {
    return `${jobId}:${pageKey}`;
  }

  private async getPage<Doc>(collection: string, jobId: string, pageKey: string): Promise<Doc | null> {
    return strip<Doc>((await this.db.collection(collection).findOne({ _id: MongoStore.pageId(jobId, pageKey) } as never)) as unknown as Stored<Doc> | null);
  }

  private async putPage(collection: string, jobId: string, doc: { pageKey: string }): Promise<void> {
    const _id = MongoStore.pageId(jobId, doc.pageKey);
    await this.db.collection(collection).replaceOne({ _id } as never, { ...doc, _id } as never, { upsert: true });
  }

  // ---- crawls --------------------------------------------------------------------

  private async initCrawls(): Promise<void> {
    await this.col<CrawlPageDoc>('crawl_pages').createIndexes([
      { key: { crawlId: 1, requestedSeq: 1 }, name: 'by_crawl_order' },
      { key: { crawlId: 1, status: 1, resultSeq: 1 }, name: 'by_crawl_status' },
    ]);
  }

  async getCrawlPage(crawlId: string, pageKey: string, read: { asStored?: boolean } = {}): Promise<CrawlPageDoc | null> {
    const doc = await this.getPage<CrawlPageDoc>('crawl_pages', crawlId, pageKey);
    if (!doc) return null;
    return read.asStored ? doc : (await withRepeatedContent([doc], this.repeatedContent))[0]!;
  }

  async crawlPageOrigin(crawlId: string, pageKey: string): Promise<CrawlPageOrigin | null> {
    const doc = await this.db.collection('crawl_pages').findOne(
      { _id: MongoStore.pageId(crawlId, pageKey) } as never,
      { projection: { status: 1, repeats: 1, ...Object.fromEntries(REPEATABLE_FIELDS.map((f) => [f, { $ne: [{ $type: `$${f}` }, 'missing'] }])) } },
    ) as ({ status: string; repeats?: CrawlPageOrigin } & Partial<Record<RepeatableField, boolean>>) | null;
    return doc ? originOf({ crawlId, pageKey, status: doc.status, ...(doc.repeats ? { repeats: doc.repeats } : {}) }, (f) => doc[f] === true) : null;
  }

  /** A page's content fields only (what a page repeating it shows). */
  private readonly repeatedContent = async (crawlId: string, pageKey: string): Promise<RepeatedContent | null> => {
    const doc = await this.db.collection('crawl_pages').findOne(
      { _id: MongoStore.pageId(crawlId, pageKey) } as never,
      { projection: { _id: 0, ...Object.fromEntries(REPEATABLE_FIELDS.map((f) => [f, 1])) } },
    );
    return doc as RepeatedContent | null;
  };

  async saveCrawlPage(doc: CrawlPageDoc): Promise<void> {
    await this.putPage('crawl_pages', doc.crawlId, doc);
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
    return withRepeatedContent(docs.map((d) => strip(d)!), this.repeatedContent);
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

  async getBatchPage(batchId: string, pageKey: string): Promise<BatchPageDoc | null> {
    return this.getPage('batch_pages', batchId, pageKey);
  }

  async saveBatchPage(doc: BatchPageDoc): Promise<void> {
    await this.putPage('batch_pages', doc.batchId, doc);
  }

  async getBatchPages(batchId: string, pageKeys: readonly string[]): Promise<BatchPageDoc[]> {
    if (pageKeys.length === 0) return [];
    const ids = pageKeys.map((k) => MongoStore.pageId(batchId, k));
    const docs = await this.col<BatchPageDoc>('batch_pages').find({ _id: { $in: ids } } as never).toArray();
    return docs.map((d) => strip(d)!);
  }
}
