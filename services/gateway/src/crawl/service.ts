// What the crawl endpoints do, without HTTP: check the start and webhook URLs (syntax and
// SSRF), append crawl_requested / crawl_cancel_requested (the crawler-frontier does the
// rest), and read crawls back from the read models, scoped to the caller's key.
//
// GET bounds `data`: one response carries pages up to DATA_MAX_BYTES of content (at least
// one page); when more remain it has `next`, the URL of the following part (?cursor=),
// Firecrawl-style. Pages are in the order they were requested (breadth-first). While the
// crawl runs, `data` holds the pages finished so far up to the first one still loading,
// and `next` is always there: the cursor then never passes a page that finishes later.
import { NotFoundError } from '../../../../shared/src/errors.js';
import { JOB_PART } from '../../../../shared/src/events/crawl.js';
import { makeEvent } from '../../../../shared/src/events/index.js';
import { normalizeCrawlRequest, type CrawlRequest } from '../../../../shared/src/crawl-options.js';
import type { CrawlJobDoc, CrawlPageDoc, DocumentInfo, Page } from '../../../../shared/src/store/index.js';
import { cancelJob } from '../cancel-job.js';
import type { Caller } from '../plugins/auth.js';
import { checkSubmittedUrl } from '../url-policy.js';
import type { CrawlJobView, CrawlListItem, CrawlPageEntry } from './schemas.js';
import { jsonBytes } from '../json-bytes.js';
import { recordJob, type JobServiceDeps } from '../job-service.js';
import type { Slowed } from '../../../../shared/src/host-pace.js';

export const CRAWL_DATA_LIMITS = {
  /** Content bytes (markdown + html + rawHtml) in one GET response at most. */
  maxBytes: 10 * 1024 * 1024,
  /** Pages read from the store per query. */
  batch: 25,
} as const;

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

export interface CrawlServiceDeps extends JobServiceDeps {
  publicBaseUrl: string;
  /** Whether a host is slowed for the whole fleet now, and why (shared/src/host-pace.ts). */
  slowedHost?: (host: string) => Promise<Slowed | undefined>;
  dataMaxBytes?: number;
}

export class CrawlService {
  constructor(private readonly deps: CrawlServiceDeps) {}

  async submit(caller: Caller, request: CrawlRequest): Promise<{ id: string; status: 'PENDING' }> {
    const url = await checkSubmittedUrl(request.url, this.deps.urlPolicy);
    if (request.webhookUrl !== undefined) await checkSubmittedUrl(request.webhookUrl, this.deps.urlPolicy, 'webhookUrl');
    const asked = normalizeCrawlRequest({ ...request, url: url.toString() });
    const id = this.deps.newId();
    // A crawl uses one page of quota per page: it never plans more pages than remain, and
    // the pages it plans are held for it until it ends.
    const admission = await this.deps.limits.admit(caller, { id, pages: 1, upToPages: asked.limit, job: true });
    const resolved = { ...asked, limit: admission.grantedPages };
    const now = this.deps.clock();
    const event = makeEvent('crawl_requested', { kind: 'crawl', id, part: JOB_PART },
      { ...resolved, apiKeyId: caller.keyId, requestedAt: now.toISOString() }, { eventId: this.deps.newId(), now });
    await recordJob(this.deps, event, admission);
    return { id, status: 'PENDING' };
  }

  /** The caller's crawl; another key's crawl is indistinguishable from a missing one. */
  /** A completed crawl page's stored document (undefined when it is no document). */
  async document(caller: Caller, id: string, pageKey: string): Promise<DocumentInfo | undefined> {
    await this.own(caller, id);
    const page = await this.deps.store.getCrawlPage(id, pageKey);
    return page?.status === 'COMPLETED' ? page.document : undefined;
  }

  async own(caller: Caller, id: string): Promise<CrawlJobDoc> {
    const doc = await this.deps.store.getCrawlJob(id);
    if (!doc || doc.apiKeyId !== caller.keyId) throw new NotFoundError(`no crawl job with id "${id}"`);
    return doc;
  }

  /** The GET answer for a crawl read with `own` (a long-poll reads the document first). */
  async view(doc: CrawlJobDoc, cursor?: string): Promise<CrawlJobView> {
    const view: CrawlJobView = {
      ...(await this.summary(doc)),
      ...(doc.startedAt ? { startedAt: doc.startedAt } : {}),
      ...(TERMINAL.has(doc.status) && doc.completedAt ? { completedAt: doc.completedAt } : {}),
      ...(doc.blockedHosts?.length ? { blockedHosts: doc.blockedHosts } : {}),
    };
    if (!TERMINAL.has(doc.status) && this.deps.slowedHost) {
      // Operational state, not the log's: a status without it is still right, only less telling.
      const slowed = await this.deps.slowedHost(new URL(doc.startUrl).host).catch(() => undefined);
      if (slowed) view.slowed = slowed;
    }
    const after = cursor === undefined ? 0 : Number(cursor);
    const running = !TERMINAL.has(doc.status);
    const { data, nextCursor } = await this.data(doc, after, running);
    view.data = data;
    if (nextCursor !== undefined) view.next = `${this.deps.publicBaseUrl}/api/v1/crawl/${encodeURIComponent(doc.id)}?cursor=${nextCursor}`;
    if (doc.status === 'FAILED' && doc.error) view.error = doc.error;
    return view;
  }

