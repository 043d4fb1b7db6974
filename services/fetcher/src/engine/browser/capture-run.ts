// One capture on one fresh page: navigate, let the page settle, waitFor, actions, then the
// rendered DOM and the screenshots. The page, its context and its proxy are made and
// closed by PageCapturer; this file only drives the page. Types Chromium downloads instead
// of rendering (PDF, zip...) are not downloaded: an empty document with the response's
// status and type; misbehaving scripts: docs/architecture.md "Pages whose scripts misbehave".
import type { Page, Request, Response } from 'playwright-core';
import { NetworkError, PageTimeoutError, UrlNotAllowedError } from '../../../../../shared/src/domain/errors.js';
import type { ResolvedScrapeOptions } from '../../../../../shared/src/domain/scrape-options.js';
import { runActions } from './actions.js';
import { captureError, Deadline, isClosed, isTimeout, navigationError, selectorError, shortMessage } from './failures.js';
import { CONTENT_MIN_CHARS, preferServed, preferSnapshot, SERVED_CHECK_MAX_CHARS, type DomSnapshots } from './dom-snapshot.js';
import type { AbortedNavigation, PageInterceptor } from './page-interceptor.js';
import type { SettleWatch } from './settle-watch.js';
import { ACTION_SCREENSHOT_DEFAULTS, takeScreenshot, type CapturedScreenshot, type ShotRequest } from './screenshots.js';
import type { SsrfProxy } from './ssrf-proxy.js';
import type { ServedResponse } from '../http-engine.js';
import { pickOutcomeHeaders } from '../../../../../shared/src/domain/page-outcome/outcome.js';
import { answerConsent } from '../../consent/consent.js';
import type { ConsentRecord } from '../../../../../shared/src/domain/page-outcome/consent.js';

export interface CaptureResult {
  finalUrl: string;
  statusCode: number;
  contentType?: string;
  /** The rendered DOM after scripts and actions, doctype included (the result's rawHtml). */
  html: string;
  /** 'action' screenshots in action order, then the 'final' one when formats has screenshot. */
  screenshots: CapturedScreenshot[];
  /** fetchMs: navigation start to the main document's response (commit); renderMs: from
   *  there to the serialized DOM (load, settling, waitFor, actions), screenshots excluded;
   *  screenshotMs: all screenshots together. */
  timings: { fetchMs: number; renderMs: number; screenshotMs: number };
  /** Main-frame navigations away from the page that failed; the DOM is the page's own. */
  abortedNavigations?: AbortedNavigation[];
  /**
   * Set when scripts lost the settled DOM's content: 'domcontentloaded' (the DOM then) or
   * 'served' (the document as the server sent it, when it was lost before that).
   */
  domSnapshot?: 'domcontentloaded' | 'served';
  /** The main response's headers the page outcome reads (shared/src/domain/page-outcome pickOutcomeHeaders). */
  outcomeHeaders?: Record<string, string>;
  /** What the consent option did (services/fetcher/src/consent), when it was asked for. */
  consent?: ConsentRecord;
}

/** What watches the page for scripts that misbehave (page-interceptor.ts, dom-snapshot.ts). */
export interface PageGuards {
  interceptor: PageInterceptor;
  snapshots: DomSnapshots;
  settle: SettleWatch;
}

export interface SettleOptions {
  /** After DOMContentLoaded, wait at most this long for the load event (then go on without it). */
  loadWaitMaxMs: number;
  /** After load, wait until the DOM and the network have been still this long with nothing pending (settle-watch.ts)... */
  settleQuietMs: number;
  /** ...but no longer than this. */
  settleMaxMs: number;
  screenshotTimeoutMs: number;
}

/** How often the settle wait looks at the page (one evaluate each time). */
const SETTLE_POLL_MS = 25;
/** The settle wait ends this long before the page's timeout, which the DOM's serialization still needs. */
const SETTLE_DEADLINE_MARGIN_MS = 500;
/** Requests that never end on their own (streams, pings) or bring no content: not waited for. */
const NOT_CONTENT_REQUESTS = new Set(['eventsource', 'websocket', 'ping', 'manifest', 'media', 'font', 'texttrack', 'beacon']);

