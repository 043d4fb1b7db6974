// A pull whose event loop was blocked past its expiry still gets the messages the server
// sent it in time (shared/src/infra/nats/pull-expiry.ts). The test pulls, then blocks in an
// immediate callback (as a worker does in an I/O callback: a Chromium launch, a large
// module loaded); a worker thread, whose loop runs on, publishes meanwhile, so the message
// waits in the socket while the pull's client-side timer comes due. On nats.js's own timer
// the next turn ran the timer first: the pull unsubscribed, then dropped the message, which
// came back only after its ack wait.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { AckPolicy } from 'nats';
import { pullExpiryPatched } from '../../../shared/src/infra/nats/pull-expiry.js';
import { natsPerSuite } from '../../support/nats-server.js';

/**
 * A thread of its own, connected, that publishes `subject` `delayMs` after it is told to:
 * its event loop runs on while the test's is blocked.
 */
async function publisherThread(url: string, subject: string, delayMs: number): Promise<{ go(): void; done: Promise<unknown> }> {
  const worker = new Worker(`
    const { workerData, parentPort } = require('node:worker_threads');
    const { connect } = require('nats');
    (async () => {
      const nc = await connect({ servers: workerData.url });
      parentPort.once('message', () => setTimeout(async () => {
        await nc.jetstream().publish(workerData.subject, new TextEncoder().encode('late'));
        await nc.close();
      }, workerData.delayMs));
      parentPort.postMessage('ready');
    })();
  `, { eval: true, workerData: { url, subject, delayMs } });
  const done = new Promise((resolve, reject) => { worker.once('exit', resolve); worker.once('error', reject); });
  await Promise.race([new Promise((r) => worker.once('message', r)), done]);
  return { go: () => worker.postMessage('go'), done };
}

describe('pull expiry', () => {
  const nats = natsPerSuite();

  test('a message sent in time to a pull whose event loop was blocked past its expiry is read, not left to its ack wait', async () => {
    assert.equal(pullExpiryPatched, true);
    const jsm = await nats.nc.jetstreamManager();
    await jsm.streams.add({ name: 'LATE', subjects: ['late.>'] });
    await jsm.consumers.add('LATE', { durable_name: 'w', ack_policy: AckPolicy.Explicit, ack_wait: 60_000_000_000 });
    const consumer = await nats.nc.jetstream().consumers.get('LATE', 'w');
    for (let round = 1; round <= 3; round++) {
      const publisher = await publisherThread(nats.server.url, `late.${round}`, 100);
      const batch = await consumer.fetch({ max_messages: 1, expires: 1000 });
      // Read as the worker loop does: the pull request goes out when the reading starts.
      const got: string[] = [];
      const reading = (async () => {
        for await (const m of batch) { got.push(new TextDecoder().decode(m.data)); await m.ackAck(); }
      })();
      publisher.go();
      // Then blocked past the pull's end (1,050 ms on the client) in an immediate callback:
      // no timer runs and no socket is read until the loop's next turn.
      await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setImmediate(r));
      const until = Date.now() + 1_600;
      while (Date.now() < until) { /* a long synchronous task */ }
      await reading;
      await publisher.done;
      assert.deepEqual(got, ['late'], `round ${round}: the message the server sent during the block`);
      const info = await jsm.consumers.info('LATE', 'w');
      assert.equal(info.num_ack_pending, 0, `round ${round}: nothing left to its ack wait`);
      assert.equal(info.num_pending, 0);
    }
  });
});
