// What the recrawl endpoints do, without HTTP (docs/api.md "Recrawl"). A recrawl is a new,
// ordinary crawl of the same request (same start URL, limits, paths and page options), with
// the changeTracking format added so every page says how it compares with the key's last
// observation of it; conditional fetches make its unchanged pages cheap. Its link to the
// crawl it repeats is `recrawl_requested`, appended before the new crawl's crawl_requested
// (so whoever reads the crawl finds the link), and the report is made from both crawls'
// pages when asked for.
import { IllegalStateError, NotFoundError } from '../../../../shared/src/errors.js';
import { JOB_PART } from '../../../../shared/src/events/crawl.js';
import { makeEvent } from '../../../../shared/src/events/index.js';
import { FORMATS } from '../../../../shared/src/scrape-options.js';
import type { CrawlPageDoc } from '../../../../shared/src/store/index.js';
import type { Caller } from '../plugins/auth.js';
import { recordJob, type JobServiceDeps } from '../job-service.js';
import { recrawlReport } from './report.js';
import type { RecrawlBody, RecrawlReport } from './schemas.js';

const TERMINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
/** Pages read from the store per query. */
const PAGE_BATCH = 100;

export class RecrawlService {
  constructor(private readonly deps: JobServiceDeps) {}

  async submit(caller: Caller, crawlId: string, body: RecrawlBody): Promise<{ id: string; status: 'PENDING'; recrawlOf: string }> {
    const original = await this.deps.store.getCrawlJob(crawlId);
    if (!original || original.apiKeyId !== caller.keyId) throw new NotFoundError(`no crawl job with id "${crawlId}"`);
    if (!TERMINAL.has(original.status)) throw new IllegalStateError(`crawl "${crawlId}" is ${original.status}: recrawl it once it has finished`, 'CONFLICT');
    const requested = await this.deps.log.last({ kind: 'crawl', id: crawlId, part: JOB_PART, event: 'crawl_requested' });
    if (requested?.event !== 'crawl_requested') throw new NotFoundError(`no crawl job with id "${crawlId}"`);
    const { apiKeyId: _k, requestedAt: _r, ...request } = requested.data;
    const asked = new Set([...request.scrapeOptions.formats, 'changeTracking']);
    const scrapeOptions = { ...request.scrapeOptions, formats: FORMATS.filter((f) => asked.has(f)) };
    const id = this.deps.newId();
    const admission = await this.deps.limits.admit(caller, { id, pages: 1, upToPages: request.limit, job: true });
    const now = this.deps.clock();
    // The link first: a crawl whose link is lost is still a crawl; a link without its crawl is never read.
    await this.deps.log.append(makeEvent('recrawl_requested', { kind: 'recrawl', id, part: JOB_PART }, {
      apiKeyId: caller.keyId, recrawlOf: crawlId, revalidate: body.revalidate ?? false, requestedAt: now.toISOString(),
    }, { eventId: this.deps.newId(), now }), { once: true });
    const event = makeEvent('crawl_requested', { kind: 'crawl', id, part: JOB_PART },
      { ...request, scrapeOptions, limit: admission.grantedPages, apiKeyId: caller.keyId, requestedAt: now.toISOString() }, { eventId: this.deps.newId(), now });
    await recordJob(this.deps, event, admission);
    return { id, status: 'PENDING', recrawlOf: crawlId };
  }

  /** The report of the caller's recrawl `id` (a crawl that is no recrawl is a 404 here). */
  async report(caller: Caller, id: string): Promise<RecrawlReport> {
    const job = await this.deps.store.getCrawlJob(id);
    const link = job && job.apiKeyId === caller.keyId ? await this.deps.log.last({ kind: 'recrawl', id, part: JOB_PART, event: 'recrawl_requested' }) : null;
    if (!job || link?.event !== 'recrawl_requested' || link.data.apiKeyId !== caller.keyId) throw new NotFoundError(`no recrawl with id "${id}"`);
    const [previous, current] = await Promise.all([this.pages(link.data.recrawlOf), this.pages(id)]);
    return recrawlReport({ id, recrawlOf: link.data.recrawlOf, status: job.status }, previous, current);
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
