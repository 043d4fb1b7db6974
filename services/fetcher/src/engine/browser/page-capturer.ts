// The fetcher's page-capture library: loads a URL in Chromium with the scrape options and
// returns the rendered DOM and screenshots. The NATS wiring (worker.ts) calls `capture`.
// Each capture gets a slot of a bounded pool and its own SsrfProxy and BrowserContext (no
// cookies, cache or connections shared between captures), both closed in `finally`.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BrowserError, type TrawlError } from '../../../../../shared/src/domain/errors.js';
import type { Logger } from '../../../../../shared/src/infra/logger.js';
import { normalizeScrapeOptions, type ResolvedScrapeOptions } from '../../../../../shared/src/domain/scrape-options.js';
import { parseHttpUrl } from '../../../../../shared/src/net/url-safety.js';
import { BrowserHost } from './browser-pool.js';
import { Slots, type CapturePriority } from './slots.js';
import { CaptureRun, type CaptureResult } from './capture-run.js';
import { resolveEmulation } from '../device-presets.js';
import { captureError, isClosed } from './failures.js';
import { SsrfProxy } from './ssrf-proxy.js';
import { PageInterceptor } from './page-interceptor.js';
import { DomSnapshots } from './dom-snapshot.js';
import { SettleWatch } from './settle-watch.js';
import type { ServedResponse } from '../http-engine.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** Upper bound on waiting for a context's close event (a dead browser never sends one). */
const CONTEXT_CLOSE_WAIT_MS = 5_000;

export type { CaptureResult } from './capture-run.js';
export { CAPTURER_DEFAULTS, type CapturerStats, type PageCapturerOptions } from './capturer-options.js';
import { CAPTURER_DEFAULTS, type CapturerStats, type PageCapturerOptions } from './capturer-options.js';
export type { CapturedScreenshot } from './screenshots.js';
export { DEVICE_PRESETS, resolveEmulation } from '../device-presets.js';

export interface CaptureContext {
  /** Aborting fails a queued capture at once and closes a running one's page. */
  signal: AbortSignal;
  /** Interactive (default) goes before bulk for a free slot; bulk is bounded per host (slots.ts). */
  priority?: CapturePriority;
  /** When this process got the page's message (performance.now()): a host pace read sent since answers it (fleet/host-governor.ts). */
  receivedAt?: number;
  /**
   * false: this capture never prepares a spare context. For the auto engine's
   * verification renders (1 page in 25 of a static host): a spare would hold a renderer
   * process for a next render that is seconds away.
   */
  refillsSpare?: boolean;
  /**
   * The main document's response, already fetched (auto's GET): the browser is given it
   * instead of requesting it again, and navigates to its final URL.
   */
  served?: ServedResponse;
  /**
   * Told when this capture's context and proxy are closed, after its answer (they close in
   * the background). Verification renders wait for it before the next one starts, so
   * Chromium never holds a closing renderer beside a new one for them.
   */
  tornDown?: (closed: Promise<void>) => void;
  /**
   * The API key the page is fetched for: a verification's extractions, made by a
   * transformer, count in this key's share of its threads like the key's own pages.
   */
  apiKeyId?: string;
}

/** What one capture holds open, closed after its answer (PageCapturer.dispose). */
interface Held {
  proxy?: SsrfProxy;
  context?: BrowserContext;
  contextClosed: Promise<unknown>;
  /** Prepare the next spare once this capture has answered. */
  refillSpare?: boolean;
}

/** A context made before its job: never used by another job, only handed to one. */
interface Prepared {
  browser: Browser;
  proxy: SsrfProxy;
  context: BrowserContext;
  contextClosed: Promise<unknown>;
  page: Page;
  interceptor: PageInterceptor;
  snapshots: DomSnapshots;
  settle: SettleWatch;
}

/** Spares are made for requests that change nothing about the context. */
const SPARE_OPTIONS = normalizeScrapeOptions({});

type Settings = Required<Omit<PageCapturerOptions, 'chromiumPath' | 'lookup' | 'logger' | 'allowCidrs' | 'poolSize'>>;

