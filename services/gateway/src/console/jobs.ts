// The account's jobs: the union of its keys' scrapes, crawls and batch scrapes (the API
// scopes jobs by key; the console scopes by account over its keys). A job is found only
// when its key belongs to the signed-in account: any other id is "not found", exactly
// like an id that does not exist, so guessing ids tells nothing.
import { NotFoundError } from '../../../../shared/src/domain/errors.js';
import type { StoredEvent } from '../../../../shared/src/domain/events/index.js';
import { isJobId } from '../../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import type { ApiKeyDoc, BatchJobDoc, CrawlJobDoc, MapJobDoc, ReadModelStore, ScrapeJobDoc } from '../../../../shared/src/infra/store/index.js';
import { historyFilter } from '../../../../shared/src/infra/subjects.js';
import { publicEvent } from '../job-event-view.js';

export const JOB_KINDS = ['scrape', 'crawl', 'batch', 'map'] as const;
export type JobKind = (typeof JOB_KINDS)[number];
export { JOB_STATUSES } from '../../../../shared/src/api/index.js';

export interface JobRow {
  kind: JobKind;
  id: string;
  status: string;
  target: string;
  keyId: string;
  createdAt: string;
  completedAt?: string | undefined;
  /** Pages done and asked for (a scrape: 1). */
  pages: { completed: number; failed: number; total: number };
  /** A map: how many URLs it found. */
  urls?: number | undefined;
}

export type LoadedJob =
  | { kind: 'scrape'; doc: ScrapeJobDoc; key: ApiKeyDoc; source: ScrapeJobDoc | null }
  | { kind: 'crawl'; doc: CrawlJobDoc; key: ApiKeyDoc }
  | { kind: 'batch'; doc: BatchJobDoc; key: ApiKeyDoc }
  | { kind: 'map'; doc: MapJobDoc; key: ApiKeyDoc };

const PER_KEY = { limit: 100, offset: 0 };
/** The most events a job page shows (a large crawl has many; the API pages through all). */
export const TIMELINE_MAX = 300;

export const isJobKind = (value: string): value is JobKind => (JOB_KINDS as readonly string[]).includes(value);

export class AccountJobs {
  constructor(private readonly store: ReadModelStore, private readonly log: EventLog) {}

  keys(accountId: string): Promise<ApiKeyDoc[]> {
    return this.store.apiKeys.listBy(accountId, { limit: 500, offset: 0 });
  }

  /** The account's jobs, newest first, filtered by kind and status. */
  async list(accountId: string, filter: { kind?: JobKind | undefined; status?: string | undefined }, max = 200): Promise<JobRow[]> {
    const rows: JobRow[] = [];
    for (const key of await this.keys(accountId)) {
      const kinds = filter.kind ? [filter.kind] : JOB_KINDS;
      for (const kind of kinds) rows.push(...await this.listKind(kind, key.id));
    }
    return rows
      .filter((r) => !filter.status || r.status === filter.status)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .slice(0, max);
  }

  private async listKind(kind: JobKind, keyId: string): Promise<JobRow[]> {
    switch (kind) {
      case 'scrape':
        return (await this.store.scrapeJobs.listBy(keyId, PER_KEY)).map((j) => ({ kind, id: j.id, status: j.status, target: j.url, keyId, createdAt: j.createdAt, completedAt: j.completedAt,
          pages: { completed: j.status === 'COMPLETED' ? 1 : 0, failed: j.status === 'FAILED' ? 1 : 0, total: 1 } }));
      case 'crawl':
        return (await this.store.crawlJobs.listBy(keyId, PER_KEY)).map((j) => ({ kind, id: j.id, status: j.status, target: j.startUrl, keyId, createdAt: j.createdAt, completedAt: j.completedAt,
          pages: { completed: j.completedUrls, failed: j.failedUrls, total: j.totalUrls } }));
      case 'batch':
        return (await this.store.batchJobs.listBy(keyId, PER_KEY)).map((j) => ({ kind, id: j.id, status: j.status, target: `${j.totalUrls} URL${j.totalUrls === 1 ? '' : 's'}`, keyId, createdAt: j.createdAt, completedAt: j.completedAt,
          pages: { completed: j.completedUrls, failed: j.failedUrls, total: j.totalUrls } }));
      case 'map':
        return (await this.store.mapJobs.listBy(keyId, PER_KEY)).map((j) => ({ kind, id: j.id, status: j.status, target: j.url, keyId, createdAt: j.createdAt, completedAt: j.completedAt,
          pages: { completed: 0, failed: 0, total: 0 }, urls: j.count }));
    }
  }

  /** The job when its key is the account's; NotFoundError otherwise (unknown or someone else's). */
  async load(accountId: string, kind: string, id: string): Promise<LoadedJob> {
    const missing = new NotFoundError(`no ${isJobKind(kind) ? kind : ''} job with this id in your account`.replace('  ', ' '));
    if (!isJobKind(kind) || !isJobId(id)) throw missing;
    const doc = kind === 'scrape' ? await this.store.scrapeJobs.get(id) : kind === 'crawl' ? await this.store.crawlJobs.get(id)
      : kind === 'batch' ? await this.store.batchJobs.get(id) : await this.store.mapJobs.get(id);
    if (!doc) throw missing;
    const key = await this.store.apiKeys.get(doc.apiKeyId);
    if (!key || key.accountId !== accountId) throw missing;
    if (kind === 'scrape') {
      const scrape = doc as ScrapeJobDoc;
      const source = scrape.sourceJobId && !scrape.content ? await this.store.scrapeJobs.get(scrape.sourceJobId) : null;
      return { kind, doc: scrape, key, source };
    }
    if (kind === 'map') return { kind, doc: doc as MapJobDoc, key };
    return kind === 'crawl' ? { kind, doc: doc as CrawlJobDoc, key } : { kind, doc: doc as BatchJobDoc, key };
  }

  /** The job's events from the log (the audit replay), each checked to be this job's. */
  async timeline(job: LoadedJob): Promise<StoredEvent[]> {
    const events = await this.log.read(historyFilter(job.kind, job.doc.id), 1, TIMELINE_MAX);
    // Shown as the API shows them: never naming the job (maybe another tenant's) a cache hit serves.
    return events.filter((e) => e.kind === job.kind && e.id === job.doc.id).map(publicEvent);
  }

  /** Live numbers of a job, for the progress poll. */
  async progress(job: LoadedJob): Promise<{ status: string; done: boolean; totalUrls: number; completedUrls: number; failedUrls: number }> {
    const done = !['PENDING', 'PROCESSING'].includes(job.doc.status);
    if (job.kind === 'crawl') {
      const counts = job.doc.countersFinal ? { completed: job.doc.completedUrls, failed: job.doc.failedUrls } : await this.store.countCrawlPages(job.doc.id, job.doc.frozenAtSeq);
      return { status: job.doc.status, done, totalUrls: job.doc.totalUrls, completedUrls: counts.completed, failedUrls: counts.failed };
    }
    if (job.kind === 'map') return { status: job.doc.status, done, totalUrls: 1, completedUrls: job.doc.status === 'COMPLETED' ? 1 : 0, failedUrls: job.doc.status === 'FAILED' ? 1 : 0 };
    if (job.kind === 'batch') return { status: job.doc.status, done, totalUrls: job.doc.totalUrls, completedUrls: job.doc.completedUrls, failedUrls: job.doc.failedUrls };
    return { status: job.doc.status, done, totalUrls: 1, completedUrls: job.doc.status === 'COMPLETED' ? 1 : 0, failedUrls: job.doc.status === 'FAILED' ? 1 : 0 };
  }
}
