// The crawl kind of multi-page job (../job-service.ts): check the start and webhook URLs
// (syntax and SSRF), plan at most the pages the key's quota leaves, append crawl_requested
// (the crawler-frontier does the rest), and show a crawl's pages.
//
// Pages are in the order they were requested (breadth-first). While the crawl runs, `data`
// holds the pages finished so far up to the first one still loading, and `next` is always
// there: the cursor (a page's requestedSeq) then never passes a page that finishes later.
import { makeEvent } from '../../../../shared/src/domain/events/index.js';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { askedOf, normalizeCrawlRequest, type CrawlRequest } from '../../../../shared/src/domain/crawl-options.js';
import type { CrawlJobDoc, CrawlPageDoc, DocumentInfo, Page } from '../../../../shared/src/infra/store/index.js';
import type { Caller } from '../plugins/auth.js';
import { checkSubmittedUrl } from '../url-policy.js';
import { isFinalStatus, payloadUrls, type CrawlJobView, type CrawlListItem, type CrawlPageEntry } from '../../../../shared/src/api/index.js';
import { jsonBytes } from '../json-bytes.js';
import { JobService, recordJob, type DataItem, type JobViewParts, type MultiPageJobDeps } from '../job-service.js';
import type { Slowed } from '../../../../shared/src/domain/host-pace.js';

/** Pages read from the store per query. */
const PAGES_PER_READ = 25;

export interface CrawlServiceDeps extends MultiPageJobDeps {
  /** Whether a host is slowed for the whole fleet now, and why (shared/src/domain/host-pace.ts). */
  slowedHost?: (host: string) => Promise<Slowed | undefined>;
}

export class CrawlService extends JobService<CrawlJobDoc, CrawlRequest, { id: string; status: 'PENDING' }, CrawlJobView, CrawlListItem> {
  protected readonly kind = 'crawl';
  protected readonly label = 'crawl';
  protected readonly path = '/crawl';
  declare protected readonly deps: CrawlServiceDeps;

  constructor(deps: CrawlServiceDeps) {
    super(deps);
  }

  protected load(id: string): Promise<CrawlJobDoc | null> {
    return this.deps.store.crawlJobs.get(id);
  }

  async submit(caller: Caller, request: CrawlRequest): Promise<{ id: string; status: 'PENDING' }> {
    const url = await checkSubmittedUrl(request.url, this.deps.urlPolicy);
    if (request.webhookUrl !== undefined) await checkSubmittedUrl(request.webhookUrl, this.deps.urlPolicy, 'webhookUrl');
    const wanted = normalizeCrawlRequest({ ...request, url: url.toString() });
    const id = this.deps.newId();
    // A crawl uses one page of quota per page: it never plans more pages than remain, and
    // the pages it plans are held for it until it ends. The log keeps both: the limit
    // granted, and in `asked` the request as posted.
    const admission = await this.deps.limits.admit(caller, { id, pages: 1, upToPages: wanted.limit, job: true });
    const granted = { ...wanted, limit: admission.grantedPages };
    const now = this.deps.clock();
    const event = makeEvent('crawl_requested', { kind: 'crawl', id, part: JOB_PART },
      { ...granted, apiKeyId: caller.keyId, requestedAt: now.toISOString(), asked: askedOf(request) }, { eventId: this.deps.newId(), now });
    await recordJob(this.deps, event, admission);
    return { id, status: 'PENDING' };
  }

  /** A completed crawl page's stored document (undefined when it is no document). */
  async document(caller: Caller, id: string, pageKey: string): Promise<DocumentInfo | undefined> {
    await this.own(caller, id);
    const page = await this.deps.store.getCrawlPage(id, pageKey);
    return page?.status === 'COMPLETED' ? page.document : undefined;
  }

  async view(doc: CrawlJobDoc, cursor?: string): Promise<JobViewParts<CrawlJobView>> {
    const running = !isFinalStatus(doc.status);
    // A finished crawl's part is its COMPLETED pages (before a cancel's freeze point); a
    // running crawl's stops at the first page still PENDING (FAILED ones are passed, as the
    // finished part leaves them out too) and always returns the cursor.
    const scope = running ? { anyStatus: true } : doc.frozenAtSeq !== undefined ? { beforeResultSeq: doc.frozenAtSeq } : {};
    const read = async (after: number): Promise<DataItem<CrawlPageEntry>[]> =>
      (await this.deps.store.listCrawlPages(doc.id, { afterRequestedSeq: after, limit: PAGES_PER_READ, ...scope })).map((page) => ({
        ...(page.status === 'COMPLETED' ? { present: () => entry(page, this.deps.publicBaseUrl) } : {}),
        bytes: contentBytes(page),
        resume: page.requestedSeq,
        stop: page.status === 'PENDING',
      }));
    // Operational state, not the log's: a status without it is still right, only less telling.
    const slowed = running && this.deps.slowedHost ? await this.deps.slowedHost(new URL(doc.startUrl).host).catch(() => undefined) : undefined;
    const part = this.dataPart(cursor === undefined ? 0 : Number(cursor), read, { chunk: PAGES_PER_READ, openEnded: running });
    return {
      head: {
        ...(await this.summary(doc)),
        ...this.common(doc),
        ...(!running && doc.completedAt ? { completedAt: doc.completedAt } : {}),
        ...(doc.blockedHosts?.length ? { blockedHosts: doc.blockedHosts } : {}),
        ...(slowed ? { slowed } : {}),
      },
      data: part.entries,
      next: this.nextUrl(doc.id, part),
    };
  }

  async list(caller: Caller, page: Page): Promise<CrawlListItem[]> {
    const docs = await this.deps.store.crawlJobs.listBy(caller.keyId, page);
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
}

function contentBytes(page: CrawlPageDoc): number {
  return Buffer.byteLength(page.markdown ?? '') + Buffer.byteLength(page.html ?? '') + Buffer.byteLength(page.rawHtml ?? '') + jsonBytes(page.json)
    + Buffer.byteLength(page.changeTracking?.diff ?? '') + 256;
}

/** Where a crawl page's stored document is served (the page key is the page's part in the log). */
export function crawlDocumentUrl(publicBaseUrl: string, crawlId: string, pageKey: string): string {
  return payloadUrls.crawlPageDocument(publicBaseUrl, crawlId, pageKey);
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
