// The webhook-dispatcher against a real nats-server and a local receiver: signed delivery,
// retries as JetStream redeliveries with the (short, test) schedule, every attempt in the
// log, abandonment, a dispatcher restart in the middle of the schedule, and signing
// around a secret rotation (both secrets within the grace period, the new one after it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type JetStreamManager, type NatsConnection } from 'nats';
import { Webhook } from 'standardwebhooks';
import { KEY_PART, makeEvent, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { parseCidrList } from '../../../shared/src/net/url-safety.js';
import { deriveWebhookSecret, loadServerSecret, nextRotation, readLastRotation, webhookSecretOf } from '../../../shared/src/domain/webhooks.js';
import { createWebhookDispatcher } from '../../../services/webhook-dispatcher/src/worker.js';
import { jobWebhookBody } from '../../../services/crawler-frontier/src/crawl/decider.js';
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
    hooks = await startWebhookReceiver(['/twice', '/always', '/restart', '/once', '/grace', '/expired', '/between'], 503);
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

  async function request(path: string, apiKeyId = 'key-1'): Promise<{ crawlId: string; body: string }> {
    const crawlId = newId();
    const body = jobWebhookBody('crawl.completed', { id: crawlId, status: 'COMPLETED', startUrl: 'https://x.test/', totalUrls: 2, completedUrls: 2, failedUrls: 0 }, new Date().toISOString());
    await log.append(makeEvent('webhook_requested', { kind: 'crawl', id: crawlId, part: 'webhook' }, {
      url: hooks.url(path), type: 'crawl.completed', body, webhookId: `msg_${crawlId}`, apiKeyId, requestedAt: new Date().toISOString(),
    }, { eventId: newId(), now: new Date() }), { once: true });
    return { crawlId, body };
  }

  /** Records a rotation of the key's secret as the gateway does: the next generation, made at `at`. */
  async function rotate(apiKeyId: string, at: Date, graceSeconds: number): Promise<void> {
    const last = await readLastRotation(log, apiKeyId);
    await log.append(makeEvent('webhook_secret_rotated', { kind: 'apikey', id: apiKeyId, part: KEY_PART },
      nextRotation(last?.rotation ?? null, at, graceSeconds), { eventId: newId(), now: at }), { expectedLastSubjectSequence: last?.seq ?? 0 });
  }

  /** What a receiver holding `secret` concludes: true when the delivery verifies. */
  const verifies = (secret: string, hook: { body: string; headers: Record<string, string> }): boolean => {
    try {
      new Webhook(secret).verify(hook.body, hook.headers);
      return true;
    } catch {
      return false;
    }
  };

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

  test('within the grace period of a rotation, a receiver holding the old or the new secret verifies', async () => {
    await rotate('key-grace', new Date(), 3600);
    const worker = dispatcher([100]);
    await worker.start();
    try {
      const { crawlId } = await request('/grace', 'key-grace');
      await waitFor(crawlId, 'webhook_delivered');
      const [hook] = hooks.received.get('/grace')!;
      assert.equal(hook!.headers['webhook-signature']!.split(' ').length, 2, 'one v1 signature per secret');
      const [previous, current, next] = [0, 1, 2].map((g) => webhookSecretOf(serverSecret, 'key-grace', g)) as [string, string, string];
      assert.equal(previous, deriveWebhookSecret(serverSecret, 'key-grace'));
      assert.deepEqual([verifies(current, hook!), verifies(previous, hook!), verifies(next, hook!)], [true, true, false]);
    } finally {
      await worker.stop();
    }
  });

  test('after the grace period only the new secret verifies', async () => {
    // Rotated two hours ago with one hour of grace.
    await rotate('key-expired', new Date(Date.now() - 2 * 3600_000), 3600);
    const worker = dispatcher([100]);
    await worker.start();
    try {
      const { crawlId } = await request('/expired', 'key-expired');
      await waitFor(crawlId, 'webhook_delivered');
      const [hook] = hooks.received.get('/expired')!;
      assert.equal(hook!.headers['webhook-signature']!.split(' ').length, 1);
      assert.equal(verifies(webhookSecretOf(serverSecret, 'key-expired', 1), hook!), true);
      assert.equal(verifies(webhookSecretOf(serverSecret, 'key-expired', 0), hook!), false);
    } finally {
      await worker.stop();
    }
  });

  test('a retry after a rotation is signed with the new secret (the generation is read at every attempt)', async () => {
    hooks.failFirst.set('/between', 1);
    const worker = dispatcher([1000]);
    await worker.start();
    try {
      const { crawlId } = await request('/between', 'key-between');
      const deadline = Date.now() + 10_000;
      while ((hooks.received.get('/between')?.length ?? 0) < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      await rotate('key-between', new Date(), 0); // no grace: the old secret stops at once
      await waitFor(crawlId, 'webhook_delivered');
      const [first, second] = hooks.received.get('/between')!;
      const [old, fresh] = [0, 1].map((g) => webhookSecretOf(serverSecret, 'key-between', g)) as [string, string];
      assert.deepEqual([verifies(old, first!), verifies(fresh, first!)], [true, false], 'before the rotation: the old secret');
      assert.deepEqual([verifies(old, second!), verifies(fresh, second!)], [false, true], 'after it: the new one only');
    } finally {
      await worker.stop();
    }
  });

  test('the server secret is generated once and shared through the KV bucket, unless configured', async () => {
    assert.equal(await loadServerSecret(nc.jetstream(), undefined), serverSecret);
    assert.equal(await loadServerSecret(nc.jetstream(), 'x'.repeat(32)), 'x'.repeat(32), 'a configured secret wins');
  });
});
