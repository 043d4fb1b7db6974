import assert from 'node:assert/strict';
import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import { NetworkError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { BodyTooLargeError, safeStream, type SafeRequestOptions } from '../../../shared/src/net/safe-http.js';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { startSite, type TestSite } from '../../support/site.js';

const loopback = parseCidrList('127.0.0.0/8');

/** safeStream, buffered: a body over maxBytes is a BodyTooLargeError (as the HTTP engine treats it). */
async function safeRequest(url: string, opts: SafeRequestOptions): Promise<{ status: number; url: string; body: Buffer }> {
  const res = await safeStream(url, opts);
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk as Buffer);
  if (res.truncated()) throw new BodyTooLargeError(opts.maxBytes);
  return { status: res.status, url: res.url, body: Buffer.concat(chunks) };
}

describe('safe-http', () => {
  let site: TestSite;
  before(async () => {
    site = await startSite({
      '/hello': 'hello',
      '/redirect': { body: '', status: 302, headers: { location: '/hello' } },
      '/redirect-meta': { body: '', status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
      '/gzip': { body: zlib.gzipSync(Buffer.from('x'.repeat(10_000))), headers: { 'content-encoding': 'gzip' } },
      '/big': 'y'.repeat(50_000),
    });
  });
  after(() => site.close());

  test('fetches an allowed loopback page and follows redirects', async () => {
    const res = await safeRequest(site.url('/redirect'), { allow: loopback, timeoutMs: 5000, maxBytes: 1000 });
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'hello');
    assert.equal(res.url, site.url('/hello'));
  });

  test('refuses loopback without an allow range, by resolved address', async () => {
    await assert.rejects(safeRequest(site.url('/hello'), { allow: [], timeoutMs: 5000, maxBytes: 1000 }), UrlNotAllowedError);
    const viaName = `http://localhost:${site.port}/hello`;
    await assert.rejects(safeRequest(viaName, { allow: [], timeoutMs: 5000, maxBytes: 1000 }), UrlNotAllowedError);
  });

  test('re-checks every redirect hop', async () => {
    await assert.rejects(safeRequest(site.url('/redirect-meta'), { allow: loopback, timeoutMs: 5000, maxBytes: 1000 }), UrlNotAllowedError);
  });

  test('decodes gzip and caps decoded bytes', async () => {
    const ok = await safeRequest(site.url('/gzip'), { allow: loopback, timeoutMs: 5000, maxBytes: 20_000 });
    assert.equal(ok.body.length, 10_000);
    await assert.rejects(safeRequest(site.url('/gzip'), { allow: loopback, timeoutMs: 5000, maxBytes: 5000 }), BodyTooLargeError);
    const streamed = await safeStream(site.url('/big'), { allow: loopback, timeoutMs: 5000, maxBytes: 1000 });
    let n = 0;
    for await (const chunk of streamed.body) n += (chunk as Buffer).length;
    assert.equal(n, 1000);
    assert.equal(streamed.truncated(), true);
  });

  test('maps refused connections and unknown hosts to NETWORK_ERROR', async () => {
    await assert.rejects(safeRequest('http://127.0.0.1:1/', { allow: loopback, timeoutMs: 5000, maxBytes: 1000 }), NetworkError);
    await assert.rejects(safeRequest('http://does-not-exist.invalid/', { allow: loopback, timeoutMs: 5000, maxBytes: 1000 }), NetworkError);
  });
});

/** Two listeners on one port (127.0.0.1 and 127.0.0.2) that count connections and requests per local address. */
async function countingServers(handle?: (req: http.IncomingMessage, res: http.ServerResponse, nthOnSocket: number) => void) {
  const connections = new Map<string, number>();
  const perSocket = new WeakMap<object, number>();
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    if (handle) handle(req, res, n);
    else res.end('ok');
  };
  const servers = [http.createServer(handler), http.createServer(handler)];
  for (const s of servers) s.on('connection', (socket) => connections.set(socket.localAddress!, (connections.get(socket.localAddress!) ?? 0) + 1));
  await new Promise<void>((resolve) => servers[0]!.listen(0, '127.0.0.1', resolve));
  const { port } = servers[0]!.address() as AddressInfo;
  await new Promise<void>((resolve) => servers[1]!.listen(port, '127.0.0.2', resolve));
  return {
    port,
    connections: (address: string) => connections.get(address) ?? 0,
    close: () => Promise.all(servers.map((s) => new Promise<void>((resolve) => { s.closeAllConnections(); s.close(() => resolve()); }))),
  };
}

