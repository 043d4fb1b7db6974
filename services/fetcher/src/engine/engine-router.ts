// Which engine fetches a page, and the fetching: the decider (host-profile.ts) says what to
// do, this class does it and records the outcome on the host's profile. Documents (PDF,
// DOCX, text...) never go through the browser, which would download a PDF instead of
// rendering it; a page that still needs the browser after auto's GET is handed that
// response, so the site is asked once. The whole flow: docs/architecture.md "Fetch engines
// and host profiles".
import { mayBeDocument, type DocumentKind } from '../../../../shared/src/domain/document-type.js';
import { DocumentTooLargeError, PageTimeoutError, UrlNotAllowedError } from '../../../../shared/src/domain/errors.js';
import type { Logger } from '../../../../shared/src/infra/logger.js';
import type { Engine, EngineDefaults, ResolvedScrapeOptions } from '../../../../shared/src/domain/scrape-options.js';
import type { extractPage as ExtractPage } from '../../../../packages/extract/src/index.js';
import type { CaptureContext, CaptureResult } from './browser/page-capturer.js';
import { csrMarkers } from './csr-markers.js';
import { decide, fleetMayVouch, markerKinds, NEW_HOST, type AutoPolicy, type EngineDecision, type HostProfile, type ProbeOutcome } from './host-profile.js';
import { hostKeyOf, type HostProfiles } from './host-profile-store.js';
import type { FleetPriors } from './fleet-prior-store.js';
import { kindSet, type FleetTrust } from './fleet-prior.js';
import { NotHtmlError, type HttpEngine, type HttpFetchResult } from './http-engine.js';
import { BodyTooLargeError } from '../../../../shared/src/net/safe-http.js';
import { comparePages, type PageComparison } from './similarity.js';
import { countEngineDecision } from './engine-metrics.js';
import { Slots } from './browser/slots.js';
import { resolveEngine, type JobKind } from './resolve-engine.js';
import type { Validators } from '../../../../shared/src/domain/conditional-fetch.js';
import { LRUCache } from 'lru-cache';
import type { ExtractedForCompare, VerifyExtractPage } from '../../../../shared/src/infra/nats/verify-extract.js';

/** What page_fetched records about the engine: which one served the page, and why. */
export interface EngineRecord {
  used: 'browser' | 'http';
  requested: Engine;
  reason: string;
  /** auto only: the host's profile key and mode when the page was decided. */
  host?: { key: string; mode: HostProfile['mode'] };
  /** When the page was fetched both ways: how alike the two results were, and the page's marker kinds (the fleet prior's set). */
  verification?: PageComparison & { kinds?: string[] };
}

export interface RoutedPage extends CaptureResult {
  engine: EngineRecord;
  /** A document response: its bytes as served (then `html` is ''). */
  document?: { kind: DocumentKind; bytes: Uint8Array };
  /** An HTML page served over HTTP: its ETag / Last-Modified (the next fetch may be conditional). */
  validators?: Validators;
  /** A conditional GET answered 304 (html is ''): the page is the stored observation's. */
  notModified?: true;
}

/** The reason page_fetched records for a document served over HTTP. */
export const DOCUMENT_REASON = 'document';
/** The reason page_fetched records for a conditional GET answered 304. */
export const NOT_MODIFIED_REASON = 'not-modified';

export interface EngineRouterDeps {
  capture(url: string, options: ResolvedScrapeOptions, ctx: CaptureContext): Promise<CaptureResult>;
  http: Pick<HttpEngine, 'fetch'>;
  profiles: HostProfiles;
  /** What every host's verifications taught about each set of marker kinds; absent: each host learns alone. */
  fleet?: FleetPriors;
  policy: AutoPolicy;
  defaults: EngineDefaults;
  clock: () => Date;
  logger: Logger;
  /**
   * A verification's two extractions made elsewhere (a transformer: shared/src/infra/nats/verify-extract.ts);
   * undefined back (none answered) or no such dep: this fetcher makes them itself.
   */
  verifyExtract?: (pages: VerifyExtractPage[], options: ResolvedScrapeOptions, apiKeyId: string | undefined) => Promise<ExtractedForCompare[] | undefined>;
}

export type { JobKind } from './resolve-engine.js';

