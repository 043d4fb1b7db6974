// Two defects of nats.js 2.29 that splice one socket's bytes into another's messages (issue
// 26: after a frozen server's thaw, the chaos drill's log read was handed a `page_fetched`
// whose body "is not JSON"; test/integration/nats/reader-handover.test.ts):
//   1. A reconnect's dial that runs out of time (a frozen server's kernel accepts the TCP
//      connection, and its INFO never comes) is not closed: its connect goes on, completes
//      at the thaw, and when that socket closes later, the handler nats.js registered on it
//      starts a reconnect of the whole connection, although it is no longer the
//      connection's socket: the live one is replaced, and not closed.
//   2. Each socket is read in a loop that hands every chunk to the connection's parser as it
//      is when the chunk is read (`this.parser.parse(b)`), and a reconnect replaces that
//      parser for the new socket. The replaced socket's loop goes on: its chunks are parsed
//      in the middle of the new socket's stream (message bodies with the other's bytes
//      spliced in, and "reader closed ... parse error").
//   3. A connection its pings find stale is closed after a last flush of what the client
//      has written to it, and a frozen server reads nothing: a client writing steadily left
//      it only at its thaw (test/probes/stale-leave-probe.ts: stale 5.5 s after the freeze,
//      left 21 s after it, at the thaw), its requests and acks meanwhile waiting on it.
// Here a stale connection's socket is closed without that flush (what it held was not
// going to be read), a socket's close starts a reconnect only when it is the connection's socket, and a
// chunk read from a socket that is no longer the connection's is dropped, and that socket
// closed: what it still held is lost with it, as on any disconnect (work messages are handed
// out again after their ack wait). Applied once, on import; checked against the shape it
// relies on.
import { createRequire } from 'node:module';

interface TransportShape { isClosed: boolean; socket?: { on(event: 'data', listener: (frame: Uint8Array) => void): unknown }; yields: Uint8Array[]; setupHandlers(): void; close(err?: Error): Promise<void> }
interface HandlerShape { transport?: TransportShape; disconnected(err?: Error): Promise<void>; disconnect(): void; dispatchStatus(status: { type: string; data: string }): void }
interface ParserShape { dispatcher?: HandlerShape; parse(buf: Uint8Array): void }

const require = createRequire(import.meta.url);

/** The socket (transport) each chunk was read from (chunks are fresh buffers: node's socket data). */
const readBy = new WeakMap<Uint8Array, TransportShape>();
let dropped = 0;
let ignoredCloses = 0;

/** How many chunks of replaced sockets were kept from a live connection's parser (in this process). */
export function chunksOfReplacedSockets(): number {
  return dropped;
}

/** How many closes of sockets a connection had left were kept from reconnecting it (in this process). */
export function closesOfLeftSockets(): number {
  return ignoredCloses;
}

function patch(): boolean {
  let transport: { prototype: TransportShape } | undefined;
  let parser: { prototype: ParserShape } | undefined;
  let handler: { prototype: HandlerShape & { dial?: unknown; prepare?: unknown } } | undefined;
  try {
    ({ NodeTransport: transport } = require('nats/lib/src/node_transport.js') as { NodeTransport?: { prototype: TransportShape } });
    ({ Parser: parser } = require('nats/lib/nats-base-client/parser.js') as { Parser?: { prototype: ParserShape } });
    ({ ProtocolHandler: handler } = require('nats/lib/nats-base-client/protocol.js') as { ProtocolHandler?: { prototype: HandlerShape } });
  } catch {
    return false;
  }
  const setupHandlers = transport?.prototype.setupHandlers;
  const parse = parser?.prototype.parse;
  const disconnected = handler?.prototype.disconnected;
  const { dial, prepare, disconnect } = handler?.prototype ?? {};
  if (typeof setupHandlers !== 'function' || typeof parse !== 'function' || typeof disconnected !== 'function' || typeof dial !== 'function' || typeof prepare !== 'function' || typeof disconnect !== 'function') return false;
  // The shape relied on: the read loop takes the handler's parser as it is; each socket's
  // close calls disconnected(); a parser knows its handler; a socket closed says isClosed;
  // a socket's reads are queued (yields) by the 'data' listener setupHandlers adds.
  if (!/this\.parser\.parse\(/.test(dial.toString()) || !/this\.disconnected\(/.test(prepare.toString())
    || !/this\.dispatcher = dispatcher/.test(parser!.toString()) || !/this\.socket\.on\("data"[\s\S]*this\.yields\.push\(frame\)/.test(setupHandlers.toString())
    || !/StaleConnection[\s\S]*this\.transport\.disconnect\(\)/.test(disconnect.toString())
    || Object.getOwnPropertyDescriptor(transport!.prototype, 'isClosed')?.get === undefined) return false;

  // Each chunk is tagged as the socket emits it, by a listener beside nats.js's own (in the
  // same emit, so before the read loop can hand it to a parser), not by a layer on the read
  // loop: an async generator around nats.js's, one more promise and resume per read, cost
  // every socket read of every service (bench/probe/nats-read-cost.ts). Chunks already
  // queued (the INFO read before the handlers) are tagged too.
  transport!.prototype.setupHandlers = function tagReads(this: TransportShape): void {
    setupHandlers.call(this);
    for (const chunk of this.yields) readBy.set(chunk, this);
    this.socket?.on('data', (chunk) => { readBy.set(chunk, this); });
  };
  parser!.prototype.parse = function parseOwnSocket(this: ParserShape, buf: Uint8Array): void {
    const from = readBy.get(buf);
    if (from !== undefined && from !== this.dispatcher?.transport) {
      dropped++;
      if (!from.isClosed) void from.close().catch(() => undefined);
      return;
    }
    parse.call(this, buf);
  };
  handler!.prototype.disconnect = function leaveStale(this: HandlerShape): void {
    this.dispatchStatus({ type: 'staleConnection', data: '' });
    void this.transport?.close().catch(() => undefined); // a close, not nats.js's disconnect(): no flush first
  };
  handler!.prototype.disconnected = function disconnectedIfCurrent(this: HandlerShape, err?: Error): Promise<void> {
    // The connection's own socket is closed when its close calls this; an open one means a
    // socket it left (an abandoned dial, a replaced socket) closed: nothing to reconnect.
    if (this.transport && !this.transport.isClosed) { ignoredCloses++; return Promise.resolve(); }
    return disconnected.call(this, err);
  };
  return true;
}

/** Whether a stale server is left at once, one socket's bytes kept out of another's messages, and a replaced socket's close out of the connection. */
export const readerHandoverPatched = patch();
