// Typed errors: one class per kind of answer a caller handles differently. Every error
// carries the API's `code`, the HTTP `status`, the `requestId` to quote in a bug report and,
// where the server gave one, `retryAfter` in seconds.

export interface TrawlErrorFields {
  code: string;
  status?: number;
  requestId?: string;
  retryAfter?: number;
  detail?: string;
  cause?: unknown;
}

export class TrawlError extends Error {
  readonly code: string;
  readonly status: number | undefined;
  readonly requestId: string | undefined;
  readonly retryAfter: number | undefined;
  readonly detail: string | undefined;

  constructor(message: string, fields: TrawlErrorFields) {
    super(message, fields.cause === undefined ? undefined : { cause: fields.cause });
    this.name = new.target.name;
    this.code = fields.code;
    this.status = fields.status;
    this.requestId = fields.requestId;
    this.retryAfter = fields.retryAfter;
    this.detail = fields.detail;
  }
}

/** 401: the API key is missing, unknown or revoked. */
export class AuthenticationError extends TrawlError {}
/** 400 and the other 4xx refusals of a request as sent (validation, URL, body size, media type). */
export class InvalidRequestError extends TrawlError {}
/** 404: no such job (or another key's). */
export class NotFoundError extends TrawlError {}
/** 409: e.g. cancelling a job that already finished. */
export class ConflictError extends TrawlError {}
/** 429 RATE_LIMITED: requests per minute, concurrent jobs or waits; retried by the client first. */
export class RateLimitError extends TrawlError {}
/** 429 QUOTA_EXCEEDED: the month's pages are used up; `retryAfter` runs to the next month. */
export class QuotaExceededError extends TrawlError {}
/** 5xx: the server failed or is unavailable (503 is retried by the client first). */
export class ServerError extends TrawlError {}
/** The server could not be reached (DNS, refused, reset, request timeout). */
export class ConnectionError extends TrawlError {}
/** The client stopped waiting for a job (its `timeoutMs` passed); the job goes on. */
export class WaitTimeoutError extends TrawlError {}
/** A webhook's signature or timestamp did not verify. */
export class WebhookVerificationError extends TrawlError {}

/** Statuses of the job error codes (the spec's error table), for a job that ended FAILED. */
const JOB_ERROR_STATUS: Record<string, number> = {
  PAGE_TIMEOUT: 504, SELECTOR_NOT_FOUND: 400, BROWSER_ERROR: 500, NETWORK_ERROR: 500, INVALID_URL: 400, URL_NOT_ALLOWED: 400,
};

/** A job ended FAILED: `code` is the job's error code (PAGE_TIMEOUT…), `job` its last view. */
export class JobFailedError<J = unknown> extends TrawlError {
  readonly job: J;
  constructor(message: string, job: J, fields: { code?: string; requestId?: string }) {
    const code = fields.code ?? 'JOB_FAILED';
    super(message, { code, status: JOB_ERROR_STATUS[code], requestId: fields.requestId });
    this.job = job;
  }
}

interface Problem { code?: unknown; detail?: unknown; title?: unknown; requestId?: unknown }

/** The error for a non-2xx answer, from its RFC 7807 body (or whatever came instead). */
export function errorFromResponse(status: number, headers: Headers, body: unknown): TrawlError {
  const problem: Problem = typeof body === 'object' && body !== null ? body as Problem : {};
  const code = typeof problem.code === 'string' ? problem.code : `HTTP_${status}`;
  const detail = typeof problem.detail === 'string' ? problem.detail : typeof body === 'string' && body ? body.slice(0, 500) : undefined;
  const requestId = typeof problem.requestId === 'string' ? problem.requestId : headers.get('x-request-id') ?? undefined;
  const retryAfter = parseRetryAfter(headers.get('retry-after'));
  const title = typeof problem.title === 'string' ? problem.title : `HTTP ${status}`;
  const fields: TrawlErrorFields = { code, status, requestId, retryAfter, detail };
  const message = `${code}: ${detail ?? title}${requestId ? ` (request ${requestId})` : ''}`;
  if (status === 401) return new AuthenticationError(message, fields);
  if (status === 404) return new NotFoundError(message, fields);
  if (status === 409) return new ConflictError(message, fields);
  if (status === 429) return code === 'QUOTA_EXCEEDED' ? new QuotaExceededError(message, fields) : new RateLimitError(message, fields);
  if (status >= 500) return new ServerError(message, fields);
  return new InvalidRequestError(message, fields);
}

/** Retry-After as seconds: a number of seconds or an HTTP date. */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