export class PageCapturer {
  private readonly settings: Settings;
  private readonly slots: Slots;
  private readonly running = new Set<Promise<unknown>>();
  private readonly teardowns = new Set<Promise<unknown>>();
  private spare: Promise<Prepared | undefined> | undefined;
  private fallbackProxy: SsrfProxy | undefined;
  private host: BrowserHost | undefined;
  private stopped = false;
  /** performance.now() of the last capture's start (spare policy). */
  /** When the last capture started or answered. */
  private lastCaptureAt = Number.NEGATIVE_INFINITY;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly counts = { contexts: 0, pages: 0, proxies: 0, started: 0, succeeded: 0, failed: 0 };

  constructor(private readonly opts: PageCapturerOptions) {
    this.settings = { ...CAPTURER_DEFAULTS, ...definedOnly(opts) } as Settings;
    this.slots = new Slots(opts.poolSize, opts.hostMaxInFlight);
  }

  /** Starts the browser-wide proxy and, with launchAtStart, Chromium (so a missing browser fails at start). */
  async start(): Promise<void> {
    if (this.host) return;
    this.fallbackProxy = await SsrfProxy.start(this.proxyOptions());
    this.host = new BrowserHost({
      chromiumPath: this.opts.chromiumPath,
      proxyServer: this.fallbackProxy.url,
      launchTimeoutMs: this.settings.launchTimeoutMs,
      retireAfterPages: this.settings.browserRetireAfterPages,
      logger: this.opts.logger,
    });
    if (this.settings.launchAtStart) await this.host.get();
  }

  /** The running Chromium's version (undefined before the first launch). */
  browserVersion(): string | undefined {
    return this.host?.current()?.version();
  }

  async capture(url: string, options: ResolvedScrapeOptions, ctx: CaptureContext): Promise<CaptureResult> {
    if (this.stopped || !this.host) throw new BrowserError(this.stopped ? 'the page capturer is stopped' : 'the page capturer is not started');
    const { hostname } = parseHttpUrl(url);
    const job = (async () => {
      const release = await this.slots.acquire(ctx.signal, { priority: ctx.priority ?? 'interactive', host: hostname });
      clearTimeout(this.idleTimer);
      const held: Held = { contextClosed: Promise.resolve() };
      try {
        return await this.captureOnPage(url, options, ctx, held);
      } finally {
        // The next spare is made after the answer, not during the render: a context and its
        // renderer process made beside a render compete with it for the CPU and for
        // Playwright's connection (docs/benchmarks.md, fourth session, "Scrape latency").
        this.lastCaptureAt = performance.now();
        if (held.refillSpare) this.refillSpare();
        // Answer first, tear down after: the context and proxy close in the background,
        // still inside the slot (so the pool's bound holds), tracked until done.
        const closed = this.dispose(held).finally(() => {
          release();
          this.scheduleIdleClose();
          void this.host?.closeRetired();
        });
        this.track(closed);
        ctx.tornDown?.(closed);
      }
    })();
    this.running.add(job);
    try {
      return await job;
    } finally {
      this.running.delete(job);
    }
  }

  stats(): CapturerStats {
    const browser = this.host?.current();
    const contexts = browser?.contexts() ?? [];
    return {
      active: this.slots.activeCount,
      queued: this.slots.queuedCount,
      openContexts: this.counts.contexts,
      openPages: this.counts.pages,
      browserContexts: contexts.length,
      browserPages: contexts.reduce((n, c) => n + c.pages().length, 0),
      openProxies: this.counts.proxies,
      browserLaunches: this.host?.launches ?? 0,
      captures: { started: this.counts.started, succeeded: this.counts.succeeded, failed: this.counts.failed },
    };
  }

  /** Resolves once every finished capture's context and proxy are closed. */
  async idle(): Promise<void> {
    while (this.teardowns.size > 0) await Promise.allSettled([...this.teardowns]);
  }

