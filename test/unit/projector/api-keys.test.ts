// The api-keys read model: given(events) / then(doc). A revoked key keeps its document with
// `revokedAt` (the gateway refuses it by that); a plan change replaces the plan.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import type { ApiKeyDoc } from '../../../shared/src/infra/store/index.js';
import { KEY_CHANGED_SUBJECT } from '../../../shared/src/infra/subjects.js';
import { readModelSpec } from '../../support/decider.js';
import { apiKeysReadModel, evolve } from '../../../services/projector/src/read-models/api-keys/index.js';

const HASH = 'c'.repeat(64);
let seq = 0;
const ev = (event: string, data: Record<string, unknown>): StoredEvent =>
  ({ kind: 'apikey', id: 'k1', part: 'key', event, eventId: 'e', occurredAt: '2026-05-01T00:00:00.000Z', seq: ++seq, data }) as unknown as StoredEvent;
const created = (plan = 'free') => ev('key_created', { keyHash: HASH, plan, label: 'ci', createdAt: '2026-05-01T00:00:00.000Z' });
const revoked = (at = '2026-05-02T00:00:00.000Z') => ev('key_revoked', { revokedAt: at, reason: 'leaked' });
const planChanged = (plan: string) => ev('key_plan_changed', { plan, changedAt: '2026-05-03T00:00:00.000Z' });
/** Folds like the projector: a null answer means "nothing to save", the document stays. */
const { given } = readModelSpec<ApiKeyDoc, StoredEvent>(evolve);

test('key_created makes the document: hash, plan, label, no revocation', () => {
  const doc = given([created('pro')]);
  assert.deepEqual(doc, { id: 'k1', keyHash: HASH, plan: 'pro', label: 'ci', createdAt: '2026-05-01T00:00:00.000Z', lastSeq: seq });
});

test('a plan change replaces the plan; the last one wins', () => {
  assert.equal(given([created('free'), planChanged('team')])?.plan, 'team');
  assert.equal(given([created('free'), planChanged('team'), planChanged('basic')])?.plan, 'basic');
});

test('a revoked key keeps its document, marked with revokedAt (not the operator\'s reason)', () => {
  const doc = given([created('free'), revoked('2026-05-02T00:00:00.000Z')]);
  assert.equal(doc?.revokedAt, '2026-05-02T00:00:00.000Z');
  assert.equal(doc?.plan, 'free');
  assert.ok(!JSON.stringify(doc).includes('leaked'));
});

test('after the revocation nothing changes the key: a late plan change, a second revocation', () => {
  const before = given([created('free'), revoked('2026-05-02T00:00:00.000Z')])!;
  assert.equal(evolve(before, planChanged('team')), null);
  assert.equal(evolve(before, revoked('2026-06-01T00:00:00.000Z')), null);
});

test('events for a key without a document, and a second key_created, change nothing', () => {
  assert.equal(evolve(null, revoked()), null);
  assert.equal(evolve(null, planChanged('pro')), null);
  assert.equal(evolve(given([created('free')]), created('team')), null);
});

test('key_adopted gives an operator\'s key its account once; a revoked or owned key keeps its owner', () => {
  const adopted = (accountId: string) => ev('key_adopted', { accountId, adoptedAt: '2026-05-04T00:00:00.000Z' });
  assert.equal(given([created('team'), adopted('a'.repeat(20))])?.accountId, 'a'.repeat(20));
  assert.equal(given([created('team'), adopted('a'.repeat(20))])?.adoptedAt, '2026-05-04T00:00:00.000Z');
  assert.equal(given([created('team'), adopted('a'.repeat(20)), adopted('b'.repeat(20))])?.accountId, 'a'.repeat(20));
  assert.equal(given([created('team'), revoked(), adopted('a'.repeat(20))])?.accountId, undefined);
  assert.equal(evolve(null, adopted('a'.repeat(20))), null);
});

test('the projector announces each change with the key hash on the key-changed subject', () => {
  assert.deepEqual([...apiKeysReadModel.handles].sort(), ['key_adopted', 'key_created', 'key_plan_changed', 'key_revoked']);
  assert.deepEqual(apiKeysReadModel.notice?.(given([created()])!), { subject: KEY_CHANGED_SUBJECT, data: HASH });
});
