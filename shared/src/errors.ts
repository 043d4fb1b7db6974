// Errors decide outcomes. Every failure in Trawl is one of five classes (retryable,
// non-retryable, rate-limited, illegal state, validation), and each carries the API error
// code users see. Two functions turn them into behaviour: `ackDecision` (what a JetStream
// consumer does with the message) and, in the gateway, the RFC 7807 error handler.

/** Codes of the spec's error table plus the ones the spec leaves to us (docs/api.md). */
export const ERROR_CODES = {
  UNAUTHORIZED: { status: 401, title: 'Unauthorized' },
  INVALID_URL: { status: 400, title: 'Invalid URL' },
  URL_NOT_ALLOWED: { status: 400, title: 'URL not allowed' },
  PAGE_TIMEOUT: { status: 504, title: 'Page timeout' },
  SELECTOR_NOT_FOUND: { status: 400, title: 'Selector not found' },
  BROWSER_ERROR: { status: 500, title: 'Browser error' },
  NETWORK_ERROR: { status: 500, title: 'Network error' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  QUOTA_EXCEEDED: { status: 429, title: 'Quota exceeded' },
  // Not in the spec's table; decided in docs/api.md.
  VALIDATION_ERROR: { status: 400, title: 'Invalid request' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  JOB_ALREADY_FINISHED: { status: 409, title: 'Job already finished' },
  ROTATION_CONFLICT: { status: 409, title: 'Rotation conflict' },
  // Documents (PDF, DOCX...): decided in docs/api.md "Documents".
  DOCUMENT_TOO_LARGE: { status: 413, title: 'Document too large' },
  DOCUMENT_ENCRYPTED: { status: 422, title: 'Document encrypted' },
  DOCUMENT_UNREADABLE: { status: 422, title: 'Document unreadable' },
  DOCUMENT_PARSE_TIMEOUT: { status: 504, title: 'Document parse timeout' },
  DOCUMENT_TOO_COMPLEX: { status: 422, title: 'Document too complex' },
  // The transform's own bounds: decided in docs/api.md "Transform budgets".
  TRANSFORM_TIMEOUT: { status: 504, title: 'Transform timeout' },
  PAGE_TOO_COMPLEX: { status: 422, title: 'Page too complex' },
  // A page that is not the content asked for (docs/api.md "Page outcome").
  PAGE_CHALLENGE: { status: 502, title: 'Page is a bot challenge' },
  PAGE_BLOCKED: { status: 502, title: 'Page is a block page' },
  PAGE_EMPTY: { status: 502, title: 'Page is empty' },
  // The web console's (docs/console.md).
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  CONFLICT: { status: 409, title: 'Conflict' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  URI_TOO_LONG: { status: 414, title: 'URI too long' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
  INTERNAL_ERROR: { status: 500, title: 'Internal error' },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes a failed scrape page may carry in its `error.code`. */
export const PAGE_ERROR_CODES = [
  'INVALID_URL', 'URL_NOT_ALLOWED', 'PAGE_TIMEOUT', 'SELECTOR_NOT_FOUND', 'BROWSER_ERROR', 'NETWORK_ERROR',
  'DOCUMENT_TOO_LARGE', 'DOCUMENT_ENCRYPTED', 'DOCUMENT_UNREADABLE', 'DOCUMENT_PARSE_TIMEOUT', 'DOCUMENT_TOO_COMPLEX',
  'TRANSFORM_TIMEOUT', 'PAGE_TOO_COMPLEX', 'PAGE_CHALLENGE', 'PAGE_BLOCKED', 'PAGE_EMPTY',
] as const satisfies readonly ErrorCode[];
export type PageErrorCode = (typeof PAGE_ERROR_CODES)[number];

/** The code a failed page reports: its own when it is a page code, else BROWSER_ERROR. */
export function toPageErrorCode(error: { code: string }): PageErrorCode {
  return (PAGE_ERROR_CODES as readonly string[]).includes(error.code) ? (error.code as PageErrorCode) : 'BROWSER_ERROR';
}

export abstract class TrawlError extends Error {
  abstract readonly code: ErrorCode;
  /** Whether doing the same work again may succeed. */
  abstract readonly retryable: boolean;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
  get status(): number {
    return ERROR_CODES[this.code].status;
  }
}

// ---- the five classes -------------------------------------------------------------

/** A transient failure: the same work may succeed later (crashed browser, reset socket). */
export abstract class RetryableError extends TrawlError {
  readonly retryable = true;
}

/** Doing it again gives the same answer (timeout the user set, missing selector, SSRF). */
export abstract class NonRetryableError extends TrawlError {
  readonly retryable = false;
}

/** Slow down: retry after `retryAfterMs`. */
export class RateLimitedError extends TrawlError {
  readonly retryable = true;
  readonly code: 'RATE_LIMITED' | 'QUOTA_EXCEEDED';
  constructor(message: string, readonly retryAfterMs: number, readonly limit = 0, readonly resetAtMs = 0, code: 'RATE_LIMITED' | 'QUOTA_EXCEEDED' = 'RATE_LIMITED') {
    super(message);
    this.code = code;
  }
}

/** The command does not fit the aggregate's state (cancel a finished crawl). */
export class IllegalStateError extends TrawlError {
  readonly retryable = false;
  readonly code: ErrorCode;
  constructor(message: string, code: ErrorCode = 'JOB_ALREADY_FINISHED') {
    super(message);
    this.code = code;
  }
}

/** Bad input: never retried, answered 400 with the field named. */
export class ValidationError extends TrawlError {
  readonly retryable = false;
  readonly code: ErrorCode;
  constructor(message: string, readonly field?: string, code: ErrorCode = 'VALIDATION_ERROR') {
    super(message);
    this.code = code;
  }
}

// ---- concrete codes ---------------------------------------------------------------

export class InvalidUrlError extends ValidationError {
  constructor(message: string, field = 'url') {
    super(message, field, 'INVALID_URL');
  }
}
export class UrlNotAllowedError extends NonRetryableError {
  readonly code = 'URL_NOT_ALLOWED';
}
export class PageTimeoutError extends NonRetryableError {
  readonly code = 'PAGE_TIMEOUT';
}
export class SelectorNotFoundError extends NonRetryableError {
  readonly code = 'SELECTOR_NOT_FOUND';
}
export class BrowserError extends RetryableError {
  readonly code = 'BROWSER_ERROR';
}
export class NetworkError extends TrawlError {
  readonly code = 'NETWORK_ERROR';
  /** DNS failures and refused connections are final; resets may be retried. */
  constructor(message: string, readonly retryable = false, options?: { cause?: unknown }) {
    super(message, options);
  }
}
export class NotFoundError extends NonRetryableError {
  readonly code = 'NOT_FOUND';
}
export class UnauthorizedError extends NonRetryableError {
  readonly code = 'UNAUTHORIZED';
}
/** Signed in, but not allowed (a missing CSRF token, a member on an admin page). */
export class ForbiddenError extends NonRetryableError {
  readonly code = 'FORBIDDEN';
}
/** A document over DOCUMENT_MAX_BYTES: the same bytes are as large next time. */
export class DocumentTooLargeError extends NonRetryableError {
  readonly code = 'DOCUMENT_TOO_LARGE';
}
/** A password-protected document: no retry opens it. */
export class DocumentEncryptedError extends NonRetryableError {
  readonly code = 'DOCUMENT_ENCRYPTED';
}
/** A corrupt or unsupported document: parsing it again fails the same way. */
export class DocumentUnreadableError extends NonRetryableError {
  readonly code = 'DOCUMENT_UNREADABLE';
}
/** A parse that ran past DOCUMENT_PARSE_TIMEOUT_MS (its worker thread was terminated). */
export class DocumentParseTimeoutError extends NonRetryableError {
  readonly code = 'DOCUMENT_PARSE_TIMEOUT';
}
/**
 * A document too heavy to parse: over its parse budget (shared/src/document-type.ts
 * DOCUMENT_LIMITS: bytes inflated, text, ZIP entries, XML elements and depth, DTDs), or one
 * whose parse killed its worker thread (past the thread's V8 heap limit, or a crash). The
 * same bytes are as heavy next time, so it is never redelivered.
 */
export class DocumentTooComplexError extends NonRetryableError {
  readonly code = 'DOCUMENT_TOO_COMPLEX';
}
/**
 * A web page's transform that ran past TRANSFORM_TIMEOUT_MS: its worker thread was
 * terminated (the only way to stop synchronous work) and replaced. The same page and
 * options would stall the next thread the same way, so it is never redelivered.
 */
export class TransformTimeoutError extends NonRetryableError {
  readonly code = 'TRANSFORM_TIMEOUT';
}
/** A web page whose transform killed its worker thread (out of memory): never redelivered. */
export class PageTooComplexError extends NonRetryableError {
  readonly code = 'PAGE_TOO_COMPLEX';
}
/** Infrastructure is down (NATS, store): the request may be repeated. */
export class ServiceUnavailableError extends RetryableError {
  readonly code = 'SERVICE_UNAVAILABLE';
}
/** A bug or unclassified failure. Retried like a transient failure, then given up. */
export class InternalError extends RetryableError {
  readonly code = 'INTERNAL_ERROR';
}

/** Anything thrown becomes a TrawlError; unknown errors are internal and retryable. */
export function toTrawlError(err: unknown): TrawlError {
  if (err instanceof TrawlError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new InternalError(message, { cause: err });
}

// ---- consumer outcomes ------------------------------------------------------------

export type AckDecision =
  | { kind: 'ack' }
  | { kind: 'nak'; delayMs: number }
  | { kind: 'giveUp'; error: TrawlError };

export interface DeliveryInfo {
  /** 1 on the first delivery. */
  deliveryCount: number;
  maxDeliver: number;
}

/** Backoff between redeliveries of a failed message: 1 s, 2 s, 4 s … capped at 30 s. */
export function redeliveryDelayMs(deliveryCount: number): number {
  return Math.min(30_000, 1000 * 2 ** Math.max(0, deliveryCount - 1));
}

/**
 * The one place that maps an error to what a consumer does with its message.
 * `giveUp` means: record the failure as an event (so the job ends FAILED, never stuck)
 * and then terminate the message so it is not delivered again.
 */
export function ackDecision(err: unknown, delivery: DeliveryInfo): AckDecision {
  const error = toTrawlError(err);
  const lastTry = delivery.deliveryCount >= delivery.maxDeliver;
  if (error instanceof RateLimitedError && !lastTry) return { kind: 'nak', delayMs: error.retryAfterMs };
  if (error.retryable && !lastTry) return { kind: 'nak', delayMs: redeliveryDelayMs(delivery.deliveryCount) };
  return { kind: 'giveUp', error };
}