/**
 * Verification renders of this fetcher at once. A verification (the first pages of a host,
 * then 1 in `recheckEvery`) is a check costing two transforms beside the render, never the
 * reason a page is slow: they share one slot and make no spare context, so Chromium holds
 * one renderer for them at most instead of one per browser slot (sizes: docs/benchmarks.md "Third session").
 * Renders that a page needs keep every slot.
 */
export const VERIFY_RENDERS_AT_ONCE = 1;

/**
 * How long a host's profile, as last read or written by this fetcher, stands for the plan of
 * a conditional GET (a recrawl's pages come many a second). A verdict another replica wrote
 * meanwhile is seen once the answer is not a 304: the page is counted then, which reads it.
 */
export const PROFILE_READ_REUSE_MS = 1_000;
/** Hosts whose profile is kept in memory (the most recently used). */
const PROFILES_KEPT = 1_000;

export class EngineRouter {
  private readonly verifyRenders = new Slots(VERIFY_RENDERS_AT_ONCE);
  /** By host: settles once this fetcher's last verification of the host has its verdict recorded (or gave up). */
  private readonly hostVerdicts = new Map<string, Promise<void>>();
  private readonly recentProfiles = new LRUCache<string, { profile: HostProfile; at: number }>({ max: PROFILES_KEPT });

  constructor(private readonly deps: EngineRouterDeps) {}

  /**
   * The page fetched by the engine it resolves to (the message's heartbeat is the consumer's).
   * `conditional`: the validators of the key's last observation (shared/src/domain/conditional-fetch.ts),
   * sent with the HTTP engine's GET (engine http, or auto before the host's verdict is
   * applied); never with a browser-only plan: a render is what such a page is asked for.
   */
  async fetch(kind: JobKind, url: string, options: ResolvedScrapeOptions, ctx: CaptureContext, conditional?: Validators): Promise<RoutedPage> {
    const startedAt = performance.now();
    const { requested, browserNeeds } = resolveEngine(kind, options, this.deps.defaults);
    const hostKey = requested === 'auto' ? hostKeyOf(url) : undefined;
    // Counting the page and reading the profile are one compare-and-set write (see HostProfile.sinceCheck).
    // A conditional GET only reads it: a 304 is not counted (nothing was loaded that a check
    // could compare), so an unchanged page costs a read, not a write; any other answer is counted then.
    let counted = !hostKey || !conditional;
    let profile = !hostKey ? NEW_HOST : counted ? await this.recordProfile(hostKey, { type: 'seen' }) : await this.recentProfile(hostKey);
    const count = async (): Promise<void> => {
      if (counted) return;
      counted = true;
      profile = await this.recordProfile(hostKey!, { type: 'seen' });
    };
    const record = (used: EngineRecord['used'], decision: EngineDecision, verification?: EngineRecord['verification']): EngineRecord => {
      countEngineDecision(used, decision.action);
      return { used, requested, reason: decision.reason, ...(hostKey ? { host: { key: hostKey, mode: profile.mode } } : {}), ...(verification ? { verification } : {}) };
    };

    let plan = decide(profile, { type: 'plan', requested, browserNeeds }, this.deps.policy);
    if (plan.action === 'browser' && !counted) {
      await count();
      plan = decide(profile, { type: 'plan', requested, browserNeeds }, this.deps.policy);
    }
    const asDocument = (page: HttpFetchResult): RoutedPage => {
      const { validators: _v, ...doc } = fromHttp(page);
      return { ...doc, engine: record('http', { action: 'http', reason: DOCUMENT_REASON }) };
    };
    const notModified = (page: HttpFetchResult): RoutedPage => ({ ...fromHttp(page), engine: record('http', { action: 'http', reason: NOT_MODIFIED_REASON }) });
    if (plan.action === 'browser') {
      const page = await this.deps.capture(url, options, ctx);
      const document = await this.documentBehind(page, url, options, ctx.signal, startedAt);
      return document ? asDocument(document) : { ...page, engine: record('browser', plan) };
    }
    if (requested === 'http') {
      const page = await this.deps.http.fetch(url, options, ctx.signal, conditional);
      if (page.notModified) return notModified(page);
      return page.document ? asDocument(page) : { ...fromHttp(page), engine: record('http', plan) };
    }

    const { page: got, probe } = await this.probe(url, options, ctx.signal, conditional);
    if (got?.notModified) return notModified(got);
    await count();
    if (got?.document) return asDocument(got);
    const next = decide(profile, { type: 'probed', requested, probe, fleet: await this.fleetTrust(profile, probe) }, this.deps.policy);
    if (next.action === 'http' && got) {
      return { ...fromHttp(got), engine: record('http', next) };
    }
    // The browser renders the response the GET already has: the site sees one request per page.
    const renderCtx: CaptureContext = got?.served ? { ...ctx, served: got.served } : ctx;
    // A page with markers renders with every slot even when verified: before its marker
    // kind was learnt, it was rendered anyway, and most such pages do need the browser.
    if (next.action === 'verify' && got && !(probe.ok && probe.csrMarkers.length > 0)) {
      return this.verifyAlone(url, options, renderCtx, got, { hostKey: hostKey!, probe, decision: next, record, setProfile: (p) => { profile = p; } });
    }
    // A rendered page records no validators (its content is the scripts' too, which a 304 of
    // its HTML does not vouch for), unless its verification found the HTTP page the same.
    const rendered = withGetTime(await this.deps.capture(url, options, renderCtx), renderCtx, got);
    const document = got ? undefined : await this.documentBehind(rendered, url, options, ctx.signal, startedAt);
    if (document) return asDocument(document);
    if (next.action !== 'verify' || !got) {
      return { ...rendered, engine: record('browser', next) };
    }
    return this.verified(url, got, rendered, probe, options, ctx.apiKeyId, hostKey!, next, (verification) => record('browser', next, verification));
  }

