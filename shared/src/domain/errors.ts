// Errors decide outcomes. Every failure in Trawl is one of five classes (retryable,
// non-retryable, rate-limited, illegal state, validation), and each carries the API error
// code users see. Two functions turn them into behaviour: `ackDecision` (what a JetStream
// consumer does with the message) and, in the gateway, the RFC 7807 error handler.

/**
 * Every error code, one row each: the HTTP status and problem title the API answers with,
 * what a consumer does with a message that failed with it (`nak`: redeliver, the same work
 * may succeed later; `term`: record the failure and stop), and the class thrown for it
 * where the code has a plain one (the classes below are built from these rows).
 */
export const ERROR_CODES = {
  UNAUTHORIZED: { status: 401, title: 'Unauthorized', delivery: 'term', className: 'UnauthorizedError' },
  INVALID_URL: { status: 400, title: 'Invalid URL', delivery: 'term' },
  URL_NOT_ALLOWED: { status: 400, title: 'URL not allowed', delivery: 'term', className: 'UrlNotAllowedError' },
  // The timeout the user set: the same page takes as long next time.
  PAGE_TIMEOUT: { status: 504, title: 'Page timeout', delivery: 'term', className: 'PageTimeoutError' },
  SELECTOR_NOT_FOUND: { status: 400, title: 'Selector not found', delivery: 'term', className: 'SelectorNotFoundError' },
  // A crashed browser or page: transient.
  BROWSER_ERROR: { status: 500, title: 'Browser error', delivery: 'nak', className: 'BrowserError' },
  // DNS failures and refused connections are final; resets may be retried (per instance).
  NETWORK_ERROR: { status: 500, title: 'Network error', delivery: 'term' },
  RATE_LIMITED: { status: 429, title: 'Too many requests', delivery: 'nak' },
  QUOTA_EXCEEDED: { status: 429, title: 'Quota exceeded', delivery: 'nak' },
  // Not in the spec's table; decided in docs/api.md.
  VALIDATION_ERROR: { status: 400, title: 'Invalid request', delivery: 'term' },
  NOT_FOUND: { status: 404, title: 'Not found', delivery: 'term', className: 'NotFoundError' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed', delivery: 'term' },
  JOB_ALREADY_FINISHED: { status: 409, title: 'Job already finished', delivery: 'term' },
  ROTATION_CONFLICT: { status: 409, title: 'Rotation conflict', delivery: 'term' },
  // Documents (PDF, DOCX...): decided in docs/api.md "Documents". The same bytes fail the
  // same way next time: over DOCUMENT_MAX_BYTES, password-protected, corrupt, past
  // DOCUMENT_PARSE_TIMEOUT_MS, or over a parse budget (DOCUMENT_LIMITS in document-type.ts)
  // or fatal to the parse thread.
  DOCUMENT_TOO_LARGE: { status: 413, title: 'Document too large', delivery: 'term', className: 'DocumentTooLargeError' },
  DOCUMENT_ENCRYPTED: { status: 422, title: 'Document encrypted', delivery: 'term', className: 'DocumentEncryptedError' },
  DOCUMENT_UNREADABLE: { status: 422, title: 'Document unreadable', delivery: 'term', className: 'DocumentUnreadableError' },
  DOCUMENT_PARSE_TIMEOUT: { status: 504, title: 'Document parse timeout', delivery: 'term', className: 'DocumentParseTimeoutError' },
  DOCUMENT_TOO_COMPLEX: { status: 422, title: 'Document too complex', delivery: 'term', className: 'DocumentTooComplexError' },
  // The transform's own bounds (docs/api.md "Transform budgets"): past TRANSFORM_TIMEOUT_MS
  // (the thread is terminated) or fatal to the thread (out of memory). The same page would
  // stall or kill the next thread the same way.
  TRANSFORM_TIMEOUT: { status: 504, title: 'Transform timeout', delivery: 'term', className: 'TransformTimeoutError' },
  PAGE_TOO_COMPLEX: { status: 422, title: 'Page too complex', delivery: 'term', className: 'PageTooComplexError' },
  // A page that is not the content asked for (docs/api.md "Page outcome").
  PAGE_CHALLENGE: { status: 502, title: 'Page is a bot challenge', delivery: 'term' },
  PAGE_BLOCKED: { status: 502, title: 'Page is a block page', delivery: 'term' },
  PAGE_EMPTY: { status: 502, title: 'Page is empty', delivery: 'term' },
  // The web console's (docs/console.md). Forbidden: signed in, but not allowed (a missing
  // CSRF token, a member on an admin page).
  FORBIDDEN: { status: 403, title: 'Forbidden', delivery: 'term', className: 'ForbiddenError' },
  CONFLICT: { status: 409, title: 'Conflict', delivery: 'term' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large', delivery: 'term' },
  URI_TOO_LONG: { status: 414, title: 'URI too long', delivery: 'term' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type', delivery: 'term' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request headers too large', delivery: 'term' },
  // Infrastructure is down (NATS, store): the request may be repeated.
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable', delivery: 'nak', className: 'ServiceUnavailableError' },
  // A bug or unclassified failure: retried like a transient failure, then given up.
  INTERNAL_ERROR: { status: 500, title: 'Internal error', delivery: 'nak', className: 'InternalError' },
} as const satisfies Record<string, { status: number; title: string; delivery: 'nak' | 'term'; className?: string }>;

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

// ---- classes with a constructor of their own ----------------------------------------

export class InvalidUrlError extends ValidationError {
  constructor(message: string, field = 'url') {
    super(message, field, 'INVALID_URL');
  }
}
export class NetworkError extends TrawlError {
  readonly code = 'NETWORK_ERROR';
  /** DNS failures and refused connections are final; resets may be retried. */
  constructor(message: string, readonly retryable = false, options?: { cause?: unknown }) {
    super(message, options);
  }
}

// ---- the classes built from the table -------------------------------------------------

type ClassCode = { [C in ErrorCode]: (typeof ERROR_CODES)[C] extends { className: string } ? C : never }[ErrorCode];
type ClassName<C extends ClassCode> = (typeof ERROR_CODES)[C]['className'];
type CodeError<C extends ErrorCode> = TrawlError & { readonly code: C };
type CodeErrorClass<C extends ErrorCode> = new (message: string, options?: { cause?: unknown }) => CodeError<C>;

function buildErrorClasses(): { [C in ClassCode as ClassName<C>]: CodeErrorClass<C> } {
  const classes: Record<string, unknown> = {};
  for (const [code, row] of Object.entries(ERROR_CODES)) {
    if (!('className' in row)) continue;
    const Base = row.delivery === 'nak' ? RetryableError : NonRetryableError;
    const built = class extends Base {
      readonly code = code as ErrorCode;
    };
    // Named as if written by hand: TrawlError's constructor takes `name` from it, and the
    // transform pool rebuilds errors that cross a thread by name.
    Object.defineProperty(built, 'name', { value: row.className });
    classes[row.className] = built;
  }
  return classes as { [C in ClassCode as ClassName<C>]: CodeErrorClass<C> };
}

export const {
  UrlNotAllowedError, PageTimeoutError, SelectorNotFoundError, BrowserError, NotFoundError, UnauthorizedError, ForbiddenError,
  DocumentTooLargeError, DocumentEncryptedError, DocumentUnreadableError, DocumentParseTimeoutError, DocumentTooComplexError,
  TransformTimeoutError, PageTooComplexError, ServiceUnavailableError, InternalError,
} = buildErrorClasses();
export type UrlNotAllowedError = CodeError<'URL_NOT_ALLOWED'>;
export type PageTimeoutError = CodeError<'PAGE_TIMEOUT'>;
export type SelectorNotFoundError = CodeError<'SELECTOR_NOT_FOUND'>;
export type BrowserError = CodeError<'BROWSER_ERROR'>;
export type NotFoundError = CodeError<'NOT_FOUND'>;
export type UnauthorizedError = CodeError<'UNAUTHORIZED'>;
export type ForbiddenError = CodeError<'FORBIDDEN'>;
export type DocumentTooLargeError = CodeError<'DOCUMENT_TOO_LARGE'>;
export type DocumentEncryptedError = CodeError<'DOCUMENT_ENCRYPTED'>;
export type DocumentUnreadableError = CodeError<'DOCUMENT_UNREADABLE'>;
export type DocumentParseTimeoutError = CodeError<'DOCUMENT_PARSE_TIMEOUT'>;
export type DocumentTooComplexError = CodeError<'DOCUMENT_TOO_COMPLEX'>;
export type TransformTimeoutError = CodeError<'TRANSFORM_TIMEOUT'>;
export type PageTooComplexError = CodeError<'PAGE_TOO_COMPLEX'>;
export type ServiceUnavailableError = CodeError<'SERVICE_UNAVAILABLE'>;
export type InternalError = CodeError<'INTERNAL_ERROR'>;

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
