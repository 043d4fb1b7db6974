// The browser side of the pool: one Chromium process, launched lazily and launched again
// after a crash or disconnect (only the captures running on the dead one fail). The page
// slots that bound how many pages render at once are in slots.ts.
//
// Chromium dies with its fetcher: Playwright starts it in a process group of its own, so
// a fetcher killed with SIGKILL (no chance to close it) would leave it running. On Linux
// Chromium is started through util-linux's `setpriv --pdeathsig KILL`, which asks the
// kernel to SIGKILL the browser the moment its parent (this process) dies, even when the
// browser is hung; its helpers (zygotes, renderers) exit when the browser's channel closes.
import type { Browser } from 'playwright-core';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BrowserError } from '../../../../../shared/src/domain/errors.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../../../../shared/src/infra/chromium.js';
import type { Logger } from '../../../../../shared/src/infra/logger.js';

export interface BrowserHostOptions {
  chromiumPath?: string;
  /** Browser-wide proxy. Every context gets its own too; this one catches anything else. */
  proxyServer: string;
  launchTimeoutMs: number;
  /**
   * A browser that has served this many pages is retired (0: never): the next pages get a
   * new one, and the old one closes once its last context has. Chromium's browser process
   * keeps caches and heap from every page it served (Crawlee's browser pool retires after
   * 100 pages for the same reason).
   */
  retireAfterPages?: number;
  logger: Logger;
}

/**
 * Features Playwright enables itself (its chromiumSwitches): Chromium keeps only the last
 * --enable-features, so ours repeats them.
 */
const PLAYWRIGHT_ENABLED_FEATURES = ['CDPScreenshotNewSurface', 'SkipListAccountsWithoutGaiaCookies'];

/**
 * Flags added to the shared CHROMIUM_ARGS. WebRTC can open UDP sockets to any address
 * (STUN/TURN) outside the HTTP proxy: only proxied TCP is allowed for it. The network
 * service and the GPU process (with the GPU off, only the software compositor) run as
 * threads of the browser process: two processes fewer, each with its own copy of
 * Chromium's base memory, for a service that keeps one browser (docs/benchmarks.md,
 * issue 21 ninth session). A crash of either then ends the browser, which the pool
 * launches again. The zygotes stay: without them every renderer starts from exec.
 */
export const FETCHER_CHROMIUM_ARGS = [
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  `--enable-features=${[...PLAYWRIGHT_ENABLED_FEATURES, 'NetworkServiceInProcess2'].join(',')}`,
  '--in-process-gpu',
];

export class BrowserHost {
  private browser: Browser | undefined;
  private launching: Promise<Browser> | undefined;
  private closed = false;
  /** Pages handed out on the current browser (getForPage). */
  private pagesOnCurrent = 0;
  /** Retired browsers still holding contexts of running captures. */
  private readonly retired = new Set<Browser>();
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

  /** A browser for one page: get(), retiring the current browser first once it has served retireAfterPages. */
  async getForPage(): Promise<Browser> {
    const limit = this.opts.retireAfterPages ?? 0;
    const browser = this.browser;
    if (limit > 0 && browser?.isConnected() && this.pagesOnCurrent >= limit && !this.launching) {
      this.browser = undefined;
      this.retired.add(browser);
      this.opts.logger.info({ launches: this.launches, pages: this.pagesOnCurrent }, 'Chromium retired; a new one serves the next pages');
      void this.closeRetired();
    }
    const got = await this.get();
    this.pagesOnCurrent++;
    return got;
  }

  /** Closes the retired browsers whose last context has closed (called after each capture's teardown). */
  async closeRetired(): Promise<void> {
    for (const browser of [...this.retired]) {
      if (browser.isConnected() && browser.contexts().length > 0) continue;
      this.retired.delete(browser);
      await browser.close().catch(() => undefined);
    }
  }

  current(): Browser | undefined {
    return this.browser?.isConnected() ? this.browser : undefined;
  }

