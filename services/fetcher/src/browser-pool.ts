// The browser side of the pool: one Chromium process, launched lazily and launched again
// after a crash or disconnect (only the captures running on the dead one fail). The page
// slots that bound how many pages render at once are in slots.ts.
import { chromium, type Browser } from 'playwright-core';
import { BrowserError } from '../../../shared/src/errors.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../../shared/src/chromium.js';
import type { Logger } from '../../../shared/src/logger.js';

export interface BrowserHostOptions {
  chromiumPath?: string;
  /** Browser-wide proxy. Every context gets its own too; this one catches anything else. */
  proxyServer: string;
  launchTimeoutMs: number;
  logger: Logger;
}

/**
 * Flags added to the shared CHROMIUM_ARGS. WebRTC can open UDP sockets to any address
 * (STUN/TURN) outside the HTTP proxy: only proxied TCP is allowed for it.
 */
export const FETCHER_CHROMIUM_ARGS = ['--force-webrtc-ip-handling-policy=disable_non_proxied_udp'];

export class BrowserHost {
  private browser: Browser | undefined;
  private launching: Promise<Browser> | undefined;
  private closed = false;
  launches = 0;

  constructor(private readonly opts: BrowserHostOptions) {}

  /** A connected browser, launching one if there is none (one launch at a time). */
  async get(): Promise<Browser> {
    if (this.closed) throw new BrowserError('the browser pool is stopped');
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  current(): Browser | undefined {
    return this.browser?.isConnected() ? this.browser : undefined;
  }

  private async launch(): Promise<Browser> {
    const started = performance.now();
    let browser: Browser;
    try {
      browser = await chromium.launch({
        executablePath: resolveChromiumPath(this.opts.chromiumPath),
        args: [...CHROMIUM_ARGS, ...FETCHER_CHROMIUM_ARGS],
        proxy: { server: this.opts.proxyServer },
        timeout: this.opts.launchTimeoutMs,
        // The service owns shutdown: it stops pulling, settles in-flight pages, then closes us.
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    } catch (err) {
      throw new BrowserError(`could not launch Chromium: ${(err as Error).message.split('\n')[0]}`, { cause: err });
    }
    if (this.closed) {
      await browser.close().catch(() => undefined);
      throw new BrowserError('the browser pool is stopped');
    }
    this.launches++;
    this.browser = browser;
    browser.on('disconnected', () => {
      if (this.browser === browser) this.browser = undefined;
      if (!this.closed) this.opts.logger.warn({ launches: this.launches }, 'Chromium disconnected; the next capture launches a new one');
    });
    this.opts.logger.info({ version: browser.version(), launchMs: Math.round(performance.now() - started) }, 'Chromium launched');
    return browser;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.launching;
    const browser = this.browser;
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
    await pending?.then((b) => b.close(), () => undefined).catch(() => undefined);
  }
}