export class CaptureRun {
  private readonly deadline: Deadline;
  /** Requests that may bring content, in flight. */
  private readonly inflight = new Set<Request>();
  /** performance.now() of the last such request's start or end. */
  private lastNetworkAt = performance.now();
  private lastNavigationUrl: string;
  private mainResponse: Response | undefined;
  private downloaded = false;
  private readonly screenshots: CapturedScreenshot[] = [];
  private screenshotMs = 0;
  /** Part of screenshotMs spent inside actions (taken out of renderMs). */
  private actionShotMs = 0;
  private readonly fallbacks: { aborted: AbortedNavigation[]; finalUrl?: string; domSnapshot?: 'domcontentloaded' | 'served' } = { aborted: [] };

  constructor(
    private readonly page: Page,
    private readonly proxy: SsrfProxy,
    private readonly url: string,
    private readonly options: ResolvedScrapeOptions,
    private readonly settle: SettleOptions,
    private readonly guards?: PageGuards,
    private readonly served?: ServedResponse,
  ) {
    this.deadline = new Deadline(options.timeoutMs);
    this.lastNavigationUrl = url;
    page.on('request', (request) => {
      const from = request.redirectedFrom();
      if (from) this.inflight.delete(from);
      if (!NOT_CONTENT_REQUESTS.has(request.resourceType())) {
        this.inflight.add(request);
        this.lastNetworkAt = performance.now();
      }
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) this.lastNavigationUrl = request.url();
    });
    const done = (request: Request): void => {
      if (this.inflight.delete(request)) this.lastNetworkAt = performance.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    page.on('response', (response) => {
      const request = response.request();
      // A navigation the interceptor cancelled never became the page's document.
      if (request.isNavigationRequest() && request.frame() === page.mainFrame() && !guards?.interceptor.cancelled(response.url())) this.mainResponse = response;
    });
  }

  async run(): Promise<CaptureResult> {
    const started = performance.now();
    await this.navigate();
    const committed = performance.now();
    if (!this.downloaded) await this.settlePage();
    // The consent option: the platform's reject/accept button, before waitFor and actions see the page.
    const consent = !this.downloaded && this.options.consent ? await answerConsent(this.page, this.options.consent) : undefined;
    await this.waitFor();
    await runActions(this.options.actions, { page: this.page, deadline: this.deadline, screenshot: () => this.shoot('action') });
    const html = await this.finalHtml(consent?.result === 'rejected' || consent?.result === 'accepted');
    const rendered = performance.now();
    if (this.options.screenshot) await this.shoot('final');
    const response = this.mainResponse;
    const contentType = response?.headers()['content-type'];
    return {
      finalUrl: this.fallbacks.finalUrl ?? (this.downloaded && response ? response.url() : this.page.url()),
      statusCode: response?.status() ?? 200,
      ...(contentType ? { contentType } : {}),
      ...(response ? { outcomeHeaders: pickOutcomeHeaders(response.headers()) } : {}),
      html,
      screenshots: this.screenshots,
      timings: {
        fetchMs: Math.round(committed - started),
        renderMs: Math.max(0, Math.round(rendered - committed - this.actionShotMs)),
        screenshotMs: Math.round(this.screenshotMs),
      },
      ...(this.fallbacks.aborted.length ? { abortedNavigations: this.fallbacks.aborted } : {}),
      ...(this.fallbacks.domSnapshot ? { domSnapshot: this.fallbacks.domSnapshot } : {}),
      ...(consent ? { consent } : {}),
    };
  }

