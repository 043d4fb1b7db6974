// The gateway pods' init container (deploy/bootstrap-keys.ts) against a real nats-server:
// keys are created once, a second run (every pod start) changes nothing, and only hashes
// enter the log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { connect, type NatsConnection } from 'nats';
import { bootstrapKeys } from '../../../shared/src/domain/api-keys/bootstrap.js';
import type { BootstrapKey } from '../../../shared/src/infra/config.js';
import { apiKeyHash, apiKeyId } from '../../../shared/src/infra/ids.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

const TEAM: BootstrapKey = { key: 'bootstrap-test-key-team-0001', plan: 'team' };
const FREE: BootstrapKey = { key: 'bootstrap-test-key-free-0002', plan: 'free' };
const PRO: BootstrapKey = { key: 'bootstrap-test-key-pro-00003', plan: 'pro' };

describe('deploy/bootstrap-keys', () => {
  let nats: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;

  before(async () => {
    nats = await startNatsServer();
    nc = await connect({ servers: nats.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 86_400_000 });
    log = new EventLog(nc.jetstream(), jsm);
  });
  after(async () => {
    await nc?.drain();
    await nats?.stop();
  });

  test('creates each key once; running again (every pod start) adds only new keys', async () => {
    assert.deepEqual(await bootstrapKeys(log, [TEAM, FREE]), { created: 2, existing: 0 });
    assert.deepEqual(await bootstrapKeys(log, [TEAM, FREE, PRO]), { created: 1, existing: 2 });
    assert.deepEqual(await bootstrapKeys(log, [TEAM, FREE, PRO]), { created: 0, existing: 3 });
    for (const { key, plan } of [TEAM, FREE, PRO]) {
      const history = await log.history('apikey', apiKeyId(key));
      assert.equal(history.length, 1, `one key_created for ${plan}`);
      const [event] = history;
      assert.equal(event!.event, 'key_created');
      assert.deepEqual({ keyHash: (event!.data as { keyHash: string }).keyHash, plan: (event!.data as { plan: string }).plan }, { keyHash: apiKeyHash(key), plan });
      assert.ok(!JSON.stringify(event).includes(key), 'the key itself never enters the log');
    }
  });

  test('the compiled entry point runs as the init container does, and names a bad variable', async (t) => {
    // npm test runs the compiled suite, where dist/deploy/bootstrap-keys.js sits beside us.
    const entry = fileURLToPath(new URL('../../../deploy/bootstrap-keys.js', import.meta.url));
    if (!fs.existsSync(entry)) { t.skip('runs from the compiled suite (npm test)'); return; }
    const env = { ...process.env, NATS_URL: nats.url, LOG_LEVEL: 'warn' };
    const extra = { key: 'bootstrap-test-key-cli-000004', plan: 'basic' };
    const ok = spawnSync(process.execPath, [entry], { env: { ...env, BOOTSTRAP_API_KEYS: `${TEAM.key}:team,${extra.key}:${extra.plan}` }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(ok.status, 0, ok.stderr);
    const bad = spawnSync(process.execPath, [entry], { env: { ...env, BOOTSTRAP_API_KEYS: 'short:team' }, encoding: 'utf8', timeout: 60_000 });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /BOOTSTRAP_API_KEYS/);
    assert.equal((await log.history('apikey', apiKeyId(extra.key))).length, 1);
  });
});
