// A monitor's run charges its key's monthly quota like any job: the scheduler with the
// gateway's plan limiter (key-usage read model in the embedded store, admission ledger on a
// real nats-server). A run past the quota makes no job and ends SKIPPED with the reason; a
// crawl run is granted what the quota leaves; a run whose job is already on the log (a
// restart) is not charged again.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
import { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { AdmissionLedger } from '../../../shared/src/infra/admission/ledger.js';
import { PlanLimiter } from '../../../shared/src/infra/admission/plan-limits.js';
import { MonitorScheduler } from '../../../services/crawler-frontier/src/monitors/scheduler.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

const T0 = Date.parse('2026-03-01T00:00:00.000Z');
const MONTH = '2026-03';

describe('monitor runs and the monthly quota', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  let store: SqliteStore;
  let dir: string;
  let scheduler: MonitorScheduler;
  let now = T0;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-monitor-quota-'));
    store = new SqliteStore(path.join(dir, 'rm.sqlite'));
    await store.init();
    const limiter = new PlanLimiter(store, new AdmissionLedger(nc.jetstream(), { now: () => now }), () => new Date(now), { concurrency: false, quota: true });
    scheduler = new MonitorScheduler({
      log, payloads: new PayloadStore(nc.jetstream(), PAYLOAD_BUCKET), newId, logger: createLogger('test', 'silent'), checkIntervalMs: 1000, clock: () => new Date(now),
      admit: async (keyId, need) => limiter.admit({ keyId, plan: (await store.apiKeys.get(keyId))!.plan }, need),
    });
  });
  after(async () => {
    await nc.close();
    await store.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function monitor(key: string, id: string, crawlLimit?: number): Promise<void> {
    await store.apiKeys.put({ id: key, keyHash: `hash-${key}`, plan: 'free', label: key, createdAt: new Date(T0).toISOString(), lastSeq: 1 });
    await log.append(makeEvent('monitor_created', { kind: 'monitor', id: key, part: id }, {
      apiKeyId: key, url: 'https://example.com/', scrapeOptions: normalizeScrapeOptions({ formats: ['changeTracking'], changeTrackingOptions: { tag: `monitor-${id}` } }),
      ...(crawlLimit ? { crawl: { maxDepth: 2, limit: crawlLimit, includePaths: [], excludePaths: [], allowExternalLinks: false, ignoreRobots: false } } : {}),
      schedule: { intervalSeconds: 60 }, webhookUrl: 'https://hooks.example.com/', notifyUnchanged: true, createdAt: new Date(T0).toISOString(),
    }, { eventId: newId(), now: new Date(T0) }), { once: true });
  }
  const events = (key: string, name: string): Promise<StoredEvent[]> =>
    log.read(`${SUBJECT_ROOT}.monitor.${key}.>`).then((all) => all.filter((e) => e.event === name));

  test('a scrape run past the quota makes no job, ends SKIPPED with QUOTA_EXCEEDED and sends no webhook', async () => {
    await monitor('keyFull', 'monitorFull0000000000A');
    await store.keyUsage.put({ id: 'keyFull', month: MONTH, pages: 500, activeJobs: {}, lastSeq: 1 });
    now = T0 + 61_000;
    await scheduler.pass();
    const runId = runIdOf('monitorFull0000000000A', new Date(T0 + 60_000).toISOString());
    assert.equal((await log.read(`${SUBJECT_ROOT}.scrape.${runId}.>`)).length, 0, 'no job for a refused run');
    const [finished] = await events('keyFull', 'monitor_run_finished');
    const data = finished?.data as { status: string; reason?: string; notified: boolean } | undefined;
    assert.equal(data?.status, 'SKIPPED');
    assert.match(data?.reason ?? '', /^QUOTA_EXCEEDED: the monthly quota of 500 pages of the free plan is used up/);
    assert.equal(data?.notified, false);
    assert.equal((await events('keyFull', 'webhook_requested')).length, 0, 'no webhook for a skipped run, even with notifyUnchanged');

    // With a page of the quota left, the next tick runs.
    await store.keyUsage.put({ id: 'keyFull', month: MONTH, pages: 499, activeJobs: {}, lastSeq: 2 });
    now = T0 + 121_000;
    await scheduler.pass();
    const next = runIdOf('monitorFull0000000000A', new Date(T0 + 120_000).toISOString());
    assert.equal((await log.read(`${SUBJECT_ROOT}.scrape.${next}.>`)).filter((e) => e.event === 'page_requested').length, 1, 'a run within the quota makes its job');
  });

  test('a crawl run is granted the pages the quota leaves; a job already on the log is not charged again', async () => {
    await monitor('keyCrawl', 'monitorCrawl000000000A', 50);
    await store.keyUsage.put({ id: 'keyCrawl', month: MONTH, pages: 480, activeJobs: {}, lastSeq: 1 });
    now = T0 + 61_000;
    await scheduler.pass();
    const runId = runIdOf('monitorCrawl000000000A', new Date(T0 + 60_000).toISOString());
    const [requested] = (await log.read(`${SUBJECT_ROOT}.crawl.${runId}.>`)).filter((e) => e.event === 'crawl_requested');
    assert.equal((requested?.data as { limit: number } | undefined)?.limit, 20, 'the crawl plans the 20 pages left, not its 50');

    // The quota is now used up, but this run's job is on the log: a scheduler that starts
    // again (a restart) follows it instead of skipping it.
    await store.keyUsage.put({ id: 'keyCrawl', month: MONTH, pages: 500, activeJobs: {}, lastSeq: 2 });
    const restarted = new MonitorScheduler({
      log, payloads: new PayloadStore(nc.jetstream(), PAYLOAD_BUCKET), newId, logger: createLogger('test', 'silent'), checkIntervalMs: 1000, clock: () => new Date(now),
      admit: async () => { throw new Error('a run whose job exists must not be admitted again'); },
    });
    await restarted.pass();
    assert.equal((await events('keyCrawl', 'monitor_run_finished')).length, 0, 'the run is still going, not skipped');
  });
});