  private async launch(): Promise<Browser> {
    const started = performance.now();
    let browser: Browser;
    try {
      // Imported on the first launch: a fetcher that only serves HTTP-engine pages never
      // loads Playwright (its memory: docs/benchmarks.md "Third session").
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: diesWithParent(resolveChromiumPath(this.opts.chromiumPath), this.opts.logger),
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
    this.pagesOnCurrent = 0;
    browser.on('disconnected', () => {
      if (this.browser !== browser) return; // released on purpose, or already replaced
      this.browser = undefined;
      if (!this.closed) this.opts.logger.warn({ launches: this.launches }, 'Chromium disconnected; the next capture launches a new one');
    });
    this.opts.logger.info({ version: browser.version(), launchMs: Math.round(performance.now() - started) }, 'Chromium launched');
    return browser;
  }

  /**
   * Closes the running browser to give its memory back; the next get() launches a new one.
   * Only for a pool with no capture running (the caller checks).
   */
  async release(): Promise<void> {
    const browser = this.browser;
    if (!browser || this.launching) return;
    this.browser = undefined;
    this.opts.logger.info({ launches: this.launches }, 'Chromium closed while idle; the next capture launches it again');
    await browser.close().catch(() => undefined);
    await this.closeRetired();
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.launching;
    const browser = this.browser;
    this.browser = undefined;
    await browser?.close().catch(() => undefined);
    await Promise.all([...this.retired].map((b) => b.close().catch(() => undefined)));
    this.retired.clear();
    await pending?.then((b) => b.close(), () => undefined).catch(() => undefined);
  }
}

/** util-linux's setpriv, which can set the parent-death signal before exec. */
const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];

/**
 * An executable that runs `executable` with SIGKILL as its parent-death signal: a small
 * shell script (Playwright spawns one executable with its own arguments, so the setpriv
 * prefix cannot go in `args`) that execs setpriv, which execs Chromium, keeping the pid
 * Playwright knows. Written once per binary under the temp dir; without setpriv (not
 * Linux, or util-linux missing) the binary itself is returned and a warning logged.
 * `executable` must be the real binary: a wrapper script that forks instead of exec'ing
 * (Debian's /usr/bin/chromium-headless-shell) would take the signal in Chromium's place.
 */
export function diesWithParent(executable: string, logger: Logger): string {
  const setpriv = process.platform === 'linux' ? SETPRIV_CANDIDATES.find((p) => fs.existsSync(p)) : undefined;
  if (!setpriv) {
    warnOnce(logger, 'setpriv not found: Chromium may outlive a fetcher killed with SIGKILL (install util-linux)');
    return executable;
  }
  if (isScript(executable)) {
    warnOnce(logger, `${executable} is a script: the parent-death signal reaches it, not Chromium; point CHROMIUM_PATH at the binary`);
  }
  const script = `#!/bin/sh\nexec ${shellQuote(setpriv)} --pdeathsig KILL -- ${shellQuote(executable)} "$@"\n`;
  const hash = crypto.createHash('sha256').update(script).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `trawl-chromium-${process.getuid?.() ?? 'user'}`);
  const wrapper = path.join(dir, `chromium-${hash}.sh`);
  try {
    if (fs.readFileSync(wrapper, 'utf8') === script) return wrapper;
  } catch {
    // not written yet
  }
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Written aside and renamed: another fetcher starting now never runs half a script.
    const partial = `${wrapper}.${process.pid}.tmp`;
    fs.writeFileSync(partial, script, { mode: 0o755 });
    fs.renameSync(partial, wrapper);
    return wrapper;
  } catch (err) {
    warnOnce(logger, `could not write the Chromium wrapper (${(err as Error).message}): Chromium may outlive a fetcher killed with SIGKILL`);
    return executable;
  }
}

function isScript(file: string): boolean {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const head = Buffer.alloc(2);
      fs.readSync(fd, head, 0, 2, 0);
      return head.toString('latin1') === '#!';
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return false;
  }
}

let warned = false;
function warnOnce(logger: Logger, message: string): void {
  if (!warned) logger.warn(message);
  warned = true;
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
