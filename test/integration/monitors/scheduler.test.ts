// The monitor scheduler against a real nats-server, as three replicas passing at the same
// moments (and a fourth started later, as after a restart): each due time is ticked once,
// each run's job is made once, each run ends once, and its webhook is requested once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { makeEvent, type StoredEvent } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { runIdOf } from '../../../shared/src/domain/monitors/decider.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { PAYLOAD_BUCKET, SUBJECT_ROOT } from '../../../shared/src/infra/subjects.js';
import { normalizeUrl, urlKeyHash } from '../../../shared/src/net/url-normalize.js';
import { MonitorScheduler } from '../../../services/crawler-frontier/src/monitors/scheduler.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const KEY = 'key1';
const MONITOR = 'monitor0000000000000A';
const URL_WATCHED = 'https://example.com/pricing';

describe('monitor scheduler, three replicas', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  let payloads: PayloadStore;
  let now = T0;
  const replica = (): MonitorScheduler => new MonitorScheduler({
    log, payloads, newId, logger: createLogger('test', 'silent'), checkIntervalMs: 1000, clock: () => new Date(now),
  });

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
    payloads = new PayloadStore(nc.jetstream(), PAYLOAD_BUCKET);
  });
  after(async () => {
    await nc.close();
    await server.stop();
  });

  const monitorEvents = async (): Promise<StoredEvent[]> => log.read(`${SUBJECT_ROOT}.monitor.${KEY}.>`);
  const count = (events: StoredEvent[], name: string): number => events.filter((e) => e.event === name).length;

  /** The run's scrape completes with this change-tracking report. */
  async function complete(runId: string, changeStatus: string, diff?: string): Promise<void> {
    const part = urlKeyHash(normalizeUrl(URL_WATCHED)!.key);
    const result = await payloads.putJson(`scrape/${runId}/${part}/result.json`, { changeTracking: { observed: true, changeStatus, previousScrapeAt: null, ...(diff ? { diff } : {}) } });
    await log.append(makeEvent('page_completed', { kind: 'scrape', id: runId, part }, {
      result, metadata: { title: 'Pricing', description: '' }, links: [],
      timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: new Date(now).toISOString(),
    }, { eventId: newId(), now: new Date(now) }), { once: true });
  }

  test('each tick, job, end and webhook once, whatever the replicas race; a replica started later repeats nothing', async () => {
    await log.append(makeEvent('monitor_created', { kind: 'monitor', id: KEY, part: MONITOR }, {
      apiKeyId: KEY, url: URL_WATCHED, scrapeOptions: normalizeScrapeOptions({ formats: ['changeTracking'], changeTrackingOptions: { tag: `monitor-${MONITOR}` } }),
      schedule: { intervalSeconds: 60 }, webhookUrl: 'https://hooks.example.com/', notifyUnchanged: false, createdAt: new Date(T0).toISOString(),
    }, { eventId: newId(), now: new Date(T0) }), { once: true });
    const replicas = [replica(), replica(), replica()];
    const allPass = async (times = 3): Promise<void> => { for (let i = 0; i < times; i++) await Promise.all(replicas.map((r) => r.pass())); };

    await allPass();
    assert.equal(count(await monitorEvents(), 'monitor_ticked'), 0, 'nothing due before the first minute');

    now = T0 + 61_000;
    await allPass();
    let events = await monitorEvents();
    assert.equal(count(events, 'monitor_ticked'), 1);
    const firstRun = runIdOf(MONITOR, new Date(T0 + 60_000).toISOString());
    const jobs = await log.read(`${SUBJECT_ROOT}.scrape.${firstRun}.>`);
    assert.equal(count(jobs, 'page_requested'), 1, 'the run\'s job, once');

    await complete(firstRun, 'new');
    await allPass();
    events = await monitorEvents();
    assert.equal(count(events, 'monitor_run_finished'), 1);
    assert.equal(count(events, 'webhook_requested'), 0, 'the first run is the baseline');

    // Three ticks later (missed ones are not made up): one run, for the newest due time.
    now = T0 + 185_000;
    await allPass();
    events = await monitorEvents();
    const ticks = events.filter((e) => e.event === 'monitor_ticked').map((e) => (e.data as { tick: string }).tick);
    assert.deepEqual(ticks, [new Date(T0 + 60_000).toISOString(), new Date(T0 + 180_000).toISOString()]);
    const secondRun = runIdOf(MONITOR, ticks[1]!);
    await complete(secondRun, 'changed', '--- previous\n+++ current\n@@ -1 +1 @@\n-$9\n+$12\n');
    await allPass();
    events = await monitorEvents();
    assert.equal(count(events, 'monitor_run_finished'), 2);
    const hooks = events.filter((e) => e.event === 'webhook_requested');
    assert.equal(hooks.length, 1);
    const body = JSON.parse((hooks[0]!.data as { body: string }).body);
    assert.equal(body.event, 'monitor.changed');
    assert.deepEqual(body.data.changed, [{ url: URL_WATCHED, changeStatus: 'changed', diff: '--- previous\n+++ current\n@@ -1 +1 @@\n-$9\n+$12\n' }]);

    // A replica that starts now (a restart) catches up from the log and repeats nothing.
    const late = replica();
    await late.pass();
    await late.pass();
    const after = await monitorEvents();
    assert.equal(after.length, events.length, 'nothing appended twice');

    // A revoked key's monitor never ticks.
    const other = 'monitor000000000000000B';
    await log.append(makeEvent('monitor_created', { kind: 'monitor', id: 'key2', part: other }, {
      apiKeyId: 'key2', url: URL_WATCHED, scrapeOptions: normalizeScrapeOptions({ formats: ['changeTracking'] }),
      schedule: { intervalSeconds: 60 }, webhookUrl: 'https://hooks.example.com/', notifyUnchanged: false, createdAt: new Date(T0).toISOString(),
    }, { eventId: newId(), now: new Date(T0) }), { once: true });
    await log.append(makeEvent('key_revoked', { kind: 'apikey', id: 'key2', part: 'key' }, { revokedAt: new Date(now).toISOString() }, { eventId: newId(), now: new Date(now) }), { once: true });
    await allPass();
    assert.equal(count(await log.read(`${SUBJECT_ROOT}.monitor.key2.>`), 'monitor_ticked'), 0, 'a revoked key\'s monitor does not run');

    // Deleted: no tick any more.
    await log.append(makeEvent('monitor_deleted', { kind: 'monitor', id: KEY, part: MONITOR }, { deletedAt: new Date(now).toISOString() }, { eventId: newId(), now: new Date(now) }), { once: true });
    now = T0 + 600_000;
    await allPass();
    assert.equal(count(await monitorEvents(), 'monitor_ticked'), 2);
  });
});
