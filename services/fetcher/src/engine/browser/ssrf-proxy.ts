// The browser's only way out to the network: a filtering forward proxy (plain HTTP and
// CONNECT tunnels) on 127.0.0.1:<random port>, one per capture, that Chromium is pointed at
// with `--proxy-server`. It checks EVERY address a name resolves to (`blockedReason`, as the
// gateway does) and connects only to those, so DNS rebinding has no gap between check and
// connect. It also records why it failed a request, which Chromium cannot tell the page
// (docs/architecture.md "SSRF").
import http from 'node:http';
import net from 'node:net';
import type { LookupAddress } from 'node:dns';
import crypto from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { NetworkError, UrlNotAllowedError, type TrawlError } from '../../../../../shared/src/domain/errors.js';
import { resolveAllowed, systemLookup, type CidrRange, type Lookup } from '../../../../../shared/src/net/url-safety.js';
import type { Logger } from '../../../../../shared/src/infra/logger.js';

export const PROXY_REFUSAL_HEADER = 'x-trawl-proxy-refusal';

export interface SsrfProxyOptions {
  allowCidrs: CidrRange[];
  lookup?: Lookup;
  /** Give up on an upstream TCP connect after this long. */
  connectTimeoutMs?: number;
  logger?: Logger;
}

export interface ProxyStats {
  requests: number;
  tunnels: number;
  blocked: number;
  failed: number;
  openSockets: number;
}

