// What the recrawl endpoints do, without HTTP (docs/api.md "Recrawl"). A recrawl is a new,
// ordinary crawl of the same request with the changeTracking format added; conditional
// fetches and the sitemaps' lastmod (read first, within SITEMAP_BUDGET_MS) make its
// unchanged pages cheap. Its link to the crawl it repeats, `recrawl_requested`, is appended
// before the new crawl's crawl_requested, so whoever reads the crawl finds the link.
import { IllegalStateError, NotFoundError } from '../../../../shared/src/domain/errors.js';
import { JOB_PART } from '../../../../shared/src/domain/events/job.js';
import { makeEvent } from '../../../../shared/src/domain/events/index.js';
import { FORMATS } from '../../../../shared/src/domain/scrape-options.js';
import type { CrawlPageDoc } from '../../../../shared/src/infra/store/index.js';
import type { Caller } from '../plugins/auth.js';
import { recordJob, type JobServiceDeps } from '../job-service.js';
import { recrawlReport } from './report.js';
import { pageKeyOf } from '../../../../shared/src/domain/change-tracking.js';
import type { RecrawlRequested, RecrawlSitemap } from '../../../../shared/src/domain/events/index.js';
import type { PayloadStore } from '../../../../shared/src/infra/nats/payloads.js';
import { discoverSitemaps } from '../../../../shared/src/net/sitemaps/discover.js';
import type { RecrawlBody, RecrawlReport } from '../../../../shared/src/api/index.js';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
/** Pages read from the store per query. */
const PAGE_BATCH = 100;
/** How long a recrawl's POST reads the site's sitemaps at most (what is read by then is used). */
export const SITEMAP_BUDGET_MS = 10_000;
/** Sitemap entries kept at most (the sitemaps.org limit of one file). */
const SITEMAP_MAX_ENTRIES = 50_000;

export interface RecrawlServiceDeps extends JobServiceDeps {
  payloads: Pick<PayloadStore, 'putJson' | 'getJson'>;
  sitemapBudgetMs?: number;
}

export class RecrawlService {
  constructor(private readonly deps: RecrawlServiceDeps) {}

  async submit(caller: Caller, crawlId: string, body: RecrawlBody): Promise<{ id: string; status: 'PENDING'; recrawlOf: string }> {
    const original = await this.deps.store.crawlJobs.get(crawlId);
    if (!original || original.apiKeyId !== caller.keyId) throw new NotFoundError(`no crawl job with id "${crawlId}"`);
    if (!TERMINAL.has(original.status)) throw new IllegalStateError(`crawl "${crawlId}" is ${original.status}: recrawl it once it has finished`, 'CONFLICT');
    const requested = await this.deps.log.last({ kind: 'crawl', id: crawlId, part: JOB_PART, event: 'crawl_requested' });
    if (requested?.event !== 'crawl_requested') throw new NotFoundError(`no crawl job with id "${crawlId}"`);
    const { apiKeyId: _k, requestedAt: _r, ...request } = requested.data;
    const asked = new Set([...request.scrapeOptions.formats, 'changeTracking']);
    const scrapeOptions = { ...request.scrapeOptions, formats: FORMATS.filter((f) => asked.has(f)) };
    const id = this.deps.newId();
    const admission = await this.deps.limits.admit(caller, { id, pages: 1, upToPages: request.limit, job: true });
    const revalidate = body.revalidate ?? false;
    const sitemap = revalidate ? undefined : await this.readSitemap(id, request.startUrl);
    const now = this.deps.clock();
    // The link first: a crawl whose link is lost is still a crawl; a link without its crawl is never read.
    await this.deps.log.append(makeEvent('recrawl_requested', { kind: 'recrawl', id, part: JOB_PART }, {
      apiKeyId: caller.keyId, recrawlOf: crawlId, revalidate, ...(sitemap ? { sitemap } : {}), requestedAt: now.toISOString(),
    }, { eventId: this.deps.newId(), now }), { once: true });
    const event = makeEvent('crawl_requested', { kind: 'crawl', id, part: JOB_PART },
      { ...request, scrapeOptions, limit: admission.grantedPages, apiKeyId: caller.keyId, requestedAt: now.toISOString() }, { eventId: this.deps.newId(), now });
    await recordJob(this.deps, event, admission);
    return { id, status: 'PENDING', recrawlOf: crawlId };
  }

  /** The report of the caller's recrawl `id` (a crawl that is no recrawl is a 404 here). */
  async report(caller: Caller, id: string): Promise<RecrawlReport> {
    const job = await this.deps.store.crawlJobs.get(id);
    const link = job && job.apiKeyId === caller.keyId ? await this.deps.log.last({ kind: 'recrawl', id, part: JOB_PART, event: 'recrawl_requested' }) : null;
    if (!job || link?.event !== 'recrawl_requested' || link.data.apiKeyId !== caller.keyId) throw new NotFoundError(`no recrawl with id "${id}"`);
    const [previous, current, sitemap] = await Promise.all([
      this.pages(link.data.recrawlOf), this.pages(id),
      link.data.sitemap ? this.deps.payloads.getJson<RecrawlSitemap>(link.data.sitemap.ref).catch(() => null) : null,
    ]);
    return recrawlReport({ id, recrawlOf: link.data.recrawlOf, status: job.status }, previous, current, sitemap ? new Set(Object.keys(sitemap.pages)) : undefined);
  }

  /** The site's sitemap entries, stored for the fetcher; undefined when the site lists none. */
  private async readSitemap(id: string, startUrl: string): Promise<RecrawlRequested['sitemap']> {
    const pages: RecrawlSitemap['pages'] = {};
    let urls = 0;
    const found = await discoverSitemaps(startUrl, {
      allow: this.deps.urlPolicy.allowCidrs,
      signal: AbortSignal.timeout(this.deps.sitemapBudgetMs ?? SITEMAP_BUDGET_MS),
      onUrl: (url, _sitemap, lastmod) => {
        let key: string;
        try { key = pageKeyOf(url); } catch { return; }
        if (!(key in pages)) urls++;
        pages[key] = lastmod ?? null;
        return urls < SITEMAP_MAX_ENTRIES;
      },
    });
    if (urls === 0) return undefined;
    const ref = await this.deps.payloads.putJson(`recrawl/${id}/sitemap.json`, { pages } satisfies RecrawlSitemap);
    return { ref, urls, partial: found.partial };
  }

  private async pages(crawlId: string): Promise<CrawlPageDoc[]> {
    const all: CrawlPageDoc[] = [];
    for (let after = 0; ;) {
      const batch = await this.deps.store.listCrawlPages(crawlId, { afterRequestedSeq: after, limit: PAGE_BATCH, anyStatus: true });
      all.push(...batch);
      if (batch.length < PAGE_BATCH) return all;
      after = batch.at(-1)!.requestedSeq;
    }
  }
}
