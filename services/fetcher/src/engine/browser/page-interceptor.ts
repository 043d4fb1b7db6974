// The fetcher's own request interception on one page (a CDP Fetch session next to
// Playwright's, pausing only what it names): resource types not worth loading are refused,
// failed main-frame navigations away from the committed page are cancelled so the page
// keeps its document, and a main document auto's GET already fetched is answered from that
// response. Why: docs/architecture.md "Pages whose scripts misbehave" and "One request per
// page".
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { NetworkError, type TrawlError } from '../../../../../shared/src/domain/errors.js';
import type { SsrfProxy } from './ssrf-proxy.js';
import type { ServedResponse } from '../http-engine.js';

/** The resource types paused here: the refused ones (skippedResourceTypes) and Documents. */
type FetchPattern = { resourceType: 'Document' | 'Font' | 'Media' | 'Image'; requestStage: 'Request' | 'Response' };

/** A main-frame navigation away from the loaded page that failed and was cancelled. */
export interface AbortedNavigation {
  url: string;
  /** The error code the page would have failed with (NETWORK_ERROR, URL_NOT_ALLOWED). */
  code: string;
  reason: string;
}

/** The parts of CDP's Fetch.requestPaused this file reads. */
interface RequestPaused {
  requestId: string;
  request: { url: string };
  frameId: string;
  resourceType: string;
  responseErrorReason?: string;
  responseStatusCode?: number;
  responseHeaders?: { name: string; value: string }[];
}

/** Recorded cancellations kept per page (a page looping on a failing redirect stays bounded). */
const MAX_RECORDED = 10;

export class PageInterceptor {
  private readonly recorded: { navigation: AbortedNavigation; error: TrawlError }[] = [];
  /** Set once the requested URL's navigation got its final (non-redirect) response. */
  private initialDone = false;
  private signalRequested!: () => void;
  /** Main-frame navigations a script asked for (renderer-initiated), oldest first. */
  readonly requested: string[] = [];
  /**
   * Resolves when a script first asks the main frame to navigate away. Chromium stops
   * parsing the document then, and when that navigation goes nowhere (cancelled here, or an
   * external scheme such as mailto: or intent:), Playwright never reports the document's
   * DOMContentLoaded or load: CaptureRun then reads document.readyState instead.
   */
  readonly navigationRequested = new Promise<void>((resolve) => { this.signalRequested = resolve; });

  /** The main document to answer from memory, until its request comes. */
  private served: ServedResponse | undefined;

  private constructor(
    private readonly cdp: CDPSession,
    private readonly mainFrameId: string,
    private readonly proxy: SsrfProxy,
    private readonly patterns: FetchPattern[],
  ) {}

  static async install(context: BrowserContext, page: Page, proxy: SsrfProxy, refusedResourceTypes: string[]): Promise<PageInterceptor> {
    const cdp = await context.newCDPSession(page);
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const patterns: FetchPattern[] = [
      ...refusedResourceTypes.map((resourceType) => ({ resourceType: resourceType as FetchPattern['resourceType'], requestStage: 'Request' as const })),
      { resourceType: 'Document', requestStage: 'Response' },
    ];
    const interceptor = new PageInterceptor(cdp, frameTree.frame.id, proxy, patterns);
    cdp.on('Fetch.requestPaused', (event) => void interceptor.paused(event));
    cdp.on('Page.frameRequestedNavigation', (event) => {
      if (event.frameId !== interceptor.mainFrameId) return;
      if (interceptor.requested.length < MAX_RECORDED) interceptor.requested.push(event.url);
      interceptor.signalRequested();
    });
    await cdp.send('Page.enable');
    await cdp.send('Fetch.enable', { patterns });
    return interceptor;
  }

  /** The next main-frame request for `served.url` is answered with `served` (call before navigating there). */
  async serve(served: ServedResponse): Promise<void> {
    this.served = served;
    await this.cdp.send('Fetch.enable', { patterns: [...this.patterns, { resourceType: 'Document', requestStage: 'Request' }] });
  }

  /** The main-frame navigations cancelled so far, oldest first. */
  get abortedNavigations(): AbortedNavigation[] {
    return this.recorded.map((r) => r.navigation);
  }

  /** The error of the first cancelled navigation (what the page fails with when it had no content). */
  get firstError(): TrawlError | undefined {
    return this.recorded[0]?.error;
  }

  /** Whether a response seen by the page belongs to a navigation this interceptor cancelled. */
  cancelled(url: string): boolean {
    return this.recorded.some((r) => r.navigation.url === url);
  }

  private async paused(event: RequestPaused): Promise<void> {
    const { requestId } = event;
    try {
      if (event.responseStatusCode === undefined && event.responseErrorReason === undefined) {
        if (event.resourceType === 'Document') {
          await this.requestedDocument(event);
          return;
        }
        // Request stage: otherwise only the refused resource types are paused there.
        await this.cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' });
        return;
      }
      if (event.frameId !== this.mainFrameId || event.resourceType !== 'Document') {
        await this.cdp.send('Fetch.continueRequest', { requestId });
        return;
      }
      if (!this.initialDone) {
        if (!isRedirect(event)) this.initialDone = true;
        await this.cdp.send('Fetch.continueRequest', { requestId });
        return;
      }
      const error = this.failureOf(event);
      if (!error) {
        await this.cdp.send('Fetch.continueRequest', { requestId });
        return;
      }
      if (this.recorded.length < MAX_RECORDED) {
        this.recorded.push({ navigation: { url: event.request.url, code: error.code, reason: error.message }, error });
      }
      await this.cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' });
    } catch {
      // The page or its context closed meanwhile: nothing is waiting for this request.
    }
  }

  /** A document's request while a served response waits: the main frame's request for it gets it. */
  private async requestedDocument(event: RequestPaused): Promise<void> {
    const served = this.served;
    if (!served || event.frameId !== this.mainFrameId || withoutHash(event.request.url) !== withoutHash(served.url)) {
      await this.cdp.send('Fetch.continueRequest', { requestId: event.requestId });
      return;
    }
    this.served = undefined;
    this.initialDone = true;
    await this.cdp.send('Fetch.fulfillRequest', {
      requestId: event.requestId,
      responseCode: served.status,
      responseHeaders: served.headers,
      body: served.body.toString('base64'),
    });
    // Documents need not stop at their request stage any more.
    await this.cdp.send('Fetch.enable', { patterns: this.patterns });
  }

  /** Why a later main-frame navigation failed, or undefined when it has a real response. */
  private failureOf(event: RequestPaused): TrawlError | undefined {
    const { url } = event.request;
    if (event.responseErrorReason !== undefined) {
      return this.proxy.failureFor(url) ?? new NetworkError(`loading ${url} failed: ${event.responseErrorReason}`, true);
    }
    const headers = Object.fromEntries((event.responseHeaders ?? []).map((h) => [h.name.toLowerCase(), h.value]));
    if (this.proxy.isRefusal(headers)) return this.proxy.failureFor(url) ?? new NetworkError(`${url} was refused by the proxy`, false);
    return undefined;
  }
}

function isRedirect(event: RequestPaused): boolean {
  const status = event.responseStatusCode ?? 0;
  return status >= 300 && status < 400 && (event.responseHeaders ?? []).some((h) => h.name.toLowerCase() === 'location');
}

function withoutHash(url: string): string {
  try {
    const u = new URL(url);
    u.hash = '';
    return u.href;
  } catch {
    return url;
  }
}
