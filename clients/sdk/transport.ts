// HTTP for the SDK: JSON in and out with the API key, typed errors, and the retries a
// well-behaved client makes: a 429 RATE_LIMITED waits its Retry-After, a 503 or a lost
// connection backs off exponentially (a lost connection only for requests that are safe to
// repeat). It remembers the key's X-RateLimit-* figures so that progress polling can pace
// itself to a share of the key's requests per minute.
import { ConnectionError, errorFromResponse, RateLimitError, ServerError, TrawlError } from './errors.js';

export interface TransportOptions {
  apiUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** How many times one request is retried after a 429 RATE_LIMITED, a 503 or a lost connection. */
  maxRetries?: number;
  /**
   * Retries of a refused connection (nothing listens at apiUrl), within maxRetries. A
   * server that restarts is back within a few: a command-line user wants to hear at once
   * that nothing is running (the CLI sets 1).
   */
  maxConnectRetries?: number;
  /** Longest single wait for a Retry-After; a longer one is thrown to the caller. */
  maxRetryAfterMs?: number;
  /** Per attempt, beyond the request's own long-poll wait. */
  requestTimeoutMs?: number;
  /** Called before each retry (logging, tests). */
  onRetry?: (info: RetryInfo) => void;
  userAgent?: string;
}

export interface RetryInfo { attempt: number; delayMs: number; error: TrawlError; method: string; path: string }

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  signal?: AbortSignal | undefined;
  /** The request itself may be held this long by the server (waitMs): added to the timeout. */
  holdMs?: number;
}

export interface ApiAnswer<T> { status: number; body: T; headers: Headers; requestId: string | undefined }

export interface RateLimitState { limit: number; remaining: number; resetAtMs: number }

export const TRANSPORT_DEFAULTS = { maxRetries: 8, maxRetryAfterMs: 65_000, requestTimeoutMs: 30_000 } as const;

export class Transport {
  /** The key's figures from the last counted answer, if any. */
  rateLimit: RateLimitState | undefined;
  private readonly base: string;

  constructor(private readonly opts: TransportOptions) {
    this.base = opts.apiUrl.replace(/\/+$/, '');
  }

  get apiUrl(): string { return this.base; }

  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, opts: RequestOptions = {}): Promise<ApiAnswer<T>> {
    const maxRetries = this.opts.maxRetries ?? TRANSPORT_DEFAULTS.maxRetries;
    for (let attempt = 0; ; attempt++) {
      let error: TrawlError;
      try {
        return await this.once<T>(method, path, opts);
      } catch (err) {
        if (!(err instanceof TrawlError) || opts.signal?.aborted) throw err;
        error = err;
      }
      const delayMs = this.retryDelayMs(error, method, attempt);
      const limit = error.code === 'CONNECTION_REFUSED' ? Math.min(maxRetries, this.opts.maxConnectRetries ?? maxRetries) : maxRetries;
      if (delayMs === undefined || attempt >= limit) throw error;
      this.opts.onRetry?.({ attempt: attempt + 1, delayMs, error, method, path });
      await sleep(delayMs, opts.signal);
    }
  }

  /** Milliseconds before retrying, or undefined when the error is not worth a retry. */
  private retryDelayMs(error: TrawlError, method: string, attempt: number): number | undefined {
    if (error instanceof RateLimitError) {
      const ms = (error.retryAfter ?? 1) * 1000;
      if (ms > (this.opts.maxRetryAfterMs ?? TRANSPORT_DEFAULTS.maxRetryAfterMs)) return undefined;
      return ms + Math.random() * 250; // jitter: clients released together do not return together
    }
    const backoff = Math.min(8000, 500 * 2 ** attempt) * (0.75 + Math.random() * 0.5);
    if (error instanceof ServerError && (error.status === 503 || (method !== 'POST' && (error.status === 502 || error.status === 504)))) {
      return error.retryAfter !== undefined ? error.retryAfter * 1000 : backoff;
    }
    // A lost connection may have lost the answer, not the request: repeat only what is safe to repeat.
    if (error instanceof ConnectionError && error.code !== 'INVALID_API_URL' && method !== 'POST') return backoff;
    return undefined;
  }

  private async once<T>(method: string, path: string, opts: RequestOptions): Promise<ApiAnswer<T>> {
    const url = new URL(this.base + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const timeout = AbortSignal.timeout((this.opts.requestTimeoutMs ?? TRANSPORT_DEFAULTS.requestTimeoutMs) + (opts.holdMs ?? 0));
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const headers: Record<string, string> = { authorization: `Bearer ${this.opts.apiKey}`, accept: 'application/json' };
    if (this.opts.userAgent) headers['user-agent'] = this.opts.userAgent;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await (this.opts.fetch ?? fetch)(url, {
        method, headers, signal, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
      });
      text = await res.text();
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason ?? err;
      const what = timeout.aborted ? 'timed out' : 'failed';
      const cause = (err as Error).cause as { code?: string } | undefined;
      const refused = !timeout.aborted && (cause?.code === 'ECONNREFUSED' || cause?.code === 'ENOTFOUND');
      const unusable = unusableUrlReason(cause);
      if (unusable) throw new ConnectionError(`${method} ${url.pathname} cannot be sent to ${this.base}: ${unusable}`, { code: 'INVALID_API_URL', cause: err });
      throw new ConnectionError(`${method} ${url.pathname} ${what}: ${(err as Error).cause ?? (err as Error).message}`, {
        code: timeout.aborted ? 'REQUEST_TIMEOUT' : refused ? 'CONNECTION_REFUSED' : 'CONNECTION_ERROR', cause: err,
      });
    }
    this.noteRateLimit(res.headers);
    let body: unknown = text;
    try { body = text ? JSON.parse(text) : undefined; } catch { /* not JSON: kept as text for the error */ }
    const requestId = res.headers.get('x-request-id') ?? undefined;
    if (!res.ok) throw errorFromResponse(res.status, res.headers, body);
    return { status: res.status, body: body as T, headers: res.headers, requestId };
  }

  private noteRateLimit(headers: Headers): void {
    const limit = Number(headers.get('x-ratelimit-limit'));
    if (!limit) return;
    this.rateLimit = {
      limit,
      remaining: Number(headers.get('x-ratelimit-remaining') ?? 0),
      resetAtMs: Number(headers.get('x-ratelimit-reset') ?? 0) * 1000,
    };
  }

  /**
   * How often to look at a running job's progress: a fifth of the key's requests per minute
   * (free, 10/min: every 30 s; team, 120/min: every 2.5 s), at least every second.
   */
  progressIntervalMs(share = 0.2): number {
    const limit = this.rateLimit?.limit;
    if (!limit) return 5000;
    return Math.min(60_000, Math.max(1000, Math.ceil(60_000 / (limit * share))));
  }
}

/**
 * Why fetch refused the URL itself, before any connection (no retry can help): a port the
 * Fetch standard blocks (6000, 9, 25…: "bad port") or a scheme it does not speak.
 */
function unusableUrlReason(cause: { code?: string; message?: string } | undefined): string | undefined {
  if (!cause || cause.code) return undefined; // a network error has a code (ECONNRESET, UND_ERR_…)
  if (cause.message === 'bad port') return 'fetch refuses that port (a port the Fetch standard blocks)';
  if (cause.message === 'unknown scheme') return 'fetch speaks only http and https';
  return undefined;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => { clearTimeout(timer); reject(signal!.reason); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