  /**
   * A verification of a page without markers. Of a host's verifications in this fetcher, each
   * waits for the verdict of the one before it and is decided again with it: a page decided
   * while its host was learning is served from its GET once the verdicts before it made the
   * host static (a 500-page crawl rendered 5 pages to learn its host where 3 agreeing are
   * asked). Other hosts' verifications do not wait for these verdicts, only for the render slot.
   */
  private async verifyAlone(url: string, options: ResolvedScrapeOptions, ctx: CaptureContext, got: HttpFetchResult, page: VerifyingPage): Promise<RoutedPage> {
    const before = this.hostVerdicts.get(page.hostKey);
    let verdictKnown!: () => void;
    const mine = new Promise<void>((resolve) => { verdictKnown = resolve; });
    const chained = (before ?? Promise.resolve()).then(() => mine);
    this.hostVerdicts.set(page.hostKey, chained);
    try {
      let decision = page.decision;
      if (before) {
        await untilSettledOrAborted(before, ctx.signal);
        const profile = this.keepProfile(page.hostKey, await this.deps.profiles.get(page.hostKey));
        page.setProfile(profile);
        decision = decide(profile, { type: 'probed', requested: 'auto', probe: page.probe, fleet: await this.fleetTrust(profile, page.probe) }, this.deps.policy);
        if (decision.action === 'http') return { ...fromHttp(got), engine: page.record('http', decision) };
      }
      const rendered = withGetTime(await this.verifyRender(url, options, ctx), ctx, got);
      return await this.verified(url, got, rendered, page.probe, options, ctx.apiKeyId, page.hostKey, decision, (verification) => page.record('browser', decision, verification));
    } finally {
      verdictKnown();
      if (this.hostVerdicts.get(page.hostKey) === chained) this.hostVerdicts.delete(page.hostKey);
    }
  }

  /**
   * A verification's render: one at a time in this fetcher, with no spare context made for
   * it. The next one starts once this one's context has closed (after the answer, which
   * does not wait for it), not beside its renderer process still exiting.
   */
  private async verifyRender(url: string, options: ResolvedScrapeOptions, ctx: CaptureContext): Promise<CaptureResult> {
    const release = await this.verifyRenders.acquire(ctx.signal);
    let closed: Promise<void> = Promise.resolve();
    try {
      return await this.deps.capture(url, options, { ...ctx, refillsSpare: false, tornDown: (teardown) => { closed = teardown; } });
    } finally {
      void closed.catch(() => undefined).finally(release);
    }
  }