  /** Fails queued captures, closes Chromium (running captures fail with BROWSER_ERROR) and the proxies. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.idleTimer);
    this.slots.rejectQueued(new BrowserError('the page capturer is stopping'));
    const spare = await this.spare?.catch(() => undefined);
    this.spare = undefined;
    if (spare) await this.dispose(spare);
    await this.host?.close();
    await Promise.allSettled([...this.running]);
    await this.idle();
    await this.fallbackProxy?.close();
  }

  private async dispose(held: Held): Promise<void> {
    if (held.context) {
      // close() returns early when an abort already started closing: wait for the event too.
      await held.context.close().catch(() => undefined);
      const giveUp = new AbortController();
      await Promise.race([held.contextClosed, sleep(CONTEXT_CLOSE_WAIT_MS, undefined, { signal: giveUp.signal }).catch(() => undefined)]);
      giveUp.abort();
      this.counts.contexts--;
    }
    if (held.proxy) {
      await held.proxy.close();
      this.counts.proxies--;
    }
  }

  private async captureOnPage(url: string, options: ResolvedScrapeOptions, ctx: CaptureContext, held: Held): Promise<CaptureResult> {
    this.counts.started++;
    let browser: Browser | undefined;
    let crashed = false;
    const closeContext = (): void => void held.context?.close().catch(() => undefined);
    ctx.signal.addEventListener('abort', closeContext, { once: true });
    try {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      browser = await this.host!.getForPage();
      const prepared = (await this.takeSpare(browser, options)) ?? (await this.prepare(browser, options));
      const { proxy, context, page, interceptor, snapshots, settle } = prepared;
      held.proxy = proxy;
      held.context = context;
      held.contextClosed = prepared.contextClosed;
      if (ctx.signal.aborted) throw ctx.signal.reason;
      page.once('crash', () => {
        crashed = true;
        closeContext();
      });
      // A spare only while captures come close together (see spareContexts): this one starts
      // within the window of the last capture's start or answer (sequential scrapes whose
      // renders take longer than the window still come close together), or beside others.
      const now = performance.now();
      const busy = now - this.lastCaptureAt < this.settings.spareBusyWindowMs || this.slots.activeCount > 1 || this.slots.queuedCount > 0;
      this.lastCaptureAt = now;
      held.refillSpare = busy && ctx.refillsSpare !== false;
      const result = await new CaptureRun(page, proxy, url, options, this.settings, { interceptor, snapshots, settle }, ctx.served).run();
      this.counts.succeeded++;
      return result;
    } catch (err) {
      this.counts.failed++;
      const error = this.explain(err, ctx, browser, crashed);
      this.opts.logger.debug({ url, code: (error as TrawlError).code, err: (error as Error).message }, 'capture failed');
      throw error;
    } finally {
      ctx.signal.removeEventListener('abort', closeContext);
    }
  }

  /** A fresh proxy, context and page for these options (resource blocking included). */
  private async prepare(browser: Browser, options: ResolvedScrapeOptions): Promise<Prepared> {
    const proxy = await SsrfProxy.start(this.proxyOptions());
    this.counts.proxies++;
    let context: BrowserContext | undefined;
    try {
      const { device: _device, ...contextEmulation } = resolveEmulation(options, browser.version());
      context = await browser.newContext({
        ...contextEmulation,
        proxy: { server: proxy.url },
        extraHTTPHeaders: options.headers,
        acceptDownloads: false,
        serviceWorkers: 'block',
        ignoreHTTPSErrors: this.settings.ignoreHttpsErrors,
      });
      this.counts.contexts++;
      const made = context;
      const contextClosed = new Promise((resolve) => made.once('close', resolve));
      const page = await made.newPage();
      this.counts.pages++;
      page.once('close', () => this.counts.pages--);
      const interceptor = await PageInterceptor.install(made, page, proxy, skippedResourceTypes(options));
      const snapshots = await DomSnapshots.install(page);
      const settle = await SettleWatch.install(page, { timerMaxMs: this.settings.settleTimerMaxMs, chainMax: this.settings.settleChainMax });
      return { browser, proxy, context: made, contextClosed, page, interceptor, snapshots, settle };
    } catch (err) {
      await this.dispose({ proxy, ...(context ? { context } : {}), contextClosed: Promise.resolve() });
      throw err;
    }
  }

