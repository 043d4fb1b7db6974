// The completion of a page that stands for a stored result (a 304, or a recrawl's sitemap
// skip) whose result holds every format asked: its observation, then a page_completed that
// names the stored result (docs/architecture.md "Conditional fetches"). One writer of these
// events for both stages that complete such pages: the fetcher (a crawl or batch page, with
// no page_fetched and no transformer hop) and the transformer (a scrape's, after page_fetched).
// Idempotent: the observation finds its own on a repeat (chain.ts), page_completed is `once`.
import { makeEvent, MAX_EVENT_LINKS, type PageFetched, type PageRequested, type PageShared } from '../events/index.js';
import type { FetchTimings, EngineUsed } from '../events/common.js';
import { contentOptionsHash, type ChangeTrackingReport } from '../change-tracking.js';
import { contentFormats, resultOptionsHash, type Validators } from '../conditional-fetch.js';
import type { PageAddress } from '../page-failure.js';
import type { ResolvedScrapeOptions } from '../scrape-options.js';
import type { Clock, IdGenerator } from '../../infra/ids.js';
import type { EventLog } from '../../infra/nats/event-log.js';
import type { PayloadStore } from '../../infra/nats/payloads.js';
import { knownMarkdown, reusedResultOf, sourcePage, type Completed } from './not-modified.js';
import type { ObserveOutcome, PageObserver } from './observer.js';
import type { StoredObservation } from './chain.js';

type Basis = NonNullable<PageFetched['notModified']>;

export interface ReusedCompletionDeps {
  log: EventLog;
  payloads: Pick<PayloadStore, 'getJson'>;
  baselines: Pick<PayloadStore, 'getText'>;
  observer: PageObserver;
  newId: IdGenerator;
  clock: Clock;
}

export interface ReusedPage {
  at: PageAddress;
  /** The page's request: a shared load (page_shared) is the job it joined's observation, not one of its own. */
  request: { event: 'page_requested'; data: PageRequested } | { event: 'page_shared'; data: PageShared };
  basis: Basis;
  /** A stream sequence before any event of this page's completion (its page_fetched, or its page_requested): its own observation comes after it. */
  fetchedSeq: number;
  validators?: Validators | undefined;
  /** The URL's last observation, just read (the fetcher's plan), so the observer need not read it again. */
  lastObservation?: StoredObservation | undefined;
  /** The basis's page_completed, already being read (the fetcher starts the read while its GET runs). */
  source?: Promise<Completed> | undefined;
  timings: FetchTimings;
  engine: EngineUsed;
}

/** Appends the page's observation (not for a sitemap skip) and its page_completed naming the stored result. */
export async function completeReused(deps: ReusedCompletionDeps, page: ReusedPage): Promise<void> {
  const { basis, request } = page;
  const { options } = request.data;
  const source = await (page.source ?? sourcePage(deps, basis));
  const reused = reusedResultOf(source, basis, options);
  // A recrawl's sitemap skip looked at nothing: no observation, the last one stays the baseline.
  const observed = basis.by ? skippedReport(basis, options) : await observe(deps, page, {
    markdown: knownMarkdown(deps, basis, source), statusCode: source.data.metadata.statusCode ?? 200, resultStoredAt: reused.storedAt,
  });
  const metadata = { ...source.data.metadata, notModified: true, ...(basis.by ? { notModifiedBy: basis.by } : {}), engine: page.engine };
  // The observation's time is the page's completedAt (a repeat keeps the time it first observed).
  const now = observed.observedAt ? new Date(observed.observedAt) : deps.clock();
  const t = page.timings;
  await deps.log.append(
    makeEvent('page_completed', page.at, {
      result: source.data.result,
      reusedResult: { ...reused, ...(observed.report ? { changeTracking: { ...observed.report, notModified: true } } : {}) },
      metadata,
      links: source.data.links.slice(0, MAX_EVENT_LINKS),
      timings: {
        queueWaitMs: t.queueWaitMs, fetchMs: t.fetchMs, renderMs: t.renderMs, screenshotMs: t.screenshotMs, transformMs: 0,
        totalMs: Math.max(0, now.getTime() - Date.parse(request.data.requestedAt)),
      },
      completedAt: now.toISOString(),
      ...('cacheKey' in request.data && request.data.cacheKey ? { cacheKey: request.data.cacheKey } : {}),
      ...(observed.seq ? { observationSeq: observed.seq } : {}),
    }, { eventId: deps.newId(), now }),
    { once: true },
  );
}

/** The observation of a page of a scrape, crawl or batch it requested itself (a shared load was observed by its source). */
function observe(
  deps: ReusedCompletionDeps, page: ReusedPage, seen: { markdown: ReturnType<typeof knownMarkdown>; statusCode: number; resultStoredAt: string },
): Promise<ObserveOutcome> {
  const { at, request } = page;
  if (request.event !== 'page_requested' || (at.kind !== 'scrape' && at.kind !== 'crawl' && at.kind !== 'batch')) return Promise.resolve({});
  const { data } = request;
  return deps.observer.observe({
    apiKeyId: data.apiKeyId,
    url: data.url,
    tag: data.options.changeTrackingTag,
    source: { kind: at.kind, jobId: at.id, part: at.part },
    fetchedSeq: page.fetchedSeq,
    ...(page.lastObservation ? { last: page.lastObservation } : {}),
    statusCode: seen.statusCode,
    markdown: seen.markdown,
    optionsHash: contentOptionsHash(data.options),
    now: deps.clock(),
    wantReport: data.options.formats.includes('changeTracking'),
    conditional: {
      validators: page.validators,
      resultOptionsHash: resultOptionsHash(data.options),
      formats: contentFormats(data.options),
      notModified: true,
      resultStoredAt: seen.resultStoredAt,
    },
  });
}

/** The change-tracking answer of a page a recrawl skipped on its sitemap lastmod (no observation). */
export function skippedReport(basis: Basis, options: ResolvedScrapeOptions): { report?: ChangeTrackingReport; seq?: number; observedAt?: string } {
  if (!options.formats.includes('changeTracking')) return {};
  return {
    report: {
      observed: false,
      previousScrapeAt: basis.observedAt ?? null,
      previousJobId: basis.source.jobId,
      previousJobKind: basis.source.kind,
    },
  };
}