  async cancel(caller: Caller, id: string): Promise<{ id: string; status: 'CANCELLED' }> {
    const doc = await this.own(caller, id);
    return cancelJob(this.deps, { kind: 'crawl', id, status: doc.status, label: 'crawl' });
  }


  async list(caller: Caller, page: Page): Promise<CrawlListItem[]> {
    const docs = await this.deps.store.listCrawlJobs(caller.keyId, page);
    return Promise.all(docs.map((d) => this.summary(d)));
  }

  /** Counters: final ones from crawl_finished, else counted from the page documents. */
  private async summary(doc: CrawlJobDoc): Promise<CrawlListItem> {
    let { completedUrls, failedUrls } = doc;
    if (!doc.countersFinal) {
      const counts = await this.deps.store.countCrawlPages(doc.id, doc.frozenAtSeq);
      completedUrls = counts.completed;
      failedUrls = counts.failed;
    }
    return {
      id: doc.id,
      status: doc.status,
      startUrl: doc.startUrl,
      totalUrls: Math.max(doc.totalUrls, completedUrls + failedUrls),
      completedUrls,
      failedUrls,
      createdAt: doc.createdAt,
    };
  }

  /**
   * One part of `data` from `afterSeq`, bounded by maxBytes. A finished crawl's part is its
   * COMPLETED pages (before a cancel's freeze point). A running crawl's stops at the first
   * page still PENDING (FAILED ones are passed, as the finished part leaves them out too)
   * and always returns the cursor, so a client comes back for what finishes next.
   */
  private async data(doc: CrawlJobDoc, afterSeq: number, running: boolean): Promise<{ data: CrawlPageEntry[]; nextCursor?: number }> {
    const maxBytes = this.deps.dataMaxBytes ?? CRAWL_DATA_LIMITS.maxBytes;
    const scope = running ? { anyStatus: true } : doc.frozenAtSeq !== undefined ? { beforeResultSeq: doc.frozenAtSeq } : {};
    const data: CrawlPageEntry[] = [];
    let bytes = 0;
    let after = afterSeq;
    for (;;) {
      const batch = await this.deps.store.listCrawlPages(doc.id, { afterRequestedSeq: after, limit: CRAWL_DATA_LIMITS.batch, ...scope });
      for (const page of batch) {
        if (page.status === 'PENDING') return { data, nextCursor: after };
        if (page.status === 'COMPLETED') {
          const size = contentBytes(page);
          if (data.length > 0 && bytes + size > maxBytes) return { data, nextCursor: after };
          data.push(entry(page, this.deps.publicBaseUrl));
          bytes += size;
        }
        after = page.requestedSeq;
      }
      if (batch.length < CRAWL_DATA_LIMITS.batch) return running ? { data, nextCursor: after } : { data };
    }
  }
}

function contentBytes(page: CrawlPageDoc): number {
  return Buffer.byteLength(page.markdown ?? '') + Buffer.byteLength(page.html ?? '') + Buffer.byteLength(page.rawHtml ?? '') + jsonBytes(page.json)
    + Buffer.byteLength(page.changeTracking?.diff ?? '') + 256;
}

/** Where a crawl page's stored document is served (the page key is the page's part in the log). */
export function crawlDocumentUrl(publicBaseUrl: string, crawlId: string, pageKey: string): string {
  return `${publicBaseUrl}/api/v1/crawl/${encodeURIComponent(crawlId)}/pages/${encodeURIComponent(pageKey)}/document`;
}

function entry(page: CrawlPageDoc, publicBaseUrl: string): CrawlPageEntry {
  const doc = page.document;
  return {
    url: page.url,
    depth: page.depth,
    ...(page.markdown !== undefined ? { markdown: page.markdown } : {}),
    ...(page.html !== undefined ? { html: page.html } : {}),
    ...(page.rawHtml !== undefined ? { rawHtml: page.rawHtml } : {}),
    ...(page.json !== undefined ? { json: page.json } : {}),
    ...(page.changeTracking ? { changeTracking: page.changeTracking } : {}),
    ...(doc ? { document: { url: crawlDocumentUrl(publicBaseUrl, page.crawlId, page.pageKey), contentType: doc.contentType, fileSize: doc.fileSize, expiresAt: doc.expiresAt } } : {}),
    metadata: page.metadata ?? { title: '', description: '' },
    links: page.links ?? [],
  };
}
