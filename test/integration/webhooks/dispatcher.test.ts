// The webhook-dispatcher against a real nats-server and a local receiver: signed delivery,
// retries as JetStream redeliveries with the (short, test) schedule, every attempt in the
// log, abandonment, and a dispatcher restart in the middle of the schedule.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { Webhook } from 'standardwebhooks';
import { makeEvent, type StoredEvent } from '../../../shared/src/events/index.js';
import { newId } from '../../../shared/src/ids.js';
import { createLogger } from '../../../shared/src/logger.js';
import { EventLog } from '../../../shared/src/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/nats/infrastructure.js';
import { parseCidrList } from '../../../shared/src/url-safety.js';
import { deriveWebhookSecret, loadServerSecret } from '../../../shared/src/webhooks.js';
import { createWebhookDispatcher } from '../../../services/webhook-dispatcher/src/worker.js';
import { crawlWebhookBody } from '../../../services/crawler-frontier/src/crawl/decider.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver.js';


const LOCAL = parseCidrList('127.0.0.0/8');
const logger = createLogger('test-dispatcher', 'silent');

describe('webhook dispatcher', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  let jsm: JetStreamManager;
  let hooks: WebhookReceiver;
  let serverSecret: string;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
    serverSecret = await loadServerSecret(nc.jetstream(), undefined);
    hooks = await startWebhookReceiver(['/twice', '/always', '/restart', '/once'], 503);
  });
  after(async () => {
    await hooks.close();
    await nc.close();
    await server.stop();
  });

  const dispatcher = (schedule: number[]) => {
    const js = nc.jetstream();
    return createWebhookDispatcher({
      js, jsm, log, logger, serverSecret, allow: LOCAL,
      settings: { retryScheduleMs: schedule, attemptTimeoutMs: 2000 },
    });
  };

  async function request(path: string): Promise<{ crawlId: string; body: string }> {
    const crawlId = newId();
    const body = crawlWebhookBody('crawl.completed', { id: crawlId, status: 'COMPLETED', startUrl: 'https://x.test/', totalUrls: 2, completedUrls: 2, failedUrls: 0 }, new Date().toISOString());
    await log.append(makeEvent('webhook_requested', { kind: 'crawl', id: crawlId, part: 'webhook' }, {
      url: hooks.url(path), type: 'crawl.completed', body, webhookId: `msg_${crawlId}`, apiKeyId: 'key-1', requestedAt: new Date().toISOString(),
    }, { eventId: newId(), now: new Date() }), { once: true });
    return { crawlId, body };
  }

  async function waitFor(crawlId: string, event: string, timeoutMs = 15_000): Promise<StoredEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const history = await log.history('crawl', crawlId);
      if (history.some((e) => e.event === event)) return history;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no ${event} for ${crawlId}`);
  }

  test('a receiver failing twice then succeeding gets three signed attempts with one webhook-id', async () => {
    hooks.failFirst.set('/twice', 2);
    const worker = dispatcher([200, 200, 200]);
    await worker.start();
    try {
      const { crawlId, body } = await request('/twice');
      const history = await waitFor(crawlId, 'webhook_delivered');
      const attempts = history.filter((e) => e.event === 'webhook_attempted').map((e) => e.data as { attempt: number; status?: number; nextAttemptInMs?: number });
      assert.deepEqual(attempts.map((a) => [a.attempt, a.status, a.nextAttemptInMs]), [[1, 503, 200], [2, 503, 200], [3, 200, undefined]]);
      const got = hooks.received.get('/twice')!;
      assert.equal(got.length, 3);
      assert.equal(new Set(got.map((r) => r.headers['webhook-id'])).size, 1);
      assert.equal(got[0]!.headers['webhook-id'], `msg_${crawlId}`);
      const wh = new Webhook(deriveWebhookSecret(serverSecret, 'key-1'));
      for (const r of got) {
        assert.equal(r.body, body);
        assert.deepEqual(wh.verify(r.body, r.headers), JSON.parse(body));
      }
    } finally {
      await worker.stop();
    }
  });

  test('a receiver that always fails is abandoned after the schedule, every attempt recorded', async () => {
    hooks.failFirst.set('/always', 1000);
    const worker = dispatcher([100, 100]);
    await worker.start();
    try {
      const { crawlId } = await request('/always');
      const history = await waitFor(crawlId, 'webhook_abandoned');
      assert.equal(history.filter((e) => e.event === 'webhook_attempted').length, 3);
      const abandoned = history.find((e) => e.event === 'webhook_abandoned')!.data as { attempts: number; reason: string };
      assert.deepEqual(abandoned, { ...abandoned, attempts: 3, reason: '3 attempts failed; last: HTTP 503' });
      assert.equal(hooks.received.get('/always')!.length, 3);
    } finally {
      await worker.stop();
    }
  });

  test('the schedule survives a dispatcher restart (JetStream redelivery, no timers in memory)', async () => {
    hooks.failFirst.set('/restart', 1);
    const first = dispatcher([1500]);
    await first.start();
    const { crawlId } = await request('/restart');
    const deadline = Date.now() + 10_000;
    while ((hooks.received.get('/restart')?.length ?? 0) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await first.stop();
    const second = dispatcher([1500]);
    await second.start();
    try {
      const history = await waitFor(crawlId, 'webhook_delivered');
      assert.equal(history.filter((e) => e.event === 'webhook_attempted').length, 2);
      assert.equal(hooks.received.get('/restart')!.length, 2);
    } finally {
      await second.stop();
    }
  });

  test('a delivered webhook is sent exactly once', async () => {
    const worker = dispatcher([100]);
    await worker.start();
    try {
      const { crawlId } = await request('/once');
      await waitFor(crawlId, 'webhook_delivered');
      assert.equal(hooks.received.get('/once')!.length, 1);
    } finally {
      await worker.stop();
    }
  });

  test('the server secret is generated once and shared through the KV bucket, unless configured', async () => {
    assert.equal(await loadServerSecret(nc.jetstream(), undefined), serverSecret);
    assert.equal(await loadServerSecret(nc.jetstream(), 'x'.repeat(32)), 'x'.repeat(32), 'a configured secret wins');
  });
});