  /**
   * The DOM to return: the settled one, unless a navigation away replaced or cut it short
   * (then the document as served, when it has content), or scripts lost most of its text
   * (then the DOMContentLoaded snapshot, or the document as served when it was lost before
   * that). Not after actions, a waitFor selector or a consent dialog answered: the state
   * they lead to is the one asked for.
   */
  private async finalHtml(consentAnswered: boolean): Promise<string> {
    const guards = this.guards;
    if (!guards || this.downloaded) {
      this.assertMainDocumentAllowed();
      return this.content();
    }
    const { interceptor, snapshots } = guards;
    if (this.page.url().startsWith('chrome-error:')) {
      // A navigation away that the interceptor could not cancel (one that never reached
      // the network) put an error page over the document: the document as served stands in.
      const error = this.proxy.failureFor(this.lastNavigationUrl) ?? new NetworkError(`loading ${this.lastNavigationUrl} failed`, true);
      const served = this.mainResponse && !this.mainResponse.url().startsWith('chrome-error:') ? await this.servedDocument() : undefined;
      if (!served || served.chars < CONTENT_MIN_CHARS) throw error;
      this.fallbacks.aborted = [...interceptor.abortedNavigations, { url: this.lastNavigationUrl, code: error.code, reason: error.message }];
      this.fallbacks.finalUrl = this.mainResponse!.url();
      this.fallbacks.domSnapshot = 'served';
      return served.html;
    }
    this.assertMainDocumentAllowed();
    this.fallbacks.aborted = interceptor.abortedNavigations;
    // One evaluate reads the counts and the settled DOM; page.content() only when it failed.
    const counts = await snapshots.countsAndHtml().catch(() => undefined);
    // Actions, a waitFor selector and a consent dialog answered ask for the later state on purpose: it stands.
    const deliberate = consentAnswered || this.options.actions.length > 0 || typeof this.options.waitFor === 'string';
    if (counts && !deliberate && preferSnapshot(counts)) {
      const html = await snapshots.html().catch(() => undefined);
      if (html) {
        this.fallbacks.domSnapshot = 'domcontentloaded';
        return html;
      }
    }
    if (counts && counts.settledChars < SERVED_CHECK_MAX_CHARS && (!deliberate || interceptor.requested.length > 0)) {
      // Scripts lost the content before DOMContentLoaded (a navigation away stops the
      // parser when it starts; a script replaced the body while it was parsed): the
      // document as served stands in when it has content and the page kept little of it.
      const served = await this.servedDocument();
      if (served && preferServed(counts.settledChars, served.chars)) {
        const lastRequested = interceptor.requested.at(-1);
        if (this.fallbacks.aborted.length === 0 && lastRequested) {
          // A navigation that never reached the network (an external scheme: mailto:, intent:...).
          this.fallbacks.aborted = [{ url: lastRequested, code: 'NETWORK_ERROR', reason: `the browser does not load ${lastRequested.split(':')[0]}: URLs` }];
        }
        this.fallbacks.domSnapshot = 'served';
        return served.html;
      }
      // A redirect stub: the page is the target that failed.
      if (counts.settledChars < CONTENT_MIN_CHARS && interceptor.firstError) throw interceptor.firstError;
    }
    return counts?.html ?? this.content();
  }

  private async servedDocument(): Promise<{ chars: number; html: string } | undefined> {
    // Only an HTML document can be parsed again as one (not an image, a PDF or JSON).
    if (!/html/i.test(this.mainResponse?.headers()['content-type'] ?? '')) return undefined;
    const body = await this.mainResponse?.body().catch(() => undefined);
    return body && this.guards ? this.guards.snapshots.parseServed(body) : undefined;
  }

  private async navigate(): Promise<void> {
    let response: Response | null;
    // A response already fetched is given to the browser, which goes straight to its final URL.
    const served = this.guards ? this.served : undefined;
    if (served) {
      await this.guards!.interceptor.serve(served);
      this.lastNavigationUrl = served.url;
    }
    try {
      response = await this.page.goto(served?.url ?? this.url, { waitUntil: 'commit', timeout: this.deadline.remainingMs() });
    } catch (err) {
      if (/Download is starting/i.test(shortMessage(err)) && this.mainResponse) {
        this.downloaded = true;
        return;
      }
      if (isClosed(err) || isTimeout(err)) throw navigationError(err, this.url, this.options.timeoutMs);
      // Through the proxy every network failure looks alike to Chromium: the proxy knows why.
      throw this.proxy.failureFor(this.lastNavigationUrl) ?? navigationError(err, this.url, this.options.timeoutMs);
    }
    if (response) this.mainResponse = response;
    this.assertMainDocumentAllowed();
  }

  /** The proxy answers refused plain-HTTP requests itself; a main document may never be such an answer. */
  private assertMainDocumentAllowed(): void {
    const response = this.mainResponse;
    if (response && this.proxy.isRefusal(response.headers())) {
      throw this.proxy.failureFor(response.url()) ?? new UrlNotAllowedError(`${response.url()} was refused by SSRF protection`);
    }
    if (this.page.url().startsWith('chrome-error:')) {
      throw this.proxy.failureFor(this.lastNavigationUrl) ?? new NetworkError(`loading ${this.lastNavigationUrl} failed`, true);
    }
  }

  /** DOMContentLoaded is required; load and a quiet network are waited for within caps. */
  private async settlePage(): Promise<void> {
    try {
      await this.untilLoadState('domcontentloaded', this.deadline.remainingMs());
    } catch (err) {
      if (isTimeout(err)) throw new PageTimeoutError(`${this.url} did not finish loading within ${this.options.timeoutMs} ms`, { cause: err });
      throw captureError(err, 'loading the page');
    }
    this.assertMainDocumentAllowed();
    try {
      await this.untilLoadState('load', Math.min(this.deadline.remainingMs(), this.settle.loadWaitMaxMs));
    } catch (err) {
      if (!isTimeout(err)) throw captureError(err, 'loading the page');
    }
    await this.untilStill();
  }

