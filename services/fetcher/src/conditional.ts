// Conditional fetches and recrawl skips, the fetcher's part (docs/architecture.md
// "Conditional fetches", "Recrawls"). Before a page of a scrape, crawl or batch is fetched,
// the key's last observation of its URL (one direct get of its observation subject) says
// whether the GET can be conditional; the engine router sends the validators with the HTTP
// engine's GET only. A page of a recrawl whose sitemap lastmod is not newer than that
// observation is not fetched at all (unless the recrawl asked to revalidate).
import { conditionalBasis, skipOnLastmod, storedBasis, type BasisLimits, type ConditionalBasis, type StoredBasis } from '../../../shared/src/domain/conditional-fetch.js';
import { historyPart, pageKeyOf } from '../../../shared/src/domain/change-tracking.js';
import type { PageRequested, RecrawlRequested, RecrawlSitemap, StoredEvent } from '../../../shared/src/domain/events/index.js';
import { isOwn, type PageSource, type StoredObservation } from '../../../shared/src/domain/observations/chain.js';
import type { PageAddress } from '../../../shared/src/domain/page-failure.js';
import type { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import type { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import type { AggregateKind } from '../../../shared/src/infra/subjects.js';
import { LRUCache } from 'lru-cache';

/** The job kinds whose pages are observations (and so may be conditional). */
const OBSERVED_KINDS: ReadonlySet<AggregateKind> = new Set(['scrape', 'crawl', 'batch']);
/** Crawls whose recrawl link and sitemap are kept in memory (both never change once written). */
const RECRAWLS_CACHED = 32;

export type FetchPlan =
  /** `unobserved`: the read for the plan found no observation of the URL by its key (page_fetched.unobserved). */
  | { kind: 'full'; unobserved?: true }
  /** `last`: the URL's last observation as read for the plan (the observer of a 304 starts from it). */
  | { kind: 'conditional'; basis: ConditionalBasis; last: StoredObservation }
  | { kind: 'skip'; basis: StoredBasis };

export interface ConditionalDeps {
  log: Pick<EventLog, 'last' | 'atSeq'>;
  payloads: Pick<PayloadStore, 'getJson'>;
  limits: BasisLimits;
}

export class ConditionalPlanner {
  /** Crawl id -> its recrawl sitemap (null: no recrawl, revalidating, or no sitemap). */
  private readonly sitemaps = new LRUCache<string, Promise<RecrawlSitemap | null>>({ max: RECRAWLS_CACHED });

  constructor(private readonly deps: ConditionalDeps) {}

  async plan(at: PageAddress, request: Pick<PageRequested, 'url' | 'apiKeyId' | 'options'>, now: Date): Promise<FetchPlan> {
    const { kind, id: jobId } = at;
    const { options } = request;
    // A browser-only request is never conditional (a render is asked for): no read for it.
    if (!OBSERVED_KINDS.has(kind) || options.conditional === false) return { kind: 'full' };
    const sitemap = kind === 'crawl' ? await this.sitemapOf(jobId) : null;
    if (options.engine === 'browser' && !sitemap) return { kind: 'full' };
    const part = historyPart(request.url, options.changeTrackingTag);
    const observed = await this.deps.log.last({ kind: 'observation', id: request.apiKeyId, part, event: 'url_observed' });
    if (observed === null) return { kind: 'full', unobserved: true };
    const stored = await this.lastBefore(at, observed);
    if (stored?.event !== 'url_observed' || observed?.event !== 'url_observed') return { kind: 'full' };
    const last = { seq: stored.seq, data: stored.data };
    const skippable = sitemap ? storedBasis(last, options, now, this.deps.limits) : undefined;
    if (skippable && skipOnLastmod(sitemap!.pages[pageKeyOf(request.url)], skippable)) return { kind: 'skip', basis: skippable };
    if (options.engine === 'browser') return { kind: 'full' };
    const basis = conditionalBasis(last, options, now, this.deps.limits);
    return basis ? { kind: 'conditional', basis, last: observed } : { kind: 'full' };
  }

  /**
   * The observation the page stands on. When the last one is this very page's (the fetcher
   * completed a 304 and died before its page_completed: a redelivery), the one it followed:
   * the page is completed from the same stored page as the first attempt chose.
   */
  private async lastBefore(at: PageAddress, last: StoredEvent | null): Promise<StoredEvent | null> {
    if (last?.event !== 'url_observed' || !isOwn(last, { kind: at.kind as PageSource['kind'], jobId: at.id, part: at.part })) return last;
    return last.data.previous ? this.deps.log.atSeq(last.data.previous.seq) : null;
  }

  private sitemapOf(crawlId: string): Promise<RecrawlSitemap | null> {
    let cached = this.sitemaps.get(crawlId);
    if (!cached) {
      cached = this.readSitemap(crawlId);
      // A failed read is not kept: the next page tries again.
      cached.catch(() => this.sitemaps.delete(crawlId));
      this.sitemaps.set(crawlId, cached);
    }
    return cached;
  }

  /** The link is appended before the crawl's crawl_requested, so a page of a recrawl always finds it. */
  private async readSitemap(crawlId: string): Promise<RecrawlSitemap | null> {
    const link = await this.deps.log.last({ kind: 'recrawl', id: crawlId, part: 'job', event: 'recrawl_requested' });
    if (link?.event !== 'recrawl_requested') return null;
    const data: RecrawlRequested = link.data;
    if (data.revalidate || !data.sitemap) return null;
    return this.deps.payloads.getJson<RecrawlSitemap>(data.sitemap.ref);
  }
}
