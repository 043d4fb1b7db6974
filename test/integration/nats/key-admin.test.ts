// The operator's key commands (shared/src/domain/api-keys/admin.ts) against a real nats-server,
// when another operator changes the same key between our read and our append: the loser
// re-reads and decides again, and the log never records a decision made on a stale state.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { changeKeyPlan, createKey, listKeys, resolveKey, revokeKey } from '../../../shared/src/domain/api-keys/admin.js';
import { KeyStateError } from '../../../shared/src/domain/api-keys/decider.js';
import { NotFoundError } from '../../../shared/src/domain/errors.js';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import type { AggregateKind } from '../../../shared/src/infra/subjects.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

/** The log as one of two racing operators sees it: `raceNext` runs right after its next history read. */
class RacingEventLog extends EventLog {
  raceNext: (() => Promise<unknown>) | undefined;
  override async history(kind: AggregateKind, id: string, fromSeq = 1): Promise<StoredEvent[]> {
    const events = await super.history(kind, id, fromSeq);
    const race = this.raceNext;
    this.raceNext = undefined;
    await race?.();
    return events;
  }
}

describe('key commands under concurrency', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let log: RacingEventLog;
  let other: EventLog;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const jsm = await ensureInfrastructure(nc, { eventRetentionMs: 0, payloadTtlMs: 60_000 });
    log = new RacingEventLog(nc.jetstream(), jsm);
    other = new EventLog(nc.jetstream(), jsm);
  });
  after(async () => {
    await nc?.close();
    await server?.stop();
  });

  const events = async (keyId: string) => (await other.history('apikey', keyId)).map((e) => e.event === 'key_plan_changed' ? `plan:${e.data.plan}` : e.event);

  test('two plan changes at once: the second decides again on the first one\'s result', async () => {
    const { keyId } = await createKey({ log: other }, 'free', 'race');
    log.raceNext = () => changeKeyPlan({ log: other }, keyId, 'basic');
    const ours = await changeKeyPlan({ log }, keyId, 'pro');
    assert.equal(ours.before.plan, 'basic', 'decided on the state with the other change in it');
    assert.deepEqual(await events(keyId), ['key_created', 'plan:basic', 'plan:pro']);
  });

  test('a plan change that raced one to the same plan records nothing', async () => {
    const { keyId } = await createKey({ log: other }, 'free', 'race');
    log.raceNext = () => changeKeyPlan({ log: other }, keyId, 'team');
    assert.equal((await changeKeyPlan({ log }, keyId, 'team')).seq, null);
    assert.deepEqual(await events(keyId), ['key_created', 'plan:team']);
  });

  test('two revocations at once: one is recorded, the other is told it was already revoked', async () => {
    const { keyId } = await createKey({ log: other }, 'free', 'race');
    log.raceNext = () => revokeKey({ log: other }, keyId, 'first');
    await assert.rejects(revokeKey({ log }, keyId, 'second'), (e: unknown) => e instanceof KeyStateError && e.refusal === 'already-revoked');
    assert.deepEqual(await events(keyId), ['key_created', 'key_revoked']);
    assert.equal((await listKeys(other)).find((k) => k.keyId === keyId)?.revokeReason, 'first');
  });

  test('a key revoked while its plan change was being decided stays revoked (the late plan change counts for nothing)', async () => {
    const { keyId } = await createKey({ log: other }, 'free', 'race');
    log.raceNext = () => revokeKey({ log: other }, keyId);
    // The plan change is on another subject: it is appended, but every fold ignores it.
    await changeKeyPlan({ log }, keyId, 'pro');
    const listed = (await listKeys(other)).find((k) => k.keyId === keyId);
    assert.equal(listed?.plan, 'free');
    assert.ok(listed?.revokedAt);
    await assert.rejects(changeKeyPlan({ log: other }, keyId, 'team'), (e: unknown) => e instanceof KeyStateError && e.refusal === 'revoked');
  });

  test('keys are named by id or by the key itself; an unknown one is not found', async () => {
    const { keyId, key } = await createKey({ log: other }, 'pro', 'names');
    assert.equal(await resolveKey(other, keyId), keyId);
    assert.equal(await resolveKey(other, key), keyId);
    await assert.rejects(resolveKey(other, '0'.repeat(20)), NotFoundError);
    await assert.rejects(resolveKey(other, 'trawl_unknown_key_000000000000000000'), NotFoundError);
  });
});
