// Outbound writes coalesced per event-loop turn (shared/src/infra/nats/write-coalescing.ts),
// against a real nats-server: commands queued by many callbacks of one turn go out in one
// socket write, in order, and nothing is lost or held (a request is answered, a drain
// delivers what was published just before it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { writeCoalescingPatched } from '../../../shared/src/infra/nats/write-coalescing.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

/** Counts the connection's socket writes (nats.js's transport writes through socket.write). */
function countWrites(nc: NatsConnection): { writes: () => number } {
  const socket = (nc as unknown as { protocol: { transport: { socket: { write: (...a: unknown[]) => boolean } } } }).protocol.transport.socket;
  let writes = 0;
  const write = socket.write.bind(socket);
  socket.write = (...args: unknown[]) => { writes++; return write(...args); };
  return { writes: () => writes };
}

describe('nats write coalescing', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url, noAsyncTraces: true });
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });

  test('the send is replaced', () => {
    assert.equal(writeCoalescingPatched, true);
  });

  test('publishes from many callbacks of one turn go out in one write, in order', async () => {
    const got: string[] = [];
    const sub = nc.subscribe('order', { callback: (_err, msg) => got.push(new TextDecoder().decode(msg.data)) });
    await nc.flush();
    const { writes } = countWrites(nc);
    // Fifty callbacks of one turn (immediates queued together run in one check phase).
    await new Promise<void>((resolve) => {
      for (let i = 0; i < 50; i++) setImmediate(() => { nc.publish('order', new TextEncoder().encode(String(i))); if (i === 49) resolve(); });
    });
    await nc.flush();
    assert.ok(writes() <= 3, `${writes()} writes for 50 callbacks' publishes and a flush`);
    while (got.length < 50) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(got, Array.from({ length: 50 }, (_, i) => String(i)));
    sub.unsubscribe();
  });

  test('requests are answered and a drain delivers what was just published', async () => {
    nc.subscribe('echo', { callback: (_err, msg) => msg.respond(msg.data) });
    for (let i = 0; i < 20; i++) assert.equal(new TextDecoder().decode((await nc.request('echo', new TextEncoder().encode(`hi ${i}`))).data), `hi ${i}`);
    const other = await connect({ servers: server.url, noAsyncTraces: true });
    const got: string[] = [];
    nc.subscribe('last', { callback: (_err, msg) => got.push(new TextDecoder().decode(msg.data)) });
    await nc.flush();
    for (let i = 0; i < 10; i++) other.publish('last', new TextEncoder().encode(String(i)));
    await other.drain();
    await nc.flush();
    while (got.length < 10) await new Promise((r) => setTimeout(r, 10));
    assert.equal(got.length, 10);
  });
});