  /** Both results compared, the verdict recorded on the host's profile and the fleet's prior, the browser's result served. */
  private async verified(url: string, got: HttpFetchResult, rendered: CaptureResult, probe: ProbeOutcome, options: ResolvedScrapeOptions, apiKeyId: string | undefined, hostKey: string, decision: EngineDecision, engine: (verification: EngineRecord['verification']) => EngineRecord): Promise<RoutedPage> {
    const verification = await this.compare(got, rendered, options, apiKeyId);
    const markers = probe.ok ? probe.csrMarkers : [];
    const kinds = markerKinds(markers);
    const at = this.deps.clock().toISOString();
    const fleetCheck = decision.action === 'verify' && decision.fleetCheck === true;
    await Promise.all([
      this.recordProfile(hostKey, { type: 'verified', agreed: verification.agreed, similarity: verification.markdown, url, at, markers, identical: verification.identical && verification.links === 1, ...(fleetCheck ? { fleetCheck } : {}) }),
      this.deps.fleet?.record(kinds, { agreed: verification.agreed, host: hostKey, url, at }),
    ]);
    if (!verification.agreed) {
      this.deps.logger.info({ hostKey, url, verification, markers }, markers.length > 0 ? 'HTTP and browser results differ: these markers go to the browser on this host' : 'HTTP and browser results differ: host goes to the browser');
    }
    // Agreed: the served HTML makes the same page, so a 304 for it may stand for this result next time.
    return { ...rendered, engine: engine({ ...verification, kinds: kindSet(kinds) }), ...(verification.agreed && got.validators ? { validators: got.validators } : {}) };
  }

  /** Whether the fleet vouches for the probed page, when its host may take the fleet's word for it. */
  private async fleetTrust(profile: HostProfile, probe: ProbeOutcome): Promise<FleetTrust | undefined> {
    if (!this.deps.fleet || !probe.ok || !fleetMayVouch(profile, markerKinds(probe.csrMarkers))) return undefined;
    return this.deps.fleet.trust(markerKinds(probe.csrMarkers), this.deps.clock());
  }

  /** The host's profile after `event` (a compare-and-set write), kept as the latest known. */
  private async recordProfile(hostKey: string, event: Parameters<HostProfiles['record']>[1]): Promise<HostProfile> {
    return this.keepProfile(hostKey, await this.deps.profiles.record(hostKey, event));
  }

  /** The host's profile as known here within PROFILE_READ_REUSE_MS, else read. */
  private async recentProfile(hostKey: string): Promise<HostProfile> {
    const known = this.recentProfiles.get(hostKey);
    if (known && Date.now() - known.at < PROFILE_READ_REUSE_MS) return known.profile;
    return this.keepProfile(hostKey, await this.deps.profiles.get(hostKey));
  }

  private keepProfile(hostKey: string, profile: HostProfile): HostProfile {
    this.recentProfiles.set(hostKey, { profile, at: Date.now() });
    return profile;
  }

  /** The GET of auto: a result, or why not (failures that the browser would share are thrown). */
  private async probe(url: string, options: ResolvedScrapeOptions, signal: AbortSignal, conditional?: Validators): Promise<{ page?: HttpFetchResult; probe: ProbeOutcome }> {
    try {
      const page = await this.deps.http.fetch(url, options, signal, conditional);
      if (page.notModified) return { page, probe: { ok: true, csrMarkers: [] } };
      return { page, probe: { ok: true, csrMarkers: csrMarkers(page.html) } };
    } catch (err) {
      // Blocked addresses, a server that does not answer in time, or a cancel: the browser
      // would meet the same, so the page fails now instead of waiting twice.
      if (signal.aborted || err instanceof UrlNotAllowedError || err instanceof PageTimeoutError || err instanceof DocumentTooLargeError) throw err;
      const why = err instanceof NotHtmlError ? 'not-html' : err instanceof BodyTooLargeError ? 'too-large' : 'failed';
      return { probe: { ok: false, why, detail: (err as Error).message } };
    }
  }

