// nats.js 2.29 writes its outbound buffer to the socket in a microtask after the first
// command queued, so the commands of one callback share a write but every callback of a
// busy event loop (each delivered message's ack, each request, each publish made after an
// await on other IO) pays its own socket write, and on loopback its own wake-up of
// nats-server. Here the write waits for the end of the loop's current turn instead
// (setImmediate): every command queued in that turn goes out in one write, in the order
// queued. A buffer past nats.js's flush threshold is still written at once. Applied once, on
// import; checked against the shape it replaces, so a nats.js whose sendCommand differs is
// left as it is (and a test says so).
import { createRequire } from 'node:module';

interface ProtocolShape {
  outbound: { length(): number; size(): number; fill(buf: Uint8Array, ...payloads: Uint8Array[]): void };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
}

const require = createRequire(import.meta.url);

function patch(): boolean {
  let ProtocolHandler: { prototype: ProtocolShape } | undefined;
  let encode: ((s: string) => Uint8Array) | undefined;
  try {
    ({ ProtocolHandler } = require('nats/lib/nats-base-client/protocol.js') as { ProtocolHandler?: { prototype: ProtocolShape } });
    ({ encode } = require('nats/lib/nats-base-client/encoders.js') as { encode?: (s: string) => Uint8Array });
  } catch {
    return false;
  }
  const proto = ProtocolHandler?.prototype;
  if (!proto || typeof encode !== 'function' || typeof proto.sendCommand !== 'function' || typeof proto.flushPending !== 'function') return false;
  // The method replaced must be the one that flushes in a microtask after the first command.
  const source = proto.sendCommand.toString();
  if (!/queueMicrotask\(/.test(source) || !/pendingLimit/.test(source)) return false;
  const toBytes = encode;
  proto.sendCommand = function sendCommand(this: ProtocolShape, cmd: string | Uint8Array, ...payloads: Uint8Array[]): void {
    const queued = this.outbound.length();
    this.outbound.fill(typeof cmd === 'string' ? toBytes(cmd) : cmd, ...payloads);
    if (queued === 0) setImmediate(() => this.flushPending());
    else if (this.outbound.size() >= this.pendingLimit) this.flushPending();
  };
  return true;
}

/** Whether the outbound writes are coalesced per event-loop turn (false: this nats.js is not the shape it was written for). */
export const writeCoalescingPatched = patch();
