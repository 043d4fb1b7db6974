// Outbound HTTP from Node (the HTTP engine's GETs, sitemaps, robots.txt, webhooks) with SSRF
// protection that has no DNS-rebinding gap: the host is resolved once per request, every
// resolved address is checked, and the socket is given only that checked address. Sockets
// are kept alive, but an agent (and so a socket) belongs to one scheme, one allow-list, one
// TLS rule and one checked address: a request reuses a socket only when its own fresh
// resolution picked the same address under the same policy, so a host that rebinds to a
// forbidden address is refused before any socket is chosen. Redirects are followed by hand
// so that every hop is checked again. Bodies are capped in bytes after decompression (a gzip
// bomb or a 1 GB sitemap stops at the cap) and in time.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { LRUCache } from 'lru-cache';
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
  /** Resolves a host name to all its addresses (default: the system's, dns.lookup). */
  resolve?: (hostname: string) => Promise<dns.LookupAddress[]>;
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

/** How long an idle kept-alive socket waits for its next request (under the 5 s many servers keep it). */
const IDLE_SOCKET_MS = 4000;
/** Agents kept at most (one per scheme, policy and checked address); an evicted one's idle sockets still close on their own. */
const MAX_AGENTS = 512;

const agents = new LRUCache<string, http.Agent>({ max: MAX_AGENTS });
const policyKeys = new WeakMap<CidrRange[], string>();

function policyKey(allow: CidrRange[]): string {
  let key = policyKeys.get(allow);
  if (key === undefined) {
    key = allow.map(([ip, bits]) => `${ip.toString()}/${bits}`).join(',');
    policyKeys.set(allow, key);
  }
  return key;
}

function systemResolve(hostname: string): Promise<dns.LookupAddress[]> {
  return dns.promises.lookup(hostname, { all: true, verbatim: true });
}

/** The address a request may connect to: every address the host resolves to must pass, the first is used. */
async function checkedAddress(url: URL, opts: SafeRequestOptions): Promise<dns.LookupAddress> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const family = net.isIP(host);
  if (family) {
    const reason = blockedReason(host, opts.allow);
    if (reason) throw new UrlNotAllowedError(`${url.hostname} (${reason}) is blocked by SSRF protection`);
    return { address: host, family };
  }
  const addresses = await (opts.resolve ?? systemResolve)(host);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
  for (const a of addresses) {
    const reason = blockedReason(a.address, opts.allow);
    if (reason) throw new UrlNotAllowedError(`${host} resolves to ${a.address} (${reason}), which is blocked by SSRF protection`);
  }
  return addresses[0]!;
}

/** The kept-alive agent for one checked address under one policy: its sockets connect to that address only. */
function agentFor(url: URL, opts: SafeRequestOptions, pinned: dns.LookupAddress): http.Agent {
  const tls = url.protocol === 'https:';
  const key = `${url.protocol}|${tls && opts.insecureTls ? 'insecure' : 'verified'}|${policyKey(opts.allow)}|${pinned.address}`;
  let agent = agents.get(key);
  if (!agent) {
    const lookup = (_host: string, options: dns.LookupOptions, callback: LookupCallback): void => {
      if (options.all) callback(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, lookup: lookup as never };
    agent = tls ? new https.Agent({ ...options, ...(opts.insecureTls ? { rejectUnauthorized: false } : {}) }) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
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

/** A kept-alive socket the server closed as it was reused: an idempotent request is sent again on a new one. */
function isStaleSocket(err: NodeJS.ErrnoException, reused: boolean, method: string): boolean {
  return reused && (method === 'GET' || method === 'HEAD') && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
}

async function requestOnce(url: URL, opts: SafeRequestOptions, signal: AbortSignal, deadline: AbortSignal): Promise<http.IncomingMessage> {
  let pinned: dns.LookupAddress;
  try {
    pinned = await checkedAddress(url, opts);
  } catch (err) {
    throw toNetworkError(err, url, deadline.aborted);
  }
  signal.throwIfAborted();
  const agent = agentFor(url, opts, pinned);
  const lib = url.protocol === 'https:' ? https : http;
  const method = opts.method ?? 'GET';
  const send = (retry: boolean): Promise<http.IncomingMessage> => new Promise((resolve, reject) => {
    const req = lib.request(url, {
      method,
      headers: { 'user-agent': TRAWL_USER_AGENT, 'accept-encoding': 'gzip, deflate, br', ...opts.headers },
      agent,
      signal,
      ...(opts.insecureTls ? { rejectUnauthorized: false } : {}),
    });
    req.once('response', resolve);
    req.once('error', (err: NodeJS.ErrnoException) => {
      if (retry && isStaleSocket(err, req.reusedSocket, method)) resolve(send(false));
      else reject(toNetworkError(err, url, deadline.aborted));
    });
    req.end(opts.body);
  });
  return send(true);
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
    // Destroying the body before the response is all in (a caller that read enough) ends
    // the response too, so its socket is closed rather than left paused; a response already
    // complete (a 304, a body read to its end) flows to its end and keeps its socket.
    const capped = new Readable({ read() { decoded.resume(); }, destroy(err, callback) {
      if (res.complete) decoded.resume();
      else res.destroy();
      callback(err);
    } });
    decoded.on('data', (chunk: Buffer) => {
      if (truncated || capped.destroyed) return;
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
