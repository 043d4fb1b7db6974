// The batch scrape kind of multi-page job (../job-service.ts): check every URL (syntax,
// SSRF) and the webhook URL, record batch_requested with the pages deduplicated (the
// crawler-frontier requests them, a few at a time), and show a batch's pages: every page in
// request order with its status, content once COMPLETED; `next` (?cursor=, a page index)
// points at the rest when they do not fit in one response.
import { UrlNotAllowedError, ValidationError } from '../../../../shared/src/domain/errors.js';
import { uniquePages, type BatchScrapeRequest } from '../../../../shared/src/domain/batch-options.js';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { makeEvent } from '../../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import { toBatchSummary, type BatchJobDoc, type BatchPageDoc, type DocumentInfo, type Page, type ScreenshotInfo } from '../../../../shared/src/infra/store/index.js';
import { systemLookup, type Lookup } from '../../../../shared/src/net/url-safety.js';
import type { Caller } from '../plugins/auth.js';
import { checkSubmittedUrl } from '../url-policy.js';
import { entryBytes, presentPage, type BatchPresentDeps } from './present.js';
import type { BatchJobView, BatchListItem, BatchPageEntry } from '../../../../shared/src/api/index.js';
import { JobService, recordJob, type DataItem, type JobViewParts, type MultiPageJobDeps } from '../job-service.js';

export const BATCH_LIMITS = {
  /** Page documents read from the store per query. */
  chunk: 25,
  /** batch_requested must stay well under the log's 1 MiB message limit. */
  maxEventBytes: 900 * 1024,
} as const;

export interface BatchServiceDeps extends MultiPageJobDeps {
  present: BatchPresentDeps;
}

export interface BatchCreatedResult {
  id: string;
  status: 'PENDING';
  invalidUrls?: string[];
}

export class BatchService extends JobService<BatchJobDoc, BatchScrapeRequest, BatchCreatedResult, BatchJobView, BatchListItem> {
  protected readonly kind = 'batch';
  protected readonly label = 'batch scrape';
  protected readonly path = '/batch/scrape';

  constructor(protected override readonly deps: BatchServiceDeps) {
    super(deps);
  }

  protected load(id: string): Promise<BatchJobDoc | null> {
    return this.deps.store.batchJobs.get(id);
  }

  async submit(caller: Caller, request: BatchScrapeRequest): Promise<BatchCreatedResult> {
    const { valid, invalid, firstError } = await this.checkUrls(request.urls);
    const ignoreInvalid = request.ignoreInvalidUrls ?? false;
    // Strict by default: the first bad URL (lowest index) rejects the request, named by index.
    if (firstError && (!ignoreInvalid || valid.length === 0)) throw firstError;
    if (request.webhookUrl !== undefined) await checkSubmittedUrl(request.webhookUrl, this.deps.urlPolicy, 'webhookUrl');

    const pages = uniquePages(valid);
    const id = this.deps.newId();
    const now = this.deps.clock();
    const data = {
      pages,
      requestedUrls: request.urls.length,
      invalidUrls: invalid.length,
      options: normalizeScrapeOptions(request),
      ...(request.webhookUrl !== undefined ? { webhookUrl: request.webhookUrl } : {}),
      apiKeyId: caller.keyId,
      requestedAt: now.toISOString(),
    };
    if (Buffer.byteLength(JSON.stringify(data)) > BATCH_LIMITS.maxEventBytes) {
      throw new ValidationError('the batch request is too large: use shorter URLs or fewer headers', 'urls', 'PAYLOAD_TOO_LARGE');
    }
    // One job, one page of quota per unique page: all of them or none (no partial batch).
    const admission = await this.deps.limits.admit(caller, { id, pages: pages.length, job: true });
    const event = makeEvent('batch_requested', { kind: 'batch', id, part: JOB_PART }, data, { eventId: this.deps.newId(), now });
    await recordJob(this.deps, event, admission);
    return { id, status: 'PENDING', ...(ignoreInvalid ? { invalidUrls: invalid } : {}) };
  }

