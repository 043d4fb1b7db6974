// Every request's end against a real nats-server, with nats.js's answer handler replaced
// (shared/src/infra/nats/request-end.ts): answered requests build no error at all (nats.js
// 2.29 built a NatsError per request to reject a promise already resolved), and requests
// that fail still fail as before: no responders, a timeout, a connection closed meanwhile.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { AckPolicy, connect, type NatsConnection } from 'nats';
import { lazyTimeoutsPatched } from '../../../shared/src/infra/nats/lazy-timeouts.js';
import { requestEndPatched } from '../../../shared/src/infra/nats/request-end.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

const require = createRequire(import.meta.url);
const { NatsError } = require('nats/lib/nats-base-client/core.js') as { NatsError: { errorForCode: (...a: unknown[]) => unknown } };

/** The suite's own nats-server and connection, counting the NatsErrors built meanwhile (`made`, reset at will). */
function withErrorCount(): { server: NatsServerHandle; nc: NatsConnection; made: number } {
  const ctx = { made: 0 } as { server: NatsServerHandle; nc: NatsConnection; made: number };
  const errorForCode = NatsError.errorForCode;
  before(async () => {
    ctx.server = await startNatsServer();
    ctx.nc = await connect({ servers: ctx.server.url, noAsyncTraces: true });
    NatsError.errorForCode = (...args: unknown[]) => { ctx.made++; return errorForCode.apply(NatsError, args); };
  });
  after(async () => {
    NatsError.errorForCode = errorForCode;
    await ctx.nc.close();
    await ctx.server.stop();
  });
  return ctx;
}

describe('request ends', () => {
  const nats = withErrorCount();

  test('the answer handler is replaced', () => {
    assert.equal(requestEndPatched, true);
  });

  test('answered requests (publish acks, direct gets, plain requests) build no error', async () => {
    const jsm = await nats.nc.jetstreamManager();
    await jsm.streams.add({ name: 'ENDS', subjects: ['ends.>'], allow_direct: true });
    const js = nats.nc.jetstream();
    nats.nc.subscribe('echo', { callback: (_err, msg) => msg.respond(msg.data) });
    nats.made = 0;
    for (let i = 0; i < 20; i++) {
      const ack = await js.publish(`ends.${i}`, new TextEncoder().encode(String(i)));
      assert.equal(ack.seq, i + 1);
      const got = await jsm.streams.getMessage('ENDS', { last_by_subj: `ends.${i}` });
      assert.equal(new TextDecoder().decode(got.data), String(i));
      assert.equal(new TextDecoder().decode((await nats.nc.request('echo', new TextEncoder().encode('hi'))).data), 'hi');
    }
    assert.equal(nats.made, 0, `${nats.made} errors built for 60 answered requests`);
  });

  test('failed requests still fail: no responders, a timeout, a connection closed meanwhile', async () => {
    await assert.rejects(nats.nc.request('nobody.listens'), (err: { code?: string }) => err.code === '503');
    nats.nc.subscribe('silent', { callback: () => undefined });
    await assert.rejects(nats.nc.request('silent', undefined, { timeout: 100 }), (err: { code?: string }) => err.code === 'TIMEOUT');
    const other = await connect({ servers: nats.server.url, noAsyncTraces: true });
    other.subscribe('slow', { callback: () => undefined });
    const pending = other.request('slow', undefined, { timeout: 5_000 });
    await other.close();
    await assert.rejects(pending);
  });
});

describe('pull timeouts', () => {
  const nats = withErrorCount();

  test('a pull consumer\'s fetches build no error in advance, and still get their messages and end when they expire', async () => {
    const jsm = await nats.nc.jetstreamManager();
    await jsm.streams.add({ name: 'PULLS', subjects: ['pulls.>'] });
    await jsm.consumers.add('PULLS', { durable_name: 'w', ack_policy: AckPolicy.Explicit });
    const js = nats.nc.jetstream();
    for (let i = 0; i < 10; i++) await js.publish(`pulls.${i}`, new TextEncoder().encode(String(i)));
    const consumer = await js.consumers.get('PULLS', 'w');
    nats.made = 0;
    let got = 0;
    for (let i = 0; i < 10; i++) {
      for await (const m of await consumer.fetch({ max_messages: 1, expires: 1000 })) { m.ack(); got++; }
    }
    assert.equal(got, 10);
    assert.equal(nats.made, 0, `${nats.made} errors built for 10 pulls`);
    const empty = await consumer.fetch({ max_messages: 1, expires: 1000 });
    let none = 0;
    for await (const m of empty) { m.ack(); none++; }
    assert.equal(none, 0);
    assert.equal(lazyTimeoutsPatched, true);
  });
});
