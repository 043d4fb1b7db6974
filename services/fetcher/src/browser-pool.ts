// The browser side of the pool: one Chromium process, launched lazily and launched again
// after a crash or disconnect (only the captures running on the dead one fail), and a
// FIFO of page slots so at most `size` pages render at once.
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

interface Waiter {
  grant: () => void;
  fail: (err: unknown) => void;
}

/** A counting semaphore with a FIFO queue; a waiter leaves the queue when its signal aborts. */
export class Slots {
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(private readonly size: number) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`poolSize must be a positive integer, got ${size}`);
  }

  get activeCount(): number {
    return this.active;
  }
  get queuedCount(): number {
    return this.queue.length;
  }

  /** Resolves with a release function once a slot is free. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const release = once(() => {
        this.active--;
        this.next();
      });
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.active++;
          resolve(release);
        },
        fail: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = (): void => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.next();
    });
  }

  /** Fails every queued waiter (on stop). */
  rejectQueued(err: unknown): void {
    for (const waiter of this.queue.splice(0)) waiter.fail(err);
  }

  private next(): void {
    while (this.active < this.size && this.queue.length > 0) this.queue.shift()?.grant();
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