  /**
   * Checks every URL in parallel (each host resolved once). Returns the valid URLs (as
   * parsed), the invalid ones as given, and the error of the first invalid one.
   */
  private async checkUrls(urls: readonly string[]): Promise<{ valid: string[]; invalid: string[]; firstError?: Error }> {
    const resolved = new Map<string, Promise<string[]>>();
    const base: Lookup = this.deps.urlPolicy.lookup ?? systemLookup;
    const lookup: Lookup = (host) => {
      let answer = resolved.get(host);
      if (!answer) resolved.set(host, (answer = base(host)));
      return answer;
    };
    const policy = { ...this.deps.urlPolicy, lookup };
    const outcomes = await Promise.all(urls.map(async (raw, i) => {
      const field = `urls.${i}`;
      try {
        return { url: (await checkSubmittedUrl(raw, policy, field)).toString() };
      } catch (err) {
        if (err instanceof UrlNotAllowedError) return { error: new UrlNotAllowedError(`${field}: ${err.message}`) };
        if (err instanceof ValidationError) return { error: err };
        throw err;
      }
    }));
    const valid: string[] = [];
    const invalid: string[] = [];
    let firstError: Error | undefined;
    outcomes.forEach((o, i) => {
      if ('url' in o && o.url !== undefined) valid.push(o.url);
      else {
        invalid.push(urls[i]!);
        firstError ??= o.error;
      }
    });
    return { valid, invalid, ...(firstError ? { firstError } : {}) };
  }

  async view(doc: BatchJobDoc, cursor?: string): Promise<JobViewParts<BatchJobView>> {
    const read = async (from: number): Promise<DataItem<BatchPageEntry>[]> => {
      const chunk = doc.pages.slice(from, from + BATCH_LIMITS.chunk);
      const keys = chunk.filter((p) => p.status === 'COMPLETED').map((p) => p.pageKey);
      const results = new Map((await this.deps.store.getBatchPages(doc.id, keys)).map((r) => [r.pageKey, r] as const));
      return chunk.map((page, offset) => {
        const result = page.status === 'COMPLETED' ? results.get(page.pageKey) : undefined;
        return { present: () => presentPage(doc, page, from + offset, result, this.deps.present), bytes: entryBytes(result), resume: from + offset + 1 };
      });
    };
    const part = this.dataPart(cursor === undefined ? 0 : Number(cursor), read, { chunk: BATCH_LIMITS.chunk, openEnded: false });
    return { head: { ...toBatchSummary(doc), ...this.common(doc) }, data: part.entries, next: this.nextUrl(doc.id, part) };
  }

  async list(caller: Caller, page: Page): Promise<BatchListItem[]> {
    return this.deps.store.batchJobs.listBy(caller.keyId, page);
  }

  /** A document page's stored bytes (undefined when the page is no document or not completed). */
  async document(caller: Caller, id: string, pageIndex: number): Promise<DocumentInfo | undefined> {
    const doc = await this.own(caller, id);
    const page = doc.pages[pageIndex];
    if (!page || page.status !== 'COMPLETED') return undefined;
    return (await this.deps.store.getBatchPage(id, page.pageKey))?.content.document;
  }

  /** A completed page's final screenshot, or its `action`-th action screenshot. */
  async screenshot(caller: Caller, id: string, pageIndex: number, action?: number): Promise<ScreenshotInfo | undefined> {
    const doc = await this.own(caller, id);
    const page = doc.pages[pageIndex];
    if (!page || page.status !== 'COMPLETED') return undefined;
    const result: BatchPageDoc | null = await this.deps.store.getBatchPage(id, page.pageKey);
    return action === undefined ? result?.content.screenshot : result?.content.actionScreenshots?.[action];
  }
}

