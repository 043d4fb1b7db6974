// The API key decider, one rule at a time: given(events) / when(command) / then(events).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NotFoundError } from '../../../shared/src/domain/errors.js';
import { validateEventData } from '../../../shared/src/domain/events/index.js';
import { decide, evolve, initialState, rehydrate, KeyStateError, type KeyCommand, type KeyEvent } from '../../../shared/src/domain/api-keys/decider.js';
import { deciderSpec } from '../../support/decider.js';

const NOW = new Date('2026-04-01T10:00:00.000Z');
const AT = NOW.toISOString();
const EARLIER = '2026-03-01T09:00:00.000Z';
const ID = '0123456789abcdef0123';
const HASH = 'a'.repeat(64);

const { given } = deciderSpec<KeyCommand, KeyEvent, ReturnType<typeof initialState>>({
  decide: (command, state) => decide(command, state, { now: NOW }),
  evolve,
  initialState,
});

const created = (plan: 'free' | 'basic' | 'pro' | 'team' = 'free', at = EARLIER): KeyEvent =>
  ({ part: 'key', event: 'key_created', data: { keyHash: HASH, plan, label: 'ci', createdAt: at } });
const revoked = (at = EARLIER, reason?: string): KeyEvent =>
  ({ part: 'key', event: 'key_revoked', data: { revokedAt: at, ...(reason ? { reason } : {}) } });
const planChanged = (plan: 'free' | 'basic' | 'pro' | 'team', at = EARLIER): KeyEvent =>
  ({ part: 'key', event: 'key_plan_changed', data: { plan, changedAt: at } });
const rotated = (): KeyEvent =>
  ({ part: 'key', event: 'webhook_secret_rotated', data: { generation: 1, rotatedAt: EARLIER, previousValidUntil: EARLIER } });

const create: KeyCommand = { type: 'CreateKey', keyId: ID, keyHash: HASH, plan: 'pro', label: 'ci' };
const revoke = (reason?: string): KeyCommand => ({ type: 'RevokeKey', keyId: ID, ...(reason ? { reason } : {}) });
const changePlan = (plan: 'free' | 'basic' | 'pro' | 'team'): KeyCommand => ({ type: 'ChangePlan', keyId: ID, plan });

describe('api key decider: create', () => {
  test('a new key is created with its hash, plan, label and the time', () => {
    given([]).when(create).then([created('pro', AT)]);
  });

  test('an existing key cannot be created again, revoked or not', () => {
    given([created()]).when(create).thenThrows(KeyStateError, /already exists/);
    given([created(), revoked()]).when(create).thenThrows(KeyStateError, /already exists/);
  });
});

describe('api key decider: revoke', () => {
  test('an active key is revoked, with the reason when one is given', () => {
    given([created()]).when(revoke()).then([revoked(AT)]);
    given([created()]).when(revoke('leaked in a CI log')).then([revoked(AT, 'leaked in a CI log')]);
  });

  test('an unknown key is not found', () => {
    given([]).when(revoke()).thenThrows(NotFoundError, new RegExp(`key ${ID} not found`));
  });

  test('a revoked key is refused as already revoked, naming when', () => {
    given([created(), revoked()]).when(revoke()).thenThrows(KeyStateError, new RegExp(`already revoked at ${EARLIER}`));
    assert.throws(() => decide(revoke(), rehydrate([created(), revoked()]), { now: NOW }), (e: unknown) => e instanceof KeyStateError && e.refusal === 'already-revoked');
  });

  test('other events of the key (webhook secret rotations) do not matter', () => {
    given([created(), rotated()]).when(revoke()).then([revoked(AT)]);
  });
});

