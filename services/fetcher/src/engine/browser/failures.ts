// Turning what Playwright and Chromium throw into Trawl's error classes, and the page
// deadline every step of a capture draws its Playwright timeout from.
import {
  BrowserError, NetworkError, PageTimeoutError, SelectorNotFoundError, TrawlError,
} from '../../../../../shared/src/domain/errors.js';

/** One budget (options.timeoutMs) shared by navigation, waitFor and actions. */
export class Deadline {
  private readonly at: number;
  constructor(readonly timeoutMs: number, private readonly now: () => number = () => performance.now()) {
    this.at = now() + timeoutMs;
  }
  /** Milliseconds left, at least 1: Playwright reads a timeout of 0 as "no timeout". */
  remainingMs(): number {
    return Math.max(1, Math.floor(this.at - this.now()));
  }
  get expired(): boolean {
    return this.now() >= this.at;
  }
}

/**
 * Playwright's TimeoutError, told by its name: importing playwright-core for the class
 * would load it (tens of MB of heap) in a fetcher that may never need a browser.
 */
export function isTimeout(err: unknown): boolean {
  return err instanceof Error && err.name === 'TimeoutError';
}

/** The page, its context or the whole browser went away under us. */
export function isClosed(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return /Target page, context or browser has been closed|Browser has been closed|Target closed|browser has disconnected|Page crashed|has been closed/i.test(message);
}

/** First line of a Playwright message, without its "page.goto: " prefix and call log. */
export function shortMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return (message.split('\n')[0] ?? message).replace(/^[a-zA-Z]+\.[a-zA-Z]+: /, '').trim();
}

/**
 * Maps a failed main-document navigation that the proxy did not explain (the proxy's own
 * typed failure is preferred by the caller) to a Trawl error.
 */
export function navigationError(err: unknown, url: string, timeoutMs: number): TrawlError {
  if (err instanceof TrawlError) return err;
  if (isTimeout(err)) return new PageTimeoutError(`${url} did not load within ${timeoutMs} ms`, { cause: err });
  if (isClosed(err)) return new BrowserError(`the browser closed during navigation: ${shortMessage(err)}`, { cause: err });
  const text = shortMessage(err);
  const code = /net::(ERR_[A-Z_]+)/.exec(text)?.[1];
  switch (code) {
    case 'ERR_NAME_NOT_RESOLVED':
    case 'ERR_NAME_RESOLUTION_FAILED':
      return new NetworkError(`could not resolve the host of ${url}`, false, { cause: err });
    case 'ERR_CONNECTION_REFUSED':
      return new NetworkError(`connection refused: ${url}`, false, { cause: err });
    case 'ERR_TIMED_OUT':
    case 'ERR_CONNECTION_TIMED_OUT':
      return new PageTimeoutError(`${url} did not respond within ${timeoutMs} ms`, { cause: err });
    case 'ERR_TOO_MANY_REDIRECTS':
    case 'ERR_UNSAFE_PORT':
    case 'ERR_INVALID_REDIRECT':
    case 'ERR_UNSAFE_REDIRECT':
    case 'ERR_INVALID_URL':
    case 'ERR_BLOCKED_BY_RESPONSE':
      return new NetworkError(`${url} cannot be loaded: ${code}`, false, { cause: err });
    default:
      if (code?.startsWith('ERR_CERT_') || code?.startsWith('ERR_SSL_')) {
        return new NetworkError(`TLS failure loading ${url}: ${code}`, false, { cause: err });
      }
      // Resets, empty responses, tunnel failures without a proxy record: may pass next time.
      return new NetworkError(`loading ${url} failed: ${text}`, true, { cause: err });
  }
}

/**
 * For steps that wait for a CSS selector: a timeout means the selector never matched
 * (SELECTOR_NOT_FOUND); a malformed selector is reported the same way, naming it.
 */
export function selectorError(err: unknown, what: string, selector: string, waitedMs: number): TrawlError {
  if (err instanceof TrawlError) return err;
  if (isClosed(err)) return new BrowserError(`the browser closed during ${what}: ${shortMessage(err)}`, { cause: err });
  if (isTimeout(err)) return new SelectorNotFoundError(`${what}: selector '${selector}' not found within ${waitedMs} ms`, { cause: err });
  return new SelectorNotFoundError(`${what}: selector '${selector}' cannot be used: ${shortMessage(err)}`, { cause: err });
}

/** Anything else thrown in a capture. Unknown failures are the browser's (retryable). */
export function captureError(err: unknown, what: string): TrawlError {
  if (err instanceof TrawlError) return err;
  if (isTimeout(err)) return new PageTimeoutError(`${what} did not finish before the page timeout`, { cause: err });
  return new BrowserError(`${what} failed: ${shortMessage(err)}`, { cause: err });
}