  /** The spare, when these options need nothing it lacks and it is alive on this browser. */
  private async takeSpare(browser: Browser, options: ResolvedScrapeOptions): Promise<Prepared | undefined> {
    if (!this.spare || !fitsSpare(options)) return undefined;
    // Taken synchronously: two captures starting together must never get the same spare.
    const pending = this.spare;
    this.spare = undefined;
    const spare = await pending.catch(() => undefined);
    if (!spare) return undefined;
    if (spare.browser === browser && browser.isConnected() && !spare.page.isClosed()) return spare;
    this.track(this.dispose(spare));
    return undefined;
  }

  /** Prepares the next spare in the background (a failure only means no spare). */
  private refillSpare(): void {
    if (this.settings.spareContexts === 0 || this.spare || this.stopped || !this.host) return;
    const host = this.host;
    const spare = (async () => this.prepare(await host.get(), SPARE_OPTIONS))().catch((err) => {
      this.opts.logger.debug({ err: String(err) }, 'could not prepare a spare context');
      return undefined;
    });
    this.spare = spare;
    // Untaken for spareIdleMs: captures stopped coming close together; give its renderer back.
    setTimeout(() => {
      if (this.spare !== spare) return;
      this.spare = undefined;
      this.track(spare.then((s) => (s ? this.dispose(s) : undefined)));
    }, this.settings.spareIdleMs).unref();
  }

  /** After the last capture, Chromium is closed once the pool has been idle for browserIdleCloseMs. */
  private scheduleIdleClose(): void {
    const ms = this.settings.browserIdleCloseMs;
    if (ms <= 0 || this.stopped) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.closeIfIdle(), ms);
    this.idleTimer.unref();
  }

  private async closeIfIdle(): Promise<void> {
    if (this.stopped || !this.host || this.slots.activeCount > 0 || this.slots.queuedCount > 0 || this.running.size > 0) return;
    const spare = this.spare;
    this.spare = undefined;
    const host = this.host;
    // Released first (synchronously), so a capture arriving now launches a fresh browser.
    const released = host.release();
    const prepared = await spare?.catch(() => undefined);
    if (prepared) await this.dispose(prepared);
    await released;
  }

  private track(teardown: Promise<unknown>): void {
    this.teardowns.add(teardown);
    void teardown.finally(() => this.teardowns.delete(teardown));
  }

  /** Why the capture failed, as seen from outside the page: abort, crash, closed browser. */
  private explain(err: unknown, ctx: CaptureContext, browser: Browser | undefined, crashed: boolean): unknown {
    if (ctx.signal.aborted) return ctx.signal.reason;
    if (this.stopped) return new BrowserError('the page capturer stopped during the capture', { cause: err });
    if (crashed) return new BrowserError('the page crashed while rendering', { cause: err });
    if (browser && !browser.isConnected()) return new BrowserError('Chromium crashed or disconnected during the capture', { cause: err });
    if (isClosed(err)) return new BrowserError(`the page was closed during the capture: ${(err as Error).message.split('\n')[0]}`, { cause: err });
    return captureError(err, 'the capture');
  }

  private proxyOptions() {
    return {
      allowCidrs: this.opts.allowCidrs,
      ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
      connectTimeoutMs: this.settings.proxyConnectTimeoutMs,
      logger: this.opts.logger,
    };
  }
}

/** Whether a spare (made with default options) is exactly the context these options would get. */
function fitsSpare(options: ResolvedScrapeOptions): boolean {
  return Object.keys(options.headers).length === 0
    && JSON.stringify(resolveEmulation(options, '0')) === JSON.stringify(resolveEmulation(SPARE_OPTIONS, '0'))
    && skippedResourceTypes(options).join() === skippedResourceTypes(SPARE_OPTIONS).join();
}

/** Resource types not worth loading: they change neither the DOM nor (without a screenshot) any output. */
export function skippedResourceTypes(options: ResolvedScrapeOptions): string[] {
  const wantsPixels = options.screenshot !== undefined || options.actions.some((a) => a.type === 'screenshot');
  return wantsPixels ? ['Font', 'Media'] : ['Font', 'Media', 'Image'];
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