  /**
   * The document a browser capture stands for: its main response was labelled like a
   * document, was unlabelled and left an empty page (Chromium downloaded it), or was a PDF
   * a server labelled HTML (Chromium shows its bytes as text). Fetched again over HTTP;
   * undefined when that finds HTML (then the rendered page stands).
   *
   * The page timeout is the whole page's: the download gets what the render left of it, and
   * a body that does not arrive within it (a server dripping its PDF) fails the page as
   * PAGE_TIMEOUT. The rendered page is no answer then: Chromium left it empty.
   */
  private async documentBehind(page: CaptureResult, url: string, options: ResolvedScrapeOptions, signal: AbortSignal, startedAt: number): Promise<HttpFetchResult | undefined> {
    const labelled = page.contentType !== undefined && page.contentType.trim() !== '';
    const looksLikeOne = labelled ? mayBeDocument(page.contentType) || showsPdfBytes(page.html) : isEmptyDocument(page.html);
    if (!looksLikeOne) return undefined;
    const timedOut = (cause?: unknown): PageTimeoutError =>
      new PageTimeoutError(`${url} did not deliver its document within the page timeout of ${options.timeoutMs} ms`, { cause });
    const leftMs = Math.floor(options.timeoutMs - (performance.now() - startedAt));
    if (leftMs <= 0) throw timedOut();
    try {
      const got = await this.deps.http.fetch(url, { ...options, timeoutMs: leftMs }, signal);
      return got.document ? got : undefined;
    } catch (err) {
      if (signal.aborted || err instanceof DocumentTooLargeError) throw err;
      if (err instanceof PageTimeoutError) throw timedOut(err);
      this.deps.logger.info({ url, err: (err as Error).message }, 'a document-like response could not be fetched over HTTP: the rendered page stands');
      return undefined;
    }
  }

  private async compare(got: HttpFetchResult, rendered: CaptureResult, options: ResolvedScrapeOptions, apiKeyId: string | undefined): Promise<PageComparison> {
    const asMarkdown = { ...options, formats: ['markdown' as const] };
    const pages: VerifyExtractPage[] = [
      { html: got.html, url: got.finalUrl, statusCode: got.statusCode },
      // As page_fetched will carry the rendered page: a transformer may keep its transform for it.
      { html: rendered.html, url: rendered.finalUrl, statusCode: rendered.statusCode, ...(rendered.outcomeHeaders && Object.keys(rendered.outcomeHeaders).length ? { headers: rendered.outcomeHeaders } : {}) },
    ];
    const [a, b] = (await this.deps.verifyExtract?.(pages, asMarkdown, apiKeyId)) ?? (await extractHere(pages, asMarkdown));
    return comparePages(a!, b!);
  }
}

/**
 * A verification's extractions in this process, when no transformer made them. Loaded on
 * first use: a fetcher whose transformers answer never holds the parser and converters.
 */
async function extractHere(pages: VerifyExtractPage[], options: ResolvedScrapeOptions): Promise<ExtractedForCompare[]> {
  const extractPage = await loadExtraction();
  return pages.map((page) => {
    const out = extractPage({ ...page, options });
    return { markdown: out.markdown ?? '', links: out.links };
  });
}

let extraction: Promise<typeof ExtractPage> | undefined;
function loadExtraction(): Promise<typeof ExtractPage> {
  extraction ??= import('../../../../packages/extract/src/index.js').then((m) => m.extractPage);
  return extraction;
}

/** PDF bytes rendered as an HTML page: the body's text starts with the PDF header. */
function showsPdfBytes(html: string): boolean {
  return /<body[^>]*>(?:\s|<[^>]*>)*%PDF-/i.test(html);
}

/** What Chromium leaves when it downloads the main document instead of rendering it. */
function isEmptyDocument(html: string): boolean {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  return body.replace(/<[^>]*>/g, '').trim() === '';
}

function fromHttp(page: HttpFetchResult): CaptureResult & Pick<RoutedPage, 'document' | 'validators' | 'notModified'> {
  const { served: _served, ...result } = page;
  return { ...result, screenshots: [] };
}

/** A page the GET's response was rendered for: its fetch was the GET's, whose time counts in the page's fetchMs. */
function withGetTime(rendered: CaptureResult, ctx: CaptureContext, got: HttpFetchResult | undefined): CaptureResult {
  if (!ctx.served || !got) return rendered;
  return { ...rendered, timings: { ...rendered.timings, fetchMs: rendered.timings.fetchMs + got.timings.fetchMs } };
}

/** What a verification of a page needs from its fetch: its host, its probe, and how its engine is recorded. */
interface VerifyingPage {
  hostKey: string;
  probe: ProbeOutcome;
  decision: EngineDecision;
  record: (used: EngineRecord['used'], decision: EngineDecision, verification?: EngineRecord['verification']) => EngineRecord;
  setProfile: (profile: HostProfile) => void;
}

/** Waits for `p` to settle (either way); a cancel of the page ends the wait with the signal's reason. */
function untilSettledOrAborted(p: Promise<unknown>, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void p.catch(() => undefined).then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