  /**
   * After load: until nothing the page started is pending, no content request is in flight
   * and the DOM (and the network since load) has been still for settleQuietMs; at most
   * settleMaxMs, and never into the margin the page's timeout keeps for serializing.
   */
  private async untilStill(): Promise<void> {
    const loadedAt = performance.now();
    const capMs = Math.min(this.settle.settleMaxMs, this.deadline.remainingMs() - SETTLE_DEADLINE_MARGIN_MS);
    const until = loadedAt + Math.max(0, capMs);
    for (;;) {
      const state = this.guards ? await this.guards.settle.state() : undefined;
      const now = performance.now();
      if (now >= until) return;
      const sinceNetwork = this.lastNetworkAt > loadedAt ? now - this.lastNetworkAt : Infinity;
      const sinceChange = Math.min(state?.sinceChangeMs ?? Infinity, sinceNetwork);
      if ((state?.pending ?? 0) === 0 && this.inflight.size === 0 && sinceChange >= this.settle.settleQuietMs) return;
      const step = this.inflight.size === 0 && (state?.pending ?? 0) === 0 ? this.settle.settleQuietMs - sinceChange : SETTLE_POLL_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(5, Math.min(step, SETTLE_POLL_MS, until - now))));
    }
  }

  /**
   * A wait for a load state that also ends when the document reaches it while a navigation
   * away is pending (Playwright never reports it then; see page-interceptor.ts).
   */
  private async untilLoadState(state: 'domcontentloaded' | 'load', timeoutMs: number): Promise<void> {
    const wait = this.page.waitForLoadState(state, { timeout: timeoutMs });
    if (!this.guards) return wait;
    wait.catch(() => undefined);
    const readyState = this.guards.interceptor.navigationRequested.then(() => this.page.waitForFunction(
      (s) => document.readyState === 'complete' || (s === 'domcontentloaded' && document.readyState === 'interactive'),
      state,
      { polling: 100, timeout: timeoutMs },
    )).then(() => undefined);
    readyState.catch(() => undefined);
    await Promise.race([wait, readyState]);
  }

  private async waitFor(): Promise<void> {
    const { waitFor, timeoutMs } = this.options;
    if (waitFor === undefined) return;
    if (typeof waitFor === 'number') {
      if (waitFor >= this.deadline.remainingMs()) {
        throw new PageTimeoutError(`waitFor ${waitFor} ms does not fit in the page timeout of ${timeoutMs} ms`);
      }
      await this.page.waitForTimeout(waitFor);
      return;
    }
    const waitMs = this.deadline.remainingMs();
    try {
      await this.page.locator(`css=${waitFor}`).first().waitFor({ state: 'visible', timeout: waitMs });
    } catch (err) {
      throw selectorError(err, 'waitFor', waitFor, waitMs);
    }
  }

  /** Serializes the DOM; retried when the page is navigating (a script redirect) at that moment. */
  private async content(): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.page.content();
      } catch (err) {
        if (attempt >= 3 || isClosed(err)) throw captureError(err, 'reading the DOM');
        await this.page.waitForLoadState('domcontentloaded', { timeout: this.deadline.remainingMs() }).catch(() => undefined);
      }
    }
  }

  private async shoot(role: 'final' | 'action'): Promise<void> {
    const spec = this.options.screenshot;
    const shot: ShotRequest = {
      format: spec?.format ?? ACTION_SCREENSHOT_DEFAULTS.format,
      quality: spec?.quality ?? ACTION_SCREENSHOT_DEFAULTS.quality,
      fullPage: spec?.fullPage ?? ACTION_SCREENSHOT_DEFAULTS.fullPage,
      // Intermediate screenshots show the page (viewport or full page), never the clip element.
      ...(role === 'final' && spec?.clip ? { clip: spec.clip } : {}),
      excludeTags: this.options.excludeTags,
      role,
      timeoutMs: this.settle.screenshotTimeoutMs,
    };
    const started = performance.now();
    this.screenshots.push(await takeScreenshot(this.page, shot));
    const took = performance.now() - started;
    this.screenshotMs += took;
    if (role === 'action') this.actionShotMs += took;
  }
}
