// What the scrape endpoints do, without HTTP: check the URL (syntax, SSRF), then answer
// from the cache, join an identical scrape that is still running, or append a new
// page_requested (the gateway never scrapes). Reads are scoped to the caller's key.
import { NotFoundError } from '../../../../shared/src/domain/errors.js';
import { scrapeCacheKey } from '../../../../shared/src/domain/cache-key.js';
import { makeEvent, type AnyEvent } from '../../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions, type ScrapeRequest } from '../../../../shared/src/domain/scrape-options.js';
import type { Page, ScrapeJobDoc, ScrapeJobSummary } from '../../../../shared/src/infra/store/index.js';
import { normalizeUrl, urlKeyHash } from '../../../../shared/src/net/url-normalize.js';
import type { Caller } from '../plugins/auth.js';
import { checkSubmittedUrl } from '../url-policy.js';
import type { Admission } from '../../../../shared/src/infra/admission/plan-limits.js';
import { recordJob, type JobServiceDeps } from '../job-service.js';

export interface ScrapeServiceDeps extends JobServiceDeps {
  cacheTtlMs: number;
}

export type SubmitResult =
  | { kind: 'queued'; id: string; status: 'PENDING' }
  | { kind: 'cached'; job: ScrapeJobDoc };

/** How long after its creation a running job may still be joined (timeout plus queueing). */
const SHARE_WINDOW_EXTRA_MS = 60_000;

export class ScrapeService {
  constructor(private readonly deps: ScrapeServiceDeps) {}

  async submit(caller: Caller, request: ScrapeRequest): Promise<SubmitResult> {
    const { store, clock, newId, cacheTtlMs } = this.deps;
    const url = await checkSubmittedUrl(request.url, this.deps.urlPolicy);
    const normalized = normalizeUrl(url.toString())!;
    const options = normalizeScrapeOptions(request);
    const cacheKey = scrapeCacheKey(normalized.url, options, caller.keyId);
    const id = newId();
    const now = clock();
    const at = { kind: 'scrape' as const, id, part: urlKeyHash(normalized.key) };
    const common = { url: normalized.url, options, apiKeyId: caller.keyId, requestedAt: now.toISOString(), cacheKey };
    const meta = { eventId: newId(), now };

    let event: AnyEvent;
    let admission: Admission | undefined;
    // changeTracking asks what the page is now: always a fresh load of its own, never a
    // cached or shared result (docs/api.md "Change tracking").
    const entry = options.formats.includes('changeTracking') ? null : await store.scrapeCache.get(cacheKey);
    const fresh = cacheTtlMs > 0 && entry?.completed && entry.completed.completedAt >= new Date(now.getTime() - cacheTtlMs).toISOString();
    const cached = fresh ? await store.scrapeJobs.get(entry.completed!.jobId) : null;
    if (cached?.resultRef && cached.completedAt) {
      event = makeEvent('page_served_from_cache', at, {
        ...common, sourceJobId: cached.id, sourceCompletedAt: cached.completedAt, result: cached.resultRef, metadata: cached.metadata ?? { title: '', description: '' },
      }, meta);
    } else {
      const shareSince = new Date(now.getTime() - options.timeoutMs - SHARE_WINDOW_EXTRA_MS).toISOString();
      const running = entry?.running && entry.running.createdAt >= shareSince ? entry.running : undefined;
      // A cache hit uses no quota; joining a running identical scrape loads no page either.
      admission = await this.deps.limits.admit(caller, { id, pages: running ? 0 : 1, job: true });
      event = running
        ? makeEvent('page_shared', at, { ...common, depth: 0, sourceJobId: running.jobId, sourcePart: at.part }, meta)
        : makeEvent('page_requested', at, { ...common, depth: 0 }, meta);
    }
    // A cache hit is not a job and uses no quota: nothing was reserved.
    await recordJob(this.deps, event, admission);
    // The hit is answered from the source job's content (already in hand): same result, own id.
    if (cached && event.event === 'page_served_from_cache') {
      return { kind: 'cached', job: { ...cached, id, fromCache: true, apiKeyId: caller.keyId, options, createdAt: common.requestedAt, completedAt: common.requestedAt } };
    }
    return { kind: 'queued', id, status: 'PENDING' };
  }

  /** The caller's job; another key's job is indistinguishable from a missing one. */
  async get(caller: Caller, id: string): Promise<ScrapeJobDoc> {
    const doc = await this.deps.store.scrapeJobs.get(id);
    if (!doc || doc.apiKeyId !== caller.keyId) throw new NotFoundError(`no scrape job with id "${id}"`);
    // A cache hit keeps no copy of the content: it is read through the job that made it.
    if (doc.fromCache && !doc.content && doc.sourceJobId) {
      const source = await this.deps.store.scrapeJobs.get(doc.sourceJobId);
      if (source?.content) return { ...doc, content: source.content };
    }
    return doc;
  }

  list(caller: Caller, page: Page): Promise<ScrapeJobSummary[]> {
    return this.deps.store.scrapeJobs.listBy(caller.keyId, page);
  }
}
