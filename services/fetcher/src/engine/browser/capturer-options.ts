// The page capturer's options, their defaults (written once) and its statistics.
import type { Logger } from '../../../../../shared/src/infra/logger.js';
import type { CidrRange, Lookup } from '../../../../../shared/src/net/url-safety.js';
import { DEFAULT_BROWSER_IDLE_CLOSE_MS, DEFAULT_BROWSER_RETIRE_AFTER_PAGES } from '../../../../../shared/src/infra/config.js';

export interface PageCapturerOptions {
  chromiumPath?: string;
  /** SSRF_ALLOW_CIDRS: ranges exempt from the SSRF rules. */
  allowCidrs: CidrRange[];
  /** Pages rendering at once. */
  poolSize: number;
  /** Bulk (crawl, batch) pages of one host rendering at once (default: no bound but poolSize). */
  hostMaxInFlight?: number;
  logger: Logger;
  /** DNS used by the proxy (default: the system resolver). */
  lookup?: Lookup;
  loadWaitMaxMs?: number;
  /** After load, the page is settled once its DOM (and network) has been still this long, with nothing pending (settle-watch.ts)... */
  settleQuietMs?: number;
  /** ...but no longer than this. */
  settleMaxMs?: number;
  /** Timers of at most this delay are waited for. */
  settleTimerMaxMs?: number;
  /** Callbacks scheduled by callbacks are waited for this many levels deep. */
  settleChainMax?: number;
  screenshotTimeoutMs?: number;
  proxyConnectTimeoutMs?: number;
  launchTimeoutMs?: number;
  /** Accept invalid TLS certificates (content extraction, not a trust decision). */
  ignoreHttpsErrors?: boolean;
  /**
   * Keep one fresh, unused context (with its own proxy and page) ready for the next job
   * with default emulation, so it does not wait for context creation. 0 turns it off.
   * A spare costs a renderer process: it is made only while captures come
   * close together (`spareBusyWindowMs`) and closed when unused for `spareIdleMs`, so an
   * `auto` crawl that renders one page in 25 does not hold one.
   */
  spareContexts?: 0 | 1;
  /** A capture starting within this long of the previous one's start or answer (or beside others) refills the spare once it has answered. */
  spareBusyWindowMs?: number;
  /** An untaken spare is closed after this long. */
  spareIdleMs?: number;
  /**
   * Close Chromium after this long without a capture (0: never); the next capture launches
   * it again (about 0.3 s). A fetcher serving HTTP-engine pages gives the memory back.
   */
  browserIdleCloseMs?: number;
  /** Retire a browser after this many pages (0: never); see BrowserHostOptions.retireAfterPages. */
  browserRetireAfterPages?: number;
  /**
   * Launch Chromium in start() (a missing browser fails at once) or only when the first
   * capture needs it (a fetcher serving HTTP-engine pages never holds a browser's memory).
   */
  launchAtStart?: boolean;
}

export const CAPTURER_DEFAULTS = {
  loadWaitMaxMs: 10_000,
  settleQuietMs: 100,
  settleMaxMs: 3_000,
  settleTimerMaxMs: 2_500,
  settleChainMax: 3,
  screenshotTimeoutMs: 15_000,
  proxyConnectTimeoutMs: 15_000,
  launchTimeoutMs: 30_000,
  ignoreHttpsErrors: true,
  spareContexts: 1,
  spareBusyWindowMs: 1_000,
  spareIdleMs: 5_000,
  browserIdleCloseMs: DEFAULT_BROWSER_IDLE_CLOSE_MS,
  browserRetireAfterPages: DEFAULT_BROWSER_RETIRE_AFTER_PAGES,
  launchAtStart: true,
} as const;

export interface CapturerStats {
  /** Captures holding a slot / waiting for one. */
  active: number;
  queued: number;
  /** Contexts and pages this capturer has open (its own bookkeeping)... */
  openContexts: number;
  openPages: number;
  /** ...and what Playwright reports for the current browser (should agree). */
  browserContexts: number;
  browserPages: number;
  openProxies: number;
  browserLaunches: number;
  captures: { started: number; succeeded: number; failed: number };
}
