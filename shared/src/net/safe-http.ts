// Outbound HTTP from Node (sitemaps, robots.txt, webhooks) with SSRF protection that has
// no DNS-rebinding gap: the connection's own DNS lookup is replaced by one that checks
// every resolved address and hands the socket only a checked one. Redirects are followed
// by hand so that every hop is checked again. Bodies are capped in bytes after
// decompression (a gzip bomb or a 1 GB sitemap stops at the cap) and in time.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { NetworkError, PageTimeoutError, UrlNotAllowedError } from '../domain/errors.js';
import { blockedReason, parseHttpUrl, type CidrRange } from './url-safety.js';

export const TRAWL_USER_AGENT = 'TrawlBot/0.1 (+https://trawl.dev/bot)';

export interface SafeRequestOptions {
  allow: CidrRange[];
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs: number;
  /** Decoded body bytes at most; the stream ends there and reports `truncated()`. */
  maxBytes: number;
  maxRedirects?: number;
  signal?: AbortSignal;
  /** Accept invalid TLS certificates (the fetcher's HTTP engine, like its browser: content extraction, not trust). */
  insecureTls?: boolean;
}

export interface SafeStreamResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The URL after redirects. */
  url: string;
  /** Decoded body, ending early (without error) when maxBytes is reached. */
  body: Readable;
  truncated(): boolean;
}

export class BodyTooLargeError extends NetworkError {
  constructor(maxBytes: number) {
    super(`response body exceeds ${maxBytes} bytes`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

function guardedLookup(allow: CidrRange[]) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    dns.lookup(hostname, { all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, []);
      for (const a of addresses) {
        const reason = blockedReason(a.address, allow);
        if (reason) return callback(new UrlNotAllowedError(`${hostname} resolves to ${a.address} (${reason}), which is blocked by SSRF protection`) as never, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

function decode(res: http.IncomingMessage): Readable {
  switch ((res.headers['content-encoding'] ?? '').toLowerCase()) {
    case 'gzip': case 'x-gzip': return res.pipe(zlib.createGunzip());
    case 'deflate': return res.pipe(zlib.createInflate());
    case 'br': return res.pipe(zlib.createBrotliDecompress());
    default: return res;
  }
}

function toNetworkError(err: unknown, url: URL, timedOut: boolean): Error {
  if (err instanceof UrlNotAllowedError || err instanceof NetworkError) return err;
  if (timedOut) return new PageTimeoutError(`${url.origin} did not answer in time`);
  const e = err as NodeJS.ErrnoException;
  if (e?.name === 'AbortError') return e;
  const code = e?.code ?? 'ERROR';
  const what = code === 'ENOTFOUND' || code === 'EAI_AGAIN' ? `could not resolve host "${url.hostname}"` : `request to ${url.origin} failed`;
  return new NetworkError(`${what} (${code})`, code === 'ECONNRESET' || code === 'EPIPE', { cause: err });
}

async function requestOnce(url: URL, opts: SafeRequestOptions, signal: AbortSignal, deadline: AbortSignal): Promise<http.IncomingMessage> {
  if (net.isIP(url.hostname.replace(/^\[|\]$/g, ''))) {
    const reason = blockedReason(url.hostname.replace(/^\[|\]$/g, ''), opts.allow);
    if (reason) throw new UrlNotAllowedError(`${url.hostname} (${reason}) is blocked by SSRF protection`);
  }
  const lib = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method: opts.method ?? 'GET',
      headers: { 'user-agent': TRAWL_USER_AGENT, 'accept-encoding': 'gzip, deflate, br', ...opts.headers },
      lookup: guardedLookup(opts.allow) as never,
      signal,
      // A new agent per request: a kept-alive socket must never skip the address check.
      agent: false,
      ...(opts.insecureTls ? { rejectUnauthorized: false } : {}),
    });
    req.once('response', resolve);
    req.once('error', (err) => reject(toNetworkError(err, url, deadline.aborted)));
    req.end(opts.body);
  });
}

/** Sends the request, following and re-checking redirects; returns the streamed, decoded response. */
export async function safeStream(rawUrl: string, opts: SafeRequestOptions): Promise<SafeStreamResponse> {
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  let url = parseHttpUrl(rawUrl);
  const maxRedirects = opts.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const res = await requestOnce(url, opts, signal, deadline);
    const location = res.headers.location;
    if (res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location && hop < maxRedirects) {
      res.resume();
      url = parseHttpUrl(new URL(location, url).toString());
      continue;
    }
    let seen = 0;
    let truncated = false;
    const decoded = decode(res);
    const capped = new Readable({ read() { decoded.resume(); } });
    decoded.on('data', (chunk: Buffer) => {
      if (truncated) return;
      const room = opts.maxBytes - seen;
      if (chunk.length > room) {
        truncated = true;
        if (room > 0) capped.push(chunk.subarray(0, room));
        capped.push(null);
        res.destroy();
        return;
      }
      seen += chunk.length;
      if (!capped.push(chunk)) decoded.pause();
    });
    decoded.once('end', () => { if (!truncated) capped.push(null); });
    decoded.once('error', (err) => { if (!truncated) capped.destroy(toNetworkError(err, url, deadline.aborted)); });
    return { status: res.statusCode ?? 0, headers: res.headers, url: url.toString(), body: capped, truncated: () => truncated };
  }
}
