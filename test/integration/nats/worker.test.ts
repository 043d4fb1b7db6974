// The shared worker loop against a real nats-server: bounded concurrency, retries with
// backoff, giving up with a recorded failure, poison messages, crash loops and draining, and
// a NATS outage run through in place without spending the message's attempts.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { BrowserError, PageTimeoutError, type TrawlError } from '../../../shared/src/domain/errors.js';
import { makeEvent, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { registry } from '../../../shared/src/infra/metrics.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { ConsumerWorker, type WorkerOptions } from '../../../shared/src/infra/nats/worker.js';
import { eventFilter, STREAM_NAME } from '../../../shared/src/infra/subjects.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const logger = createLogger('test', 'silent');
const now = new Date();
let counter = 0;
/** The JetStream request timeout of the worker whose consumer lookup meets an outage. */
const LOOKUP_TIMEOUT_MS = 1_000;

/** A metric's value for the sample whose labels include `labels` (0 when absent). */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const found = await registry.getSingleMetric(name)?.get();
  const value = found?.values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return value?.value ?? 0;
}

describe('consumer worker', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let log: EventLog;
  let durable: string;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });
  // Each test works on its own event name's messages via its own job ids and durable.
  beforeEach(() => { durable = `w${++counter}`; });

  async function publishStarted(n: number, prefix: string): Promise<void> {
    for (let i = 0; i < n; i++) {
      await log.append(makeEvent('page_started', { kind: 'batch', id: `${prefix}${i}`, part: 'p' }, { attempt: 1, startedAt: now.toISOString(), worker: 'x' }, { eventId: `${prefix}-${i}`, now }));
    }
  }

  function worker(opts: Partial<WorkerOptions> & Pick<WorkerOptions, 'handle'>, _label: string): ConsumerWorker {
    return new ConsumerWorker({
      js: nc.jetstream(), jsm, logger, durable, concurrency: 2, ackWaitMs: 2000, maxDeliver: 3,
      filterSubject: eventFilter('page_started'),
      ...opts,
    });
  }

  test('never runs more handlers at once than its concurrency, and processes everything once', async () => {
    const seen = new Map<string, number>();
    let running = 0;
    let peak = 0;
    const w = worker({
      deliverNewOnly: true,
      handle: async (e) => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 30));
        seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
        running--;
      },
    }, 'c');
    await w.start();
    await publishStarted(10, 'conc');
    await until(() => seen.size === 10);
    await w.stop();
    assert.ok(peak <= 2, `peak ${peak}`);
    assert.ok([...seen.values()].every((n) => n === 1));
  });

  test('an event the worker ignores by its subject is acked without running the handler, and not delivered again', async () => {
    const handled: string[] = [];
    const w = worker({
      deliverNewOnly: true,
      filterSubject: 'trawl.batch.>',
      ignores: (subject) => !subject.endsWith('.page_started'),
      handle: async (e) => { handled.push(`${e.id}.${e.event}`); },
    }, 'i');
    await w.start();
    const before = await metric('trawl_messages_handled_total', { consumer: durable, outcome: 'ignored' });
    await log.append(makeEvent('page_failed', { kind: 'batch', id: 'ign0', part: 'p' }, { error: { code: 'PAGE_TIMEOUT', message: 'x' }, failedAt: now.toISOString(), attempt: 1 }, { eventId: 'ign-f', now }));
    await publishStarted(1, 'ign');
    await until(() => handled.length === 1);
    await until(async () => (await metric('trawl_messages_handled_total', { consumer: durable, outcome: 'ignored' })) === before + 1);
    await until(async () => (await jsm.consumers.info(STREAM_NAME, durable)).num_ack_pending === 0);
    await w.stop();
    assert.deepEqual(handled, ['ign0.page_started']);
  });

  test('a retryable error is retried, then succeeds', async () => {
    let calls = 0;
    let done = false;
    const w = worker({
      deliverNewOnly: true,
      handle: async () => {
        calls++;
        if (calls === 1) throw new BrowserError('crashed');
        done = true;
      },
    }, 'r');
    await w.start();
    await publishStarted(1, 'retry');
    await until(() => done);
    await w.stop();
    assert.equal(calls, 2);
    // The metrics tell the same story: one retry, one ack, one redelivery, nothing in flight.
    assert.equal(await metric('trawl_messages_handled_total', { consumer: durable, outcome: 'retry' }), 1);
    assert.equal(await metric('trawl_messages_handled_total', { consumer: durable, outcome: 'ack' }), 1);
    assert.equal(await metric('trawl_messages_redelivered_total', { consumer: durable }), 1);
    assert.equal(await metric('trawl_messages_in_flight', { consumer: durable }), 0);
  });

  test('a handler failing because NATS is unavailable runs again in place, past maxDeliver, without a redelivery', async () => {
    const givenUp: TrawlError[] = [];
    let calls = 0;
    let done = false;
    const w = worker({
      deliverNewOnly: true,
      handle: async () => {
        calls++;
        // A real "no responders" from the server, as while a stream elects a leader.
        if (calls <= 4) await nc.request(`nobody.home.${durable}`, new Uint8Array(), { timeout: 1_000 });
        done = true;
      },
      giveUp: async (_e: StoredEvent, err: TrawlError) => { givenUp.push(err); },
    }, 'o');
    await w.start();
    await publishStarted(1, 'outage');
    await until(() => done || givenUp.length > 0, { timeoutMs: 30_000 });
    await w.stop();
    assert.deepEqual(givenUp.map((e) => e.message), [], 'not given up');
    assert.equal(calls, 5);
    assert.equal(await metric('trawl_message_outage_retries_total', { consumer: durable }), 4);
    assert.equal(await metric('trawl_messages_redelivered_total', { consumer: durable }), 0);
    assert.equal(await metric('trawl_messages_handled_total', { consumer: durable, outcome: 'ack' }), 1);
  });

  test('a non-retryable error gives up at once and records the failure', async () => {
    const givenUp: TrawlError[] = [];
    let calls = 0;
    const w = worker({
      deliverNewOnly: true,
      handle: async () => { calls++; throw new PageTimeoutError('too slow'); },
      giveUp: async (_e: StoredEvent, err: TrawlError) => { givenUp.push(err); },
    }, 'n');
    await w.start();
    await publishStarted(1, 'nonretry');
    await until(() => givenUp.length === 1);
    await new Promise((r) => setTimeout(r, 300));
    await w.stop();
    assert.equal(calls, 1);
    assert.equal(givenUp[0]?.code, 'PAGE_TIMEOUT');
    assert.equal(await metric('trawl_messages_handled_total', { consumer: durable, outcome: 'gave_up' }), 1);
  });

  test('a message whose handler never finishes is given up after maxDeliver deliveries', async () => {
    const givenUp: TrawlError[] = [];
    let calls = 0;
    const w = worker({
      deliverNewOnly: true,
      ackWaitMs: 1000,
      maxDeliver: 2,
      // Simulates a worker that dies mid-message: the deadline aborts, nothing is acked.
      handlerTimeoutMs: 60_000,
      handle: async (_e, ctx) => { calls++; await new Promise((r) => ctx.signal.addEventListener('abort', r)); throw new Error('aborted'); },
      giveUp: async (_e: StoredEvent, err: TrawlError) => { givenUp.push(err); },
    }, 'h');
    await w.start();
    await publishStarted(1, 'hang');
    await until(() => calls === 1);
    // The replica that takes over is running when the first one stops, as in production: a
    // redelivery that finds no pull request open makes nats-server 2.9 step the consumer's
    // cursor back and resend the message as delivery 1 (nats-io/nats-server#5305; see
    // settled-sequences.ts), which would run it a second time here. Only hang0's runs count.
    const others: string[] = [];
    const w2 = worker({
      deliverNewOnly: true, maxDeliver: 1,
      handle: async (e) => { if (e.id === 'hang0') calls++; else others.push(e.id); },
      giveUp: async (_e: StoredEvent, err: TrawlError) => { givenUp.push(err); },
    }, 'h');
    await w2.start();
    await w.stop(0); // abandons the message (nak) like a shutdown
    await until(() => givenUp.length === 1 || calls === 2);
    await w2.stop();
    assert.equal(givenUp.length, 1, `the second delivery exceeds maxDeliver=1 and is given up unrun (also ran: ${others.join(', ')})`);
    assert.equal(calls, 1);
  });

  test('a handler that runs past ackWait is kept by the heartbeat: delivered once', async () => {
    // The one heartbeat of a long page (the fetcher has no timer of its own).
    const deliveries: number[] = [];
    let done = false;
    const w = worker({
      deliverNewOnly: true, ackWaitMs: 3000,
      handle: async (_e, ctx) => { deliveries.push(ctx.deliveryCount); await new Promise((r) => setTimeout(r, 5000)); done = true; },
    }, 'h');
    await w.start();
    await publishStarted(1, 'beat');
    await until(() => done, { timeoutMs: 15_000 });
    await new Promise((r) => setTimeout(r, 500));
    await w.stop();
    assert.deepEqual(deliveries, [1]);
  });

  test('a handler deaf to its deadline is abandoned: its message settled as at the deadline, its slot freed, no heartbeat keeping it', async () => {
    // Before, a handler that never returned kept its message by heartbeat and its slot for
    // good: the other replicas never saw the message.
    const handled: string[] = [];
    const w = worker({
      deliverNewOnly: true, concurrency: 1, handlerTimeoutMs: 300, abandonAfterMs: 100,
      handle: async (e, ctx) => { handled.push(`${e.id}:${ctx.deliveryCount}`); if (ctx.deliveryCount === 1 && e.id === 'deaf0') await new Promise(() => undefined); },
    }, 'a');
    await w.start();
    await publishStarted(2, 'deaf');
    await until(() => handled.length === 3, { timeoutMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    await w.stop();
    // nats-server 2.9 may fail the retry's first delivery (its pull request expiring as the
    // retry falls due): it then counts that delivery, so the retry runs as delivery 3 after
    // its ack wait, and it sends the next, settled message again as new (settled-sequences.ts).
    const [first, retry, next, ...more] = handled.sort();
    assert.deepEqual([first, next, more], ['deaf0:1', 'deaf1:1', []], `the next message had the slot and ran once: ${handled.join(', ')}`);
    assert.match(retry ?? '', /^deaf0:[23]$/, 'the abandoned one came back (a retry, as at its deadline)');
  });

  test('stop() hands in-flight messages back so another worker completes them', async () => {
    const finished: string[] = [];
    const slow = worker({
      deliverNewOnly: true,
      handle: async (_e, ctx) => { await new Promise((r, j) => { const t = setTimeout(r, 30_000); ctx.signal.addEventListener('abort', () => { clearTimeout(t); j(new Error('aborted')); }); }); },
    }, 'd');
    await slow.start();
    await publishStarted(2, 'drain');
    await new Promise((r) => setTimeout(r, 300));
    await slow.stop(100);
    const fast = worker({ handle: async (e) => { finished.push(e.id); } }, 'd');
    await fast.start();
    await until(() => finished.length === 2);
    await fast.stop();
    assert.deepEqual(finished.sort(), ['drain0', 'drain1']);
  });

  test('a message redelivered while this process still handles it waits for that delivery: never two runs at once', async () => {
    // The event loop blocked past the ack wait: no heartbeat goes out, and the server hands
    // the message out again while its first run is still going (as when a consumer's leader
    // dies with the heartbeats and the ack).
    const runs: { delivery: number; startedAt: number; endedAt?: number }[] = [];
    const w = worker({
      deliverNewOnly: true, ackWaitMs: 1000, concurrency: 2,
      handle: async (_e, ctx) => {
        const run: { delivery: number; startedAt: number; endedAt?: number } = { delivery: ctx.deliveryCount, startedAt: Date.now() };
        runs.push(run);
        if (ctx.deliveryCount === 1) {
          const blockedUntil = Date.now() + 3000;
          while (Date.now() < blockedUntil) { /* no timers run: no heartbeat */ }
          await new Promise((r) => setTimeout(r, 2000));
        }
        run.endedAt = Date.now();
      },
    }, 'r');
    await w.start();
    await publishStarted(1, 'again');
    await until(() => runs.length >= 2 && runs.every((r) => r.endedAt !== undefined), { timeoutMs: 20_000 });
    await w.stop();
    const [first, second] = runs;
    assert.ok(second!.delivery > 1, 'the message was redelivered');
    assert.ok(second!.startedAt >= first!.endedAt!, `the redelivery ran ${first!.endedAt! - second!.startedAt} ms before the first delivery ended`);
  });

  test('a consumer lookup that meets an outage just after start is tried again: the worker pulls once NATS answers', async () => {
    const handled: string[] = [];
    // Its JetStream requests time out after 1 s (5 s by default), so that the outage outlasts
    // the lookup's timeout in 1.5 s, not 6.
    const w = worker({ js: nc.jetstream({ timeout: LOOKUP_TIMEOUT_MS }), handle: async (e) => { handled.push(e.id); } }, 'lookup');
    await w.start();
    // The loop's consumer lookup, sent as start() returns, goes unanswered past its timeout
    // (before, that ended the loop for good, its rejection unhandled).
    server.signal('SIGSTOP');
    try {
      await new Promise((r) => setTimeout(r, LOOKUP_TIMEOUT_MS * 1.5));
    } finally {
      server.signal('SIGCONT');
    }
    try {
      await publishStarted(1, 'lookup');
      await until(() => handled.includes('lookup0'), { timeoutMs: 15_000, intervalMs: 100 });
    } finally {
      await w.stop();
    }
  });
});
