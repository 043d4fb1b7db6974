// The operator CLI (scripts/keys.ts) end to end: the compiled entry point run as a child
// process against a real nats-server, with a real projector in this process (the CLI
// waits for it, and the read model must follow). Create, list, plan, revoke, the answers
// to repeated and refused commands, bad arguments and an unreachable NATS.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { connect, type NatsConnection } from 'nats';
import { apiKeyHash, apiKeyId } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { Projector } from '../../../services/projector/src/projector.js';
import { READ_MODELS } from '../../../services/projector/src/read-models/index.js';
import { freePort, startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const ENTRY = fileURLToPath(new URL('../../../scripts/keys.js', import.meta.url));
const run = promisify(execFile);

interface Result { code: number; stdout: string; stderr: string }

describe('npm run keys', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: EventLog;
  let store: SqliteStore;
  let projector: Projector;
  let dir: string;

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-keys-cli-'));
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    const js = nc.jetstream();
    log = new EventLog(js, jsm);
    store = new SqliteStore(path.join(dir, 'rm.sqlite'));
    await store.init();
    projector = new Projector({ nc, js, store, payloads: new PayloadStore(js), logger: createLogger('keys-cli-test', 'silent'), readModels: READ_MODELS, payloadTtlMs: 60_000 });
    await projector.start();
  });

  after(async () => {
    await projector?.stop();
    await nc?.close();
    await store?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `node dist/scripts/keys.js <args>` (what `npm run keys -- <args>` runs). Async: the projector here must keep running. */
  async function keys(args: string[], natsUrl = server.url): Promise<Result> {
    try {
      const { stdout, stderr } = await run(process.execPath, [ENTRY, ...args], { env: { ...process.env, NATS_URL: natsUrl }, timeout: 30_000 });
      return { code: 0, stdout, stderr };
    } catch (err) {
      const e = err as { code?: number; stdout?: string; stderr?: string };
      if (typeof e.code !== 'number') throw err;
      return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  }
  const ok = (r: Result): Result => { assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`); return r; };

  test('create makes a random key, prints it once with its id, and only its hash is stored', async () => {
    const r = ok(await keys(['create', '--plan', 'free', '--label', 'ci runner']));
    const key = /^key: (\S+)$/m.exec(r.stdout)?.[1] ?? '';
    const keyId = /^created key ([0-9a-f]{20}) \(plan free, label "ci runner"\)$/m.exec(r.stdout)?.[1];
    assert.match(key, /^trawl_[A-Za-z0-9_-]{32}$/, 'the format npm start prints');
    assert.equal(keyId, apiKeyId(key));
    assert.match(r.stderr, /shown only this once/);
    assert.match(r.stderr, /the projector has applied it/);
    const history = await log.history('apikey', keyId!);
    assert.deepEqual(history.map((e) => e.event), ['key_created']);
    assert.ok(!JSON.stringify(history).includes(key), 'the key itself never enters the log');
    assert.deepEqual(await store.apiKeys.find(apiKeyHash(key)), {
      id: keyId, keyHash: apiKeyHash(key), plan: 'free', label: 'ci runner', createdAt: history[0]!.occurredAt, lastSeq: history[0]!.seq,
    });
  });

  test('list, plan, revoke: by id or by key; repeats are harmless, refusals exit 1', async () => {
    const created = JSON.parse(ok(await keys(['create', '--plan', 'basic', '--json'])).stdout) as { keyId: string; key: string; plan: string; label: string };
    assert.equal(created.plan, 'basic');
    assert.equal(created.label, 'cli', 'the default label');
    const { keyId, key } = created;

    const table = ok(await keys(['list'])).stdout.trim().split('\n');
    assert.match(table[0]!, /^ID\s+PLAN\s+CREATED\s+STATUS\s+LABEL$/);
    assert.match(table.find((l) => l.startsWith(keyId)) ?? '', new RegExp(`^${keyId}\\s+basic\\s+\\S+Z\\s+active\\s+cli$`));

    const moved = ok(await keys(['plan', keyId, 'pro']));
    assert.match(moved.stdout, new RegExp(`key ${keyId}: plan basic -> pro`));
    assert.equal((await store.apiKeys.get(keyId))?.plan, 'pro', 'projected before the CLI returned');
    assert.match(ok(await keys(['plan', key, 'pro'])).stdout, /on plan pro already; nothing changed/, 'by the key itself');

    const revoked = ok(await keys(['revoke', key, '--reason', 'leaked in a CI log']));
    assert.match(revoked.stdout, new RegExp(`^revoked key ${keyId} at \\S+Z$`, 'm'));
    assert.ok((await store.apiKeys.get(keyId))?.revokedAt, 'the read model has the revocation');
    assert.match(ok(await keys(['revoke', keyId])).stdout, /already revoked at \S+; nothing changed/, 'revoking again is done already: exit 0');

    const refused = await keys(['plan', keyId, 'team']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is revoked .*cannot change/);

    const rows = ok(await keys(['list', '--json'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const row = rows.find((k) => k.keyId === keyId);
    assert.equal(row?.plan, 'pro');
    assert.equal(row?.revokeReason, 'leaked in a CI log');
    assert.match(String(row?.revokedAt), /Z$/);
    assert.ok(rows.every((k) => !JSON.stringify(k).includes('trawl_')), 'list never shows a key');
    assert.match(ok(await keys(['list'])).stdout, new RegExp(`^${keyId}\\s+pro\\s+\\S+\\s+revoked \\S+Z\\s+cli$`, 'm'));
    assert.deepEqual((await log.history('apikey', keyId)).map((e) => e.event), ['key_created', 'key_plan_changed', 'key_revoked']);
  });

  test('an unknown id or key exits 1 and never echoes the key', async () => {
    const byId = await keys(['revoke', 'ffffffffffffffffffff']);
    assert.equal(byId.code, 1);
    assert.match(byId.stderr, /no key has the id ffffffffffffffffffff/);
    const secret = 'trawl_not_a_real_key_0000000000000000';
    const byKey = await keys(['plan', secret, 'pro']);
    assert.equal(byKey.code, 1);
    assert.match(byKey.stderr, new RegExp(`no such key \\(a key that would have the id ${apiKeyId(secret)}\\)`));
    assert.ok(!byKey.stderr.includes(secret));
  });

  test('invite makes a one-use console invite link; only its hash is in the log, and the read model follows', async () => {
    const text = ok(await keys(['invite', '--role', 'admin']));
    const link = /^(http:\/\/localhost:3000\/console\/signup\?invite=(inv_[\w-]{32}))$/m.exec(text.stdout);
    assert.ok(link, text.stdout);
    assert.match(text.stdout, /invite link \(admin, one use, until \d{4}-/);
    assert.match(text.stderr, /shown only this once/);
    const json = JSON.parse(ok(await keys(['invite', '--json'])).stdout) as { inviteId: string; role: string; link: string; expiresAt: string };
    assert.equal(json.role, 'member');
    assert.match(json.inviteId, /^[0-9a-f]{20}$/);
    const history = await log.history('invite', json.inviteId);
    assert.deepEqual(history.map((e) => e.event), ['invite_created']);
    assert.ok(!JSON.stringify(history).includes(new URL(json.link).searchParams.get('invite')!), 'the token never enters the log');
    await until(async () => (await store.invites.get(json.inviteId))?.role === 'member');
    const bad = await keys(['invite', '--role', 'owner'], `nats://127.0.0.1:${await freePort()}`);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--role must be member or admin/);
  });

  test('bad arguments print the usage and exit 2, without touching NATS', async () => {
    const unreachable = `nats://127.0.0.1:${await freePort()}`;
    for (const [args, why] of [
      [[], /no command given/],
      [['rotate'], /unknown command "rotate"/],
      [['create'], /create needs --plan <free\|basic\|pro\|team>/],
      [['create', '--plan', 'gold'], /"gold" is not a plan/],
      [['create', '--plan', 'free', 'extra'], /create expects 0 arguments, got 1/],
      [['create', '--plan', 'free', '--label', ''], /--label must be 1-200 characters/],
      [['create', '--plan', 'free', '--reason', 'x'], /create takes no --reason/],
      [['list', 'all'], /list expects 0 arguments, got 1/],
      [['revoke'], /revoke expects 1 argument, got 0/],
      [['revoke', 'k', '--reason', 'r'.repeat(501)], /--reason must be 1-500 characters/],
      [['plan', 'k'], /plan expects 2 arguments, got 1/],
      [['plan', 'k', 'gold'], /"gold" is not a plan/],
      [['list', '--frobnicate'], /Unknown option '--frobnicate'/],
    ] as const) {
      const r = await keys([...args], unreachable);
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code} ${r.stderr}`);
      assert.match(r.stderr, why, args.join(' '));
      assert.match(r.stderr, /usage: npm run keys -- <command>/);
    }
    const help = ok(await keys(['--help'], unreachable));
    assert.match(help.stdout, /usage: npm run keys -- <command>[\s\S]*revoke <key-or-keyId>/);
  });

  test('an unreachable NATS exits 1 and says which URL it tried', async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const r = await keys(['list'], url);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`cannot reach NATS at ${url}`));
  });
});
