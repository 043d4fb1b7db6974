// The transformer's consumer: page_fetched -> (Readability, turndown) -> page_completed; a
// document -> documents/transform-document.ts. Transforms run in a worker-thread pool, so a
// heavy page never blocks this process's NATS heartbeats, each under a budget past which
// its thread is killed and the page fails for good (docs/api.md "Transform budgets"). It
// holds more messages than threads, so another key's page waits in the pool's fair queue.
import { DocumentParseTimeoutError, TransformTimeoutError, type TrawlError } from '../../../shared/src/domain/errors.js';
import type { ResolvedScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { pageSettled, recordPageFailure } from '../../../shared/src/domain/page-failure.js';
import { makeEvent, MAX_EVENT_LINKS, type PageResultPayload, type PayloadRef, type ScreenshotPayload, type StoredEvent, type TrawlEvent } from '../../../shared/src/domain/events/index.js';
import type { Clock, IdGenerator } from '../../../shared/src/infra/ids.js';
import { ConsumerWorker, type MessageContext } from '../../../shared/src/infra/nats/worker.js';
import type { ServiceContext } from '../../../shared/src/infra/service.js';
import { contentOptionsHash } from '../../../shared/src/domain/change-tracking.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { BASELINE_BUCKET, eventFilter, TRANSFORMER_DURABLE } from '../../../shared/src/infra/subjects.js';
import { PageObserver, type ObserveOutcome } from '../../../shared/src/domain/observations/observer.js';
import type { StoredObservation } from '../../../shared/src/domain/observations/chain.js';
import { reusable, storedPage } from '../../../shared/src/domain/observations/not-modified.js';
import { completeReused, skippedReport } from '../../../shared/src/domain/observations/reused-completion.js';
import { contentFormats, resultOptionsHash } from '../../../shared/src/domain/conditional-fetch.js';
import { CancelCheck } from '../../../shared/src/infra/nats/cancel-check.js';
import { Cancellations, JobCancelledError } from './cancellations.js';
import type { TransformPool, TransformSource } from './transform-pool.js';
import type { RecentTransforms } from './recent-transforms.js';
import { outcomeRefusal } from './outcome/failure.js';
import type { DocumentInput, TransformInput, TransformOutput } from './types.js';

type PageFetchedEvent = TrawlEvent<'page_fetched'> & { seq: number };

/**
 * Time a message may also spend waiting for a thread (the pool's fair queue) before its
 * handler gives up and hands it back (nak, a retry): its transform's own budget is the pool's.
 */
const QUEUE_WAIT_ALLOWANCE_MS = 5 * 60_000;

export interface TransformConsumerDeps {
  ctx: ServiceContext;
  pool: TransformPool;
  newId: IdGenerator;
  clock: Clock;
  /** Transforms made for verifications (recent-transforms.ts): a verified page's own may be one of them. */
  recent?: RecentTransforms;
}

export class TransformConsumer {
  readonly consumer: ConsumerWorker<PageFetchedEvent>;
  private readonly observer: PageObserver;
  private readonly baselines: PayloadStore;
  private readonly cancellations: Cancellations;
  private readonly cancels: CancelCheck;

  constructor(private readonly deps: TransformConsumerDeps) {
    const { ctx } = deps;
    this.baselines = new PayloadStore(ctx.js, BASELINE_BUCKET);
    this.observer = new PageObserver({
      log: ctx.log, baselines: this.baselines, newId: deps.newId, baselineTtlMs: ctx.config.baselineTtlMs,
    });
    this.cancellations = new Cancellations(ctx.nc);
    // Whether a page's job was cancelled before it starts, as the fetcher asks it: a crawl's
    // pages come many a second, and one log read per page for a job's cancel was one leader
    // request (and its advisory) per page; a cancel heard on core NATS is known at once.
    this.cancels = new CancelCheck(ctx.log, ctx.nc);
    this.consumer = new ConsumerWorker<PageFetchedEvent>({
      js: ctx.js,
      jsm: ctx.jsm,
      logger: ctx.logger,
      durable: TRANSFORMER_DURABLE,
      filterSubject: eventFilter('page_fetched'),
      concurrency: Math.max(ctx.config.transformerPrefetch, ctx.config.transformerConcurrency),
      ackWaitMs: 15_000,
      maxDeliver: 3,
      // The transform's own budget is the pool's; this only bounds the wait for a thread.
      handlerTimeoutMs: (event) => (event.data.document ? ctx.config.documentParseTimeoutMs : ctx.config.transformTimeoutMs) + QUEUE_WAIT_ALLOWANCE_MS,
      stopGraceMs: ctx.config.stopGraceMs,
      handle: (event, mctx) => this.handleTracked(event, mctx),
      giveUp: (event, error, mctx) => this.recordFailure(event, error, mctx),
    });
  }

  /** Stops the consumer and the cancel listener (the pool is closed by its owner). */
  async stop(): Promise<void> {
    await this.consumer.stop();
    this.cancellations.close();
    this.cancels.close();
  }

  /** handle() under a signal that a cancel of the page's crawl or batch also aborts. */
  private async handleTracked(event: PageFetchedEvent, mctx: MessageContext): Promise<void> {
    const tracked = this.cancellations.track(event.kind, event.id, mctx.signal);
    try {
      await this.handle(event, { ...mctx, signal: tracked.signal });
    } catch (err) {
      if (!(err instanceof JobCancelledError) && !(tracked.signal.reason instanceof JobCancelledError)) throw err;
      // The job is over (the frontier ended it CANCELLED): nothing to record for this page.
      mctx.logger.info('job cancelled; transform stopped');
    } finally {
      tracked.done();
    }
  }

  private at(event: StoredEvent) {
    return { kind: event.kind, id: event.id, part: event.part };
  }

  private async handle(event: PageFetchedEvent, mctx: MessageContext): Promise<void> {
    const { ctx, pool, clock } = this.deps;
    const at = this.at(event);
    // The log reads a page starts with, at once (one round trip instead of three, each a
    // scrape's latency): whether it is settled, its request, and its job's cancel (read at
    // most once a second per job: cancel-check.ts).
    // The page's HTML is read beside them when a thread would take its transform at once
    // (a page waiting in the pool's fair queue holds no HTML: it is read when a thread takes it).
    const early = !event.data.document && event.data.rawHtml && threadFreeNow(pool.stats()) ? ctx.payloads.getText(event.data.rawHtml) : undefined;
    early?.catch(() => undefined); // awaited by the transform; unused when the page is settled
    const [settled, own, cancelled] = await Promise.all([
      pageSettled(ctx.log, at, 'page_completed'),
      ctx.log.last({ ...at, event: 'page_requested' }),
      this.cancels.cancelled(event.kind, event.id),
    ]);
    if (settled) return; // done (or given up on) before a crash
    const requested = own ?? (await ctx.log.last({ ...at, event: 'page_shared' }));
    if (requested?.event !== 'page_requested' && requested?.event !== 'page_shared') {
      throw new Error(`page_fetched without page_requested at ${event.kind}.${event.id}.${event.part}`);
    }
    const { options, apiKeyId } = requested.data;
    if (cancelled) throw new JobCancelledError(event.kind, event.id);
    const asked = new Set(options.formats);
    if (event.data.notModified) return this.completeNotModified(event, requested);
    const { document } = event.data;
    const started = performance.now();
    // changeTracking compares markdown, so it is made even when not asked for (and not returned then).
    const transformOptions = asked.has('changeTracking') && !asked.has('markdown') ? { ...options, formats: [...options.formats, 'markdown' as const] } : options;
    const input = { html: '', url: event.data.finalUrl, options: transformOptions, statusCode: event.data.statusCode, headers: event.data.outcomeHeaders };
    // The page's HTML or the document's bytes are read when a thread takes the transform (a
    // loader): the messages waiting in the pool's fair queue hold no page.
    let html = '';
    // Events from before documents always carry rawHtml.
    const withHtml = async (): Promise<TransformInput> => ({ ...input, html: (html = await (early ?? ctx.payloads.getText(event.data.rawHtml!))) });
    // The URL's last observation, for observe(): none when the fetcher's plan found none
    // (page_fetched.unobserved; not trusted for a changeTracking report, whose
    // previousScrapeAt of an unobservable answer, a 5xx, would go unchecked), else read while
    // the page is transformed, not after it.
    const last = !transformOptions.formats.includes('markdown') || !isObservedPage(event, requested)
      ? undefined
      : event.data.unobserved && !asked.has('changeTracking')
        ? Promise.resolve(null)
        : this.observer.lastObservation({ apiKeyId, url: requested.data.url, tag: options.changeTrackingTag });
    last?.catch(() => undefined); // observe() reads it again when this read failed
    // A verified page's rendered HTML was transformed for its verification moments ago, maybe here.
    const verified = !document && event.data.engine?.verification && this.deps.recent ? await withHtml() : undefined;
    const out = document
      ? await parseDocument(pool, async () => ({ ...input, document: await this.documentInput(document, options) }), mctx.signal, ctx.config.documentParseTimeoutMs, { key: apiKeyId, kind: document.type })
      : (verified && this.deps.recent!.find(verified)) ?? await pool.run(verified ?? withHtml, { signal: mctx.signal, key: apiKeyId, budgetMs: ctx.config.transformTimeoutMs });
    const transformMs = Math.round(performance.now() - started);
    // A challenge, block or empty page fails with its evidence (outcome/failure.ts), before it is observed or stored.
    const refused = outcomeRefusal(event.kind, out.metadata, options, engineUsed(event.data));
    if (refused) return recordPageFailure(ctx.log, at, refused, mctx.deliveryCount, this.deps, requested.data.cacheKey);
    const observing = this.observe(event, requested, out.markdown, clock(), event.data.statusCode, await last?.catch(() => undefined));
    // Only a changeTracking report goes into the stored result: without one, the result is
    // stored while the page is observed (two writes at once, not one after the other).
    const report = asked.has('changeTracking') ? (await observing).report : undefined;

    const shots = (event.data.screenshots ?? []).map((s) => ({
      role: s.role,
      view: { name: s.ref.name, width: s.width, height: s.height, format: s.format, fileSize: s.ref.size } satisfies ScreenshotPayload,
    }));
    const finalShot = shots.find((s) => s.role === 'final')?.view;
    const actionShots = shots.filter((s) => s.role === 'action').map((s) => s.view);
    const payload: PageResultPayload = {
      ...(asked.has('markdown') && out.markdown !== undefined ? { markdown: out.markdown } : {}),
      ...(asked.has('html') && out.html !== undefined ? { html: out.html } : {}),
      ...(asked.has('rawHtml') && !document ? { rawHtml: html } : {}),
      ...(asked.has('links') ? { links: out.links } : {}),
      ...(asked.has('extract') && out.json !== undefined ? { json: out.json } : {}),
      ...(asked.has('screenshot') && finalShot ? { screenshot: finalShot } : {}),
      ...(actionShots.length ? { actionScreenshots: actionShots } : {}),
      ...(report ? { changeTracking: report } : {}),
      ...(document ? { document: { name: document.ref.name, contentType: document.ref.contentType, fileSize: document.ref.size } } : {}),
    };
    const [observed, result] = await Promise.all([observing, ctx.payloads.putJson(resultName(event), payload)]);
    await this.complete(event, requested, { payload, metadata: out.metadata, links: out.links }, observed, transformMs, result);
  }

  /**
   * A 304 (page_fetched.notModified): the page is the stored observation's, completed
   * without a transform (change-tracking/not-modified.ts): naming its stored result when
   * that holds every format asked (no payload read or written), else from a copy.
   */
  private async completeNotModified(event: PageFetchedEvent, requested: StoredEvent & { event: 'page_requested' | 'page_shared' }): Promise<void> {
    const { ctx, clock, newId } = this.deps;
    const basis = event.data.notModified!;
    if (!reusable(basis, requested.data.options)) return this.completeNotModifiedCopy(event, requested);
    await completeReused({ log: ctx.log, payloads: ctx.payloads, baselines: this.baselines, observer: this.observer, newId, clock }, {
      at: this.at(event), request: requested, basis, fetchedSeq: event.seq, validators: event.data.validators, timings: event.data.timings, engine: engineUsed(event.data),
    });
  }

  /** A 304 whose stored result lacks a format asked (markdown, kept in the baseline): completed from a copy. */
  private async completeNotModifiedCopy(event: PageFetchedEvent, requested: StoredEvent & { event: 'page_requested' | 'page_shared' }): Promise<void> {
    const { ctx, clock } = this.deps;
    const { options } = requested.data;
    const basis = event.data.notModified!;
    const page = await storedPage({ log: ctx.log, payloads: ctx.payloads, baselines: this.baselines }, basis, options);
    // A recrawl's sitemap skip looked at nothing: no observation, the last one stays the baseline.
    const observed = basis.by ? skippedReport(basis, options) : await this.observe(event, requested, page.payload.markdown, clock(), page.statusCode);
    const { markdown, ...rest } = page.payload;
    const payload: PageResultPayload = {
      ...(options.formats.includes('markdown') ? { markdown } : {}),
      ...rest,
      ...(observed.report ? { changeTracking: { ...observed.report, notModified: true } } : {}),
    };
    const metadata = basis.by ? { ...page.metadata, notModifiedBy: basis.by } : page.metadata;
    await this.complete(event, requested, { payload, metadata, links: page.links }, observed, 0);
  }

  /** Stores the result and appends page_completed. */
  private async complete(
    event: PageFetchedEvent,
    requested: StoredEvent & { event: 'page_requested' | 'page_shared' },
    content: { payload: PageResultPayload; metadata: TransformOutput['metadata']; links: string[] },
    observed: ObserveOutcome,
    transformMs: number,
    stored?: PayloadRef,
  ): Promise<void> {
    const { ctx, clock, newId } = this.deps;
    const at = this.at(event);
    // The observation's time is the page's completedAt (a redelivered page keeps the time it
    // first observed), so a later report's previousScrapeAt is this page's completedAt.
    const now = observed.observedAt ? new Date(observed.observedAt) : clock();
    const result = stored ?? await ctx.payloads.putJson(resultName(event), content.payload);
    await ctx.log.append(
      makeEvent('page_completed', at, {
        result,
        // The engine that served the page rides once, in the result's metadata (scrape,
        // crawl and batch results alike); the scrape read model shows it in the timings too.
        // What the consent option did rides along the same way (page_fetched.consent), and
        // so does the DOM the browser gave when scripts lost the page's content (domSnapshot).
        metadata: {
          ...content.metadata, engine: engineUsed(event.data),
          ...(event.data.domSnapshot ? { domSnapshot: event.data.domSnapshot } : {}),
          ...(event.data.consent ? { consent: event.data.consent } : {}),
        },
        links: content.links.slice(0, MAX_EVENT_LINKS),
        ...completionTail(event, requested, observed, now, transformMs),
      }, { eventId: newId(), now }),
      { once: true },
    );
  }

  /**
   * A completed page with markdown is an observation of its URL by its key (change
   * tracking). Not a map's link-discovery page, and not a shared load (the same fetch as the
   * job it joined, which observed it already).
   */
  private observe(
    event: PageFetchedEvent, requested: StoredEvent, markdown: string | undefined, now: Date, statusCode = event.data.statusCode, last?: StoredObservation | null,
  ): Promise<ObserveOutcome> {
    if (requested.event !== 'page_requested' || markdown === undefined) return Promise.resolve({});
    if (event.kind !== 'scrape' && event.kind !== 'crawl' && event.kind !== 'batch') return Promise.resolve({});
    return this.observer.observe({
      ...(last !== undefined ? { last } : {}),
      apiKeyId: requested.data.apiKeyId,
      url: requested.data.url,
      tag: requested.data.options.changeTrackingTag,
      source: { kind: event.kind, jobId: event.id, part: event.part },
      fetchedSeq: event.seq,
      statusCode,
      markdown,
      optionsHash: contentOptionsHash(requested.data.options),
      now,
      wantReport: requested.data.options.formats.includes('changeTracking'),
      conditional: {
        validators: event.data.validators,
        resultOptionsHash: resultOptionsHash(requested.data.options),
        formats: contentFormats(requested.data.options),
        notModified: event.data.notModified !== undefined,
      },
    });
  }

  private async documentInput(document: NonNullable<PageFetchedEvent['data']['document']>, options: ResolvedScrapeOptions): Promise<DocumentInput> {
    const { config, payloads } = this.deps.ctx;
    return {
      kind: document.type,
      bytes: await payloads.getBytes(document.ref),
      contentType: document.ref.contentType,
      maxPages: Math.min(options.maxPages ?? config.documentMaxPages, config.documentMaxPages),
    };
  }

  private recordFailure(event: PageFetchedEvent, error: TrawlError, mctx: MessageContext): Promise<void> {
    const failure = { code: error.code, message: `could not transform the page: ${error.message}` };
    return recordPageFailure(this.deps.ctx.log, this.at(event), failure, mctx.deliveryCount, this.deps);
  }

}

/** Whether a page given to the pool now goes to a started thread at once: none waits and one is free. */
export function threadFreeNow(stats: { size: number; busy: number; queued: number }): boolean {
  return stats.queued === 0 && stats.busy < stats.size;
}

/** Whether observe() records the page (a completed page with markdown): see there. */
function isObservedPage(event: StoredEvent, requested: StoredEvent): boolean {
  return requested.event === 'page_requested' && (event.kind === 'scrape' || event.kind === 'crawl' || event.kind === 'batch');
}

/** Where a page's result is stored (one name per page: a redelivery overwrites it). */
function resultName(event: StoredEvent): string {
  return `${event.kind}/${event.id}/${event.part}/result.json`;
}

/**
 * A document's parse in the pool (`input` may be a loader: the bytes are read only when a
 * thread takes the parse), a `heavy` task (TRANSFORMER_DOCUMENT_THREADS at once),
 * under `timeoutMs` (DOCUMENT_PARSE_TIMEOUT_MS) of running time: past it the thread is
 * terminated (the only way to stop pdf.js mid-page) and the page fails for good with
 * DOCUMENT_PARSE_TIMEOUT. A parse that kills its thread (out of memory) fails for good with
 * DOCUMENT_TOO_COMPLEX (the pool's): the same bytes would do it again. A cancel of the
 * message itself (`signal`) is passed on as it is.
 */
export async function parseDocument(
  pool: Pick<TransformPool, 'run'>,
  input: TransformSource,
  signal: AbortSignal,
  timeoutMs: number,
  { key, kind }: { key?: string; kind?: string } = {},
): Promise<TransformOutput> {
  try {
    return await pool.run(input, { signal, key, budgetMs: timeoutMs, heavy: true });
  } catch (err) {
    const what = kind ?? (typeof input === 'function' ? 'document' : input.document!.kind);
    if (err instanceof TransformTimeoutError) throw new DocumentParseTimeoutError(`parsing the ${what} document took longer than ${timeoutMs} ms (DOCUMENT_PARSE_TIMEOUT_MS)`);
    throw err;
  }
}

/** What a page's page_completed carries beside its content: its timings, time, cache key and observation. */
function completionTail(
  event: PageFetchedEvent, requested: StoredEvent & { event: 'page_requested' | 'page_shared' }, observed: ObserveOutcome, now: Date, transformMs: number,
) {
  const t = event.data.timings;
  return {
    timings: {
      queueWaitMs: t.queueWaitMs, fetchMs: t.fetchMs, renderMs: t.renderMs, screenshotMs: t.screenshotMs, transformMs,
      totalMs: Math.max(0, now.getTime() - Date.parse(requested.data.requestedAt)),
    },
    completedAt: now.toISOString(),
    ...(requested.data.cacheKey ? { cacheKey: requested.data.cacheKey } : {}),
    ...(observed.seq ? { observationSeq: observed.seq } : {}),
  };
}

/** The engine that served a fetched page: its `engine` field (older events: the timings' copy; before engines: the browser). */
function engineUsed(fetched: PageFetchedEvent['data']): 'browser' | 'http' {
  return fetched.engine?.used ?? fetched.timings.engine ?? 'browser';
}