describe('safe-http keep-alive', () => {
  test('reuses a socket for the same checked address under the same policy, and a new one under another policy', async () => {
    const site = await countingServers();
    try {
      const url = `http://127.0.0.1:${site.port}/a`;
      for (let i = 0; i < 3; i++) assert.equal((await safeRequest(url, { allow: loopback, timeoutMs: 5000, maxBytes: 100 })).body.toString(), 'ok');
      assert.equal(site.connections('127.0.0.1'), 1, 'three GETs, one connection');
      const narrower = parseCidrList('127.0.0.1/32');
      await safeRequest(url, { allow: narrower, timeoutMs: 5000, maxBytes: 100 });
      assert.equal(site.connections('127.0.0.1'), 2, 'another allow-list does not reuse the first policy\'s socket');
      await safeRequest(url, { allow: loopback, timeoutMs: 5000, maxBytes: 100 });
      assert.equal(site.connections('127.0.0.1'), 2, 'the first policy\'s socket is still reused');
      await assert.rejects(safeRequest(url, { allow: [], timeoutMs: 5000, maxBytes: 100 }), UrlNotAllowedError);
      assert.equal(site.connections('127.0.0.1'), 2, 'a policy that forbids the address gets no socket, kept alive or new');
    } finally {
      await site.close();
    }
  });

  test('a host that rebinds gets a socket to its new address only when that address is allowed', async () => {
    const site = await countingServers();
    try {
      const answers = ['127.0.0.1', '127.0.0.1', '127.0.0.2', '10.0.0.1', '127.0.0.1'];
      const resolve = async (): Promise<dns.LookupAddress[]> => [{ address: answers.shift()!, family: 4 }];
      const get = () => safeRequest(`http://rebinding.test:${site.port}/a`, { allow: loopback, timeoutMs: 5000, maxBytes: 100, resolve });
      await get();
      await get();
      assert.equal(site.connections('127.0.0.1'), 1, 'the same address: the socket is reused');
      await get();
      assert.equal(site.connections('127.0.0.2'), 1, 'a new allowed address: a new socket to it');
      await assert.rejects(get(), UrlNotAllowedError);
      assert.equal(site.connections('127.0.0.1') + site.connections('127.0.0.2'), 2, 'a forbidden address: refused, no socket reused');
      await get();
      assert.equal(site.connections('127.0.0.1'), 1, 'back on the first address: its socket again');
    } finally {
      await site.close();
    }
  });

  test('a body left unread keeps its socket when the response is complete (a 304), not when it is not', async () => {
    const site = await countingServers((req, res) => {
      if (req.url === '/304') res.writeHead(304, { etag: '"a"' }).end();
      else res.end('z'.repeat(200_000));
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await safeStream(`http://127.0.0.1:${site.port}/304`, { allow: loopback, timeoutMs: 5000, maxBytes: 100 });
        assert.equal(res.status, 304);
        res.body.destroy();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.equal(site.connections('127.0.0.1'), 1, 'three 304s left unread, one connection');
      const big = await safeStream(`http://127.0.0.1:${site.port}/big`, { allow: loopback, timeoutMs: 5000, maxBytes: 1_000_000 });
      big.body.destroy();
      await safeRequest(`http://127.0.0.1:${site.port}/304`, { allow: loopback, timeoutMs: 5000, maxBytes: 100 });
      assert.equal(site.connections('127.0.0.1'), 2, 'a body dropped half-read closes its socket; the next request opens one');
    } finally {
      await site.close();
    }
  });

  test('a kept-alive socket the server dropped is replaced for a GET', async () => {
    const site = await countingServers((req, res, nthOnSocket) => {
      if (nthOnSocket === 2) req.socket.destroy();
      else res.end('ok');
    });
    try {
      const url = `http://127.0.0.1:${site.port}/a`;
      await safeRequest(url, { allow: loopback, timeoutMs: 5000, maxBytes: 100 });
      assert.equal((await safeRequest(url, { allow: loopback, timeoutMs: 5000, maxBytes: 100 })).body.toString(), 'ok');
      assert.equal(site.connections('127.0.0.1'), 2);
    } finally {
      await site.close();
    }
  });
});
