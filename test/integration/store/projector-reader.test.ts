// The projector service on a real nats-server and SQLite store, one replica holding every
// partition: the log is read once for all of them (one consumer, each event delivered once),
// each partition still folds its own models, checkpoints and announces to the last event,
// and a projector started again from the checkpoints applies the next events and nothing twice;
// a restart of the reader (a lease won or lost) while a partition waits out a lapsed lease
// does not wait for that partition.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { modelsOf } from '../../../services/projector/src/partitions.js';
import { Projector } from '../../../services/projector/src/projector.js';
import { READ_MODELS } from '../../../services/projector/src/read-models/index.js';
import { ProjectionReader } from '../../../services/projector/src/reader.js';
import { startProjector } from '../../../services/projector/src/service.js';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { loadConfig, type Config } from '../../../shared/src/infra/config.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { connectService, type RunningService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { decodeNotice } from '../../../shared/src/infra/projection-notice.js';
import { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { PROJECTED_SUBJECT, PROJECTION_PARTITIONS, STREAM_NAME, partitionCheckpoint } from '../../../shared/src/infra/subjects.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const KEYS = 120;

describe('projector reader', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let ctx: ServiceContext;
  let config: Config;
  let log: EventLog;
  let dir: string;
  let running: RunningService | undefined;
  const noticed = new Map<string, number>();

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-projector-reader-'));
    config = loadConfig({ NATS_URL: server.url, DATA_DIR: dir, INSTANCE_ID: 'projector-reader-test' });
    ctx = await connectService('projector', config, createLogger('projector-reader-test', 'silent'));
    log = ctx.log;
    nc = await connect({ servers: server.url });
    nc.subscribe(PROJECTED_SUBJECT, {
      callback: (_err, msg) => {
        const n = decodeNotice(msg);
        noticed.set(n.partition ?? 'all', Math.max(noticed.get(n.partition ?? 'all') ?? 0, n.seq));
      },
    });
  });

  after(async () => {
    await running?.stop();
    await nc?.close();
    await ctx?.nc.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const appendKeys = async (from: number, count: number): Promise<number> => {
    const now = new Date('2026-11-27T05:00:00.000Z');
    const appends = [];
    for (let i = from; i < from + count; i++) {
      const id = `${i}`.padStart(20, '0');
      appends.push(log.append(makeEvent('key_created', { kind: 'apikey', id, part: 'key' }, { keyHash: 'd'.repeat(64), plan: 'free', label: `k${i}`, createdAt: now.toISOString() }, { eventId: `r${i}`, now })));
    }
    return Math.max(...(await Promise.all(appends)).map((r) => r.seq));
  };

  const checkpointsAt = async (store: SqliteStore, seq: number): Promise<boolean> => {
    for (const p of PROJECTION_PARTITIONS) if ((await store.getCheckpoint(partitionCheckpoint(p))) !== seq) return false;
    return true;
  };

  test('one consumer delivers each event once to every partition held', async () => {
    running = await startProjector(ctx);
    const last = await appendKeys(0, KEYS);
    const store = new SqliteStore(path.join(config.dataDir, 'read-models.sqlite'));
    await store.init();
    try {
      await until(() => checkpointsAt(store, last), { timeoutMs: 20_000 });
      await until(() => PROJECTION_PARTITIONS.every((p) => noticed.get(p) === last), { timeoutMs: 5_000 });
      for (let i = 0; i < KEYS; i += 17) assert.equal((await store.apiKeys.get(`${i}`.padStart(20, '0')))?.label, `k${i}`);
      // Three partitions held here: one consumer of the log, not one per partition.
      const consumers = await ctx.jsm.consumers.list(STREAM_NAME).next();
      assert.equal(consumers.length, 1, `${consumers.length} consumers read the log for ${PROJECTION_PARTITIONS.length} partitions`);
      assert.equal(consumers[0]!.delivered.stream_seq, last);
      assert.ok(consumers[0]!.delivered.consumer_seq <= last, `${consumers[0]!.delivered.consumer_seq} deliveries for ${last} events`);

      // Stopped and started again: from the checkpoints, the next events and none twice.
      await running.stop();
      running = await startProjector(ctx);
      const id = 'e'.repeat(20);
      const now = new Date('2026-11-27T05:10:00.000Z');
      const { seq } = await log.append(makeEvent('key_created', { kind: 'apikey', id, part: 'key' }, { keyHash: 'd'.repeat(64), plan: 'pro', label: 'after', createdAt: now.toISOString() }, { eventId: 'r-after', now }));
      await until(() => checkpointsAt(store, seq), { timeoutMs: 20_000 });
      assert.equal((await store.apiKeys.get(id))?.plan, 'pro');
      const again = await ctx.jsm.consumers.list(STREAM_NAME).next();
      assert.equal(again.length, 1);
      assert.equal(again[0]!.delivered.consumer_seq, seq - last, 'only the events after the checkpoints are read again');
    } finally {
      await store.close();
    }
  });

  test('a restart while a partition waits for its lease to be renewed does not wait for it', async () => {
    await running?.stop();
    running = undefined;
    const store = new SqliteStore(path.join(dir, 'lapsed.sqlite'));
    await store.init();
    let leaseHeld = true;
    const accounts = new Projector({
      nc: ctx.nc, js: ctx.js, store, payloads: ctx.payloads, logger: createLogger('projector-reader-test', 'silent'),
      readModels: modelsOf('accounts', READ_MODELS), partition: 'accounts', payloadTtlMs: 60_000, mayApply: () => leaseHeld,
    });
    const reader = new ProjectionReader(ctx.js, createLogger('projector-reader-test', 'silent'));
    try {
      await accounts.prepare();
      await reader.read([accounts]);
      const caughtUp = await appendKeys(1000, 1);
      await until(async () => (await store.getCheckpoint(partitionCheckpoint('accounts'))) === caughtUp, { timeoutMs: 10_000 });
      leaseHeld = false; // lapsed: the next event waits in the partition's take
      const waiting = await appendKeys(1001, 1);
      await new Promise((r) => setTimeout(r, 300));
      const started = Date.now();
      await reader.read([accounts]); // a lease won or lost meanwhile restarts the reader
      assert.ok(Date.now() - started < 8_000, `the restart took ${Date.now() - started} ms`);
      leaseHeld = true;
      await until(async () => (await store.getCheckpoint(partitionCheckpoint('accounts'))) === waiting, { timeoutMs: 10_000 });
      assert.equal((await store.apiKeys.get('1001'.padStart(20, '0')))?.label, 'k1001');
    } finally {
      leaseHeld = true;
      await reader.stop();
      await accounts.stop();
      await store.close();
    }
  });
});
