// The projector's checkpoint and notices on a real nats-server and SQLite store: a burst of
// events is applied in full, checkpointed and announced up to its last event, with far
// fewer checkpoint writes than events (they are throttled); a partition whose models handle
// none of the events still passes them all; a projector started again from its checkpoint
// applies nothing twice.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { decodeNotice } from '../../../shared/src/infra/projection-notice.js';
import { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { PROJECTED_SUBJECT, partitionCheckpoint, type ProjectionPartition } from '../../../shared/src/infra/subjects.js';
import { modelsOf } from '../../../services/projector/src/partitions.js';
import { Projector } from '../../../services/projector/src/projector.js';
import { READ_MODELS } from '../../../services/projector/src/read-models/index.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const KEYS = 300;

/** The real store, counting its checkpoint writes. */
class CountingStore extends SqliteStore {
  checkpointWrites = 0;
  override async setCheckpoint(projection: string, seq: number): Promise<void> {
    this.checkpointWrites++;
    await super.setCheckpoint(projection, seq);
  }
}

describe('projector checkpoints', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  let dir: string;
  const noticed = new Map<string, number>();
  const running: Projector[] = [];
  const stores: SqliteStore[] = [];

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-projector-checkpoint-'));
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new EventLog(nc.jetstream(), jsm);
    nc.subscribe(PROJECTED_SUBJECT, {
      callback: (_err, msg) => {
        const n = decodeNotice(msg);
        const p = n.partition ?? 'all';
        noticed.set(p, Math.max(noticed.get(p) ?? 0, n.seq));
      },
    });
  });

  after(async () => {
    for (const p of running) await p.stop();
    for (const s of stores) await s.close();
    await nc?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const projectorOf = (store: SqliteStore, partition: ProjectionPartition): Projector => {
    const p = new Projector({ nc, js: nc.jetstream(), store, payloads: new PayloadStore(nc.jetstream()), logger: createLogger('projector-checkpoint-test', 'silent'), readModels: modelsOf(partition, READ_MODELS), partition, payloadTtlMs: 60_000 });
    running.push(p);
    return p;
  };

  test('a burst is applied, checkpointed and announced to its last event, with few checkpoint writes', async () => {
    const store = new CountingStore(path.join(dir, 'rm.sqlite'));
    await store.init();
    stores.push(store);
    const accounts = projectorOf(store, 'accounts');
    const charts = projectorOf(store, 'charts');
    await accounts.start();
    await charts.start();
    let last = 0;
    const now = new Date('2026-11-26T17:00:00.000Z');
    const appends = [];
    for (let i = 0; i < KEYS; i++) {
      const id = `${i}`.padStart(20, '0');
      appends.push(log.append(makeEvent('key_created', { kind: 'apikey', id, part: 'key' }, { keyHash: 'c'.repeat(64), plan: 'free', label: `k${i}`, createdAt: now.toISOString() }, { eventId: `e${i}`, now })));
    }
    for (const r of await Promise.all(appends)) last = Math.max(last, r.seq);
    await until(async () => (await store.getCheckpoint(partitionCheckpoint('accounts'))) === last && (await store.getCheckpoint(partitionCheckpoint('charts'))) === last, { timeoutMs: 20_000 });
    await until(() => noticed.get('accounts') === last && noticed.get('charts') === last, { timeoutMs: 5_000 });
    for (let i = 0; i < KEYS; i += 37) assert.equal((await store.apiKeys.get(`${i}`.padStart(20, '0')))?.label, `k${i}`);
    // Two partitions, KEYS events each: one write per event would be 2 × KEYS.
    assert.ok(store.checkpointWrites < KEYS / 2, `${store.checkpointWrites} checkpoint writes for ${2 * KEYS} events passed`);
    await accounts.stop();
    await charts.stop();
    running.length = 0;

    // Started again from its checkpoint: nothing is delivered again, a new event is applied.
    const again = projectorOf(store, 'accounts');
    await again.start();
    const id = 'f'.repeat(20);
    const { seq } = await log.append(makeEvent('key_created', { kind: 'apikey', id, part: 'key' }, { keyHash: 'c'.repeat(64), plan: 'pro', label: 'after', createdAt: now.toISOString() }, { eventId: 'e-after', now }));
    await until(async () => (await store.getCheckpoint(partitionCheckpoint('accounts'))) === seq, { timeoutMs: 10_000 });
    assert.equal((await store.apiKeys.get(id))?.plan, 'pro');
  });
});