describe('api key decider: change plan', () => {
  test('an active key moves to another plan', () => {
    given([created('free')]).when(changePlan('pro')).then([planChanged('pro', AT)]);
  });

  test('the plan is the last one changed to', () => {
    given([created('free'), planChanged('pro'), planChanged('basic')]).when(changePlan('team')).then([planChanged('team', AT)]);
    given([created('free'), planChanged('pro')]).when(changePlan('free')).then([planChanged('free', AT)]);
  });

  test('no event when the key is on that plan already', () => {
    given([created('free')]).when(changePlan('free')).then([]);
    given([created('free'), planChanged('pro')]).when(changePlan('pro')).then([]);
  });

  test('an unknown key is not found; a revoked key is refused', () => {
    given([]).when(changePlan('pro')).thenThrows(NotFoundError);
    given([created(), revoked()]).when(changePlan('pro')).thenThrows(KeyStateError, /revoked/);
    assert.throws(() => decide(changePlan('pro'), rehydrate([created(), revoked()]), { now: NOW }), (e: unknown) => e instanceof KeyStateError && e.refusal === 'revoked');
  });
});

const ACCOUNT = 'ab'.repeat(10);
const OTHER = 'cd'.repeat(10);
const adopted = (accountId = ACCOUNT): KeyEvent => ({ part: 'key', event: 'key_adopted', data: { accountId, adoptedAt: EARLIER } });
const adopt = (accountId = ACCOUNT): KeyCommand => ({ type: 'AdoptKey', keyId: ID, accountId });

describe('api key decider: adopt (the first admin takes the keys npm start made)', () => {
  test('an operator\'s key joins the account', () => {
    given([created()]).when(adopt()).then([{ part: 'key', event: 'key_adopted', data: { accountId: ACCOUNT, adoptedAt: AT } }]);
  });

  test('no event when the account owns it already, by adoption or from its creation', () => {
    given([created(), adopted()]).when(adopt()).then([]);
    given([{ part: 'key', event: 'key_created', data: { keyHash: HASH, plan: 'free', label: 'mine', createdAt: EARLIER, accountId: ACCOUNT } }]).when(adopt()).then([]);
  });

  test('a key of another account never changes hands; a revoked or unknown key is refused', () => {
    given([created(), adopted(OTHER)]).when(adopt()).thenThrows(KeyStateError, /another account/);
    given([created(), revoked()]).when(adopt()).thenThrows(KeyStateError, /revoked/);
    given([]).when(adopt()).thenThrows(NotFoundError, /not found/);
  });

  test('a second adoption in the log (a race) changes nothing: the first owner stays', () => {
    assert.equal(rehydrate([created(), adopted(OTHER), adopted(ACCOUNT)]).accountId, OTHER);
  });
});

describe('api key state', () => {
  test('a plan change recorded after the revocation (a race) changes nothing: revoked stays revoked', () => {
    const s = rehydrate([created('free'), revoked(EARLIER, 'gone'), planChanged('team')]);
    assert.deepEqual(s, { status: 'REVOKED', plan: 'free', label: 'ci', createdAt: EARLIER, revokedAt: EARLIER, revokeReason: 'gone', accountId: null });
  });

  test('a second key_created or key_revoked is ignored (the log refuses them anyway)', () => {
    const s = rehydrate([created('free'), created('team', AT), revoked(EARLIER), revoked(AT, 'later')]);
    assert.equal(s.plan, 'free');
    assert.equal(s.revokedAt, EARLIER);
    assert.equal(s.revokeReason, null);
  });

  test('every event the decider emits is valid against its schema', () => {
    for (const [history, command] of [[[], create], [[created()], revoke('why')], [[created()], revoke()], [[created()], changePlan('team')], [[created()], adopt()]] as const) {
      for (const e of decide(command, rehydrate(history), { now: NOW })) validateEventData(e.event, e.data);
    }
  });

  test('a reason over 500 characters is not a valid event', () => {
    assert.throws(() => validateEventData('key_revoked', { revokedAt: AT, reason: 'x'.repeat(501) }));
    assert.throws(() => validateEventData('key_plan_changed', { plan: 'gold', changedAt: AT }));
  });
});