// Hop-by-hop headers (RFC 9110 7.6.1) plus the proxy ones Chromium sends: never forwarded.
const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'proxy-authenticate',
  'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class SsrfProxy {
  readonly nonce = crypto.randomBytes(16).toString('hex');
  private readonly server: http.Server;
  private readonly sockets = new Set<Duplex>();
  private readonly resolved = new Map<string, Promise<string[]>>();
  private readonly failures = new Map<string, TrawlError>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly counters = { requests: 0, tunnels: 0, blocked: 0, failed: 0 };
  private readonly connectTimeoutMs: number;
  private port = 0;

  private constructor(private readonly opts: SsrfProxyOptions) {
    this.connectTimeoutMs = opts.connectTimeoutMs ?? 15_000;
    this.server = http.createServer((req, res) => void this.forward(req, res));
    this.server.on('connect', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => void this.tunnel(req, socket, head));
    // Chromium tunnels ws:// through CONNECT; an absolute-form Upgrade is refused outright.
    this.server.on('upgrade', (_req, socket: Duplex) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
    this.server.on('connection', (socket: net.Socket) => this.track(socket));
    this.server.on('clientError', (_err, socket: Duplex) => socket.destroy());
  }

  static async start(opts: SsrfProxyOptions): Promise<SsrfProxy> {
    const proxy = new SsrfProxy(opts);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy.port = (proxy.server.address() as AddressInfo).port;
    return proxy;
  }

  /** Value for Chromium's --proxy-server / Playwright's `proxy.server`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  // Failures are recorded per URL for plain HTTP and per authority (host:port) for CONNECT
  // tunnels (all the proxy sees of them), never mixed, so a failed https://host:80 tunnel is
  // never taken for why http://host:80/ failed. Only failures to check, resolve or connect
  // are recorded: a connection that breaks later is the browser's to report.
  /** The typed reason the proxy refused or failed a request to this URL's host:port, if any. */
  failureFor(url: string): TrawlError | undefined {
    try {
      return this.failures.get(failureKey(new URL(url)));
    } catch {
      return undefined;
    }
  }

  /** Plain-HTTP refusals carry a per-proxy random nonce, which an origin cannot forge. */
  isRefusal(headers: Record<string, string>): boolean {
    return headers[PROXY_REFUSAL_HEADER] === this.nonce;
  }

  stats(): ProxyStats {
    return { ...this.counters, openSockets: this.sockets.size };
  }

  async close(): Promise<void> {
    this.agent.destroy();
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // ---- plain HTTP ---------------------------------------------------------------------

  private async forward(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.counters.requests++;
    let target: URL;
    try {
      target = new URL(req.url ?? '');
      if (target.protocol !== 'http:') throw new Error('not http');
    } catch {
      res.writeHead(400, { [PROXY_REFUSAL_HEADER]: this.nonce }).end('bad proxy request');
      return;
    }
    const authority = authorityOf(target);
    const key = failureKey(target);
    try {
      await this.checkedAddresses(target);
    } catch (err) {
      this.refuseHttp(res, key, err as TrawlError);
      return;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = value;
    }
    const upstream = http.request({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 80),
      method: req.method,
      path: `${target.pathname}${target.search}`,
      headers,
      agent: this.agent,
      lookup: this.pinnedLookup,
    });
    // A bound on connecting only: a slow server's first byte is the page's own `timeout`
    // (the browser's navigation deadline), not this proxy's. A reused keep-alive socket is
    // connected already and gets none.
    upstream.on('socket', (socket: net.Socket) => {
      if (!socket.connecting) return;
      socket.setTimeout(this.connectTimeoutMs, () => upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })));
      socket.once('connect', () => socket.setTimeout(0));
    });
    upstream.on('response', (up) => {
      const raw: string[] = [];
      for (let i = 0; i < up.rawHeaders.length; i += 2) {
        const name = up.rawHeaders[i] ?? '';
        const lower = name.toLowerCase();
        if (!HOP_BY_HOP.has(lower) && lower !== PROXY_REFUSAL_HEADER) raw.push(name, up.rawHeaders[i + 1] ?? '');
      }
      res.writeHead(up.statusCode ?? 502, up.statusMessage, raw);
      up.pipe(res);
      up.on('error', () => res.destroy());
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      this.refuseHttp(res, key, connectError(err, authority));
    });
    // The browser gave up (page closed, navigation cancelled): stop the upstream request too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  }

  private refuseHttp(res: http.ServerResponse, key: string, error: TrawlError): void {
    this.record(key, error);
    const status = error instanceof UrlNotAllowedError ? 403 : 502;
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', [PROXY_REFUSAL_HEADER]: this.nonce, connection: 'close' });
    res.end(`${error.message}\n`);
  }

  // ---- CONNECT tunnels (HTTPS, WebSockets) -------------------------------------------

  private async tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    this.counters.tunnels++;
    this.track(client);
    client.on('error', () => client.destroy());
    let target: URL;
    try {
      target = new URL(`http://${req.url ?? ''}`);
      if (!target.hostname || !target.port) throw new Error('bad authority');
    } catch {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const authority = authorityOf(target);
    const key = tunnelKey(authority);
    try {
      await this.checkedAddresses(target);
    } catch (err) {
      this.refuseTunnel(client, key, err as TrawlError);
      return;
    }
    const upstream = net.connect({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port),
      lookup: this.pinnedLookup,
      autoSelectFamily: true,
    });
    this.track(upstream);
    upstream.setTimeout(this.connectTimeoutMs, () => upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected) this.refuseTunnel(client, key, connectError(err, authority));
      else client.destroy();
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  private refuseTunnel(client: Duplex, key: string, error: TrawlError): void {
    this.record(key, error);
    const status = error instanceof UrlNotAllowedError ? '403 Forbidden' : '502 Bad Gateway';
    if (!client.destroyed) client.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
  }

  // ---- resolution ----------------------------------------------------------------------

  /** Resolves once per host and checks every address; rejects with URL_NOT_ALLOWED or NETWORK_ERROR. */
  private checkedAddresses(target: URL): Promise<string[]> {
    const host = target.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    let pending = this.resolved.get(host);
    if (!pending) {
      pending = resolveAllowed(target, this.opts.allowCidrs, this.opts.lookup ?? systemLookup);
      pending.catch(() => undefined);
      this.resolved.set(host, pending);
    }
    return pending;
  }

  /**
   * `lookup` for sockets: answers only from the checked cache, so the address connected to
   * is an address that was checked. Anything not in the cache is refused.
   */
  private readonly pinnedLookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const pending = this.resolved.get(hostname.toLowerCase());
    if (!pending) {
      callback(Object.assign(new Error(`${hostname} was not checked`), { code: 'ENOTFOUND' }), '');
      return;
    }
    pending.then(
      (addresses) => {
        const entries = addresses.map((address) => ({ address, family: net.isIPv6(address) ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0]?.address ?? '', entries[0]?.family ?? 4);
      },
      (err: Error) => callback(Object.assign(err, { code: 'ENOTFOUND' }), ''),
    );
  };

  private record(key: string, error: TrawlError): void {
    if (error instanceof UrlNotAllowedError) this.counters.blocked++;
    else this.counters.failed++;
    this.failures.set(key, error);
    this.opts.logger?.debug({ request: key, code: error.code, reason: error.message }, 'proxy refused a browser request');
  }

  private track(socket: Duplex): void {
    if (this.sockets.has(socket)) return;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

export function authorityOf(url: URL): string {
  const port = url.port || (url.protocol === 'https:' || url.protocol === 'wss:' ? '443' : '80');
  return `${url.hostname.toLowerCase()}:${port}`;
}

/** Where a failure of a request to this URL is recorded: its URL for plain HTTP, its tunnel otherwise. */
function failureKey(url: URL): string {
  if (url.protocol !== 'http:') return tunnelKey(authorityOf(url));
  const bare = new URL(url.href);
  bare.hash = '';
  return bare.href;
}

function tunnelKey(authority: string): string {
  return `tunnel ${authority}`;
}

/** Upstream connect failures: refused and unreachable are final, resets and timeouts may pass. */
function connectError(err: NodeJS.ErrnoException, authority: string): TrawlError {
  switch (err.code) {
    case 'ECONNREFUSED':
      return new NetworkError(`connection refused by ${authority}`, false, { cause: err });
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new NetworkError(`${authority} is unreachable`, false, { cause: err });
    case 'ETIMEDOUT':
      return new NetworkError(`connecting to ${authority} timed out`, true, { cause: err });
    default:
      return new NetworkError(`connection to ${authority} failed: ${err.code ?? err.message}`, true, { cause: err });
  }
}
