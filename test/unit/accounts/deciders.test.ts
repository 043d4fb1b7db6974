// The console's rules as given/when/then: accounts, invites, sessions; and the password hash.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AccountStateError, accountDecider, checkPassword, normalizeEmail, type AccountEvent } from '../../../shared/src/domain/accounts/account-decider.js';
import { InviteStateError, inviteDecider, type InviteEvent } from '../../../shared/src/domain/accounts/invite-decider.js';
import { isSessionValid, sessionDecider, type SessionEvent } from '../../../shared/src/domain/accounts/session-decider.js';
import { hashPassword, verifyPassword } from '../../../shared/src/domain/accounts/password.js';
import { NotFoundError, UnauthorizedError, ValidationError } from '../../../shared/src/domain/errors.js';
import { deciderSpec } from '../../support/decider.js';

const at = new Date('2026-11-01T10:00:00.000Z');
const later = new Date('2026-11-02T10:00:00.000Z');
const A = 'a'.repeat(20);
const ADMIN = 'b'.repeat(20);
const HASH = 'scrypt$32768$8$1$c2FsdA$a2V5';

const registered: AccountEvent = { part: 'account', event: 'account_registered', data: { email: 'ann@example.com', passwordHash: HASH, role: 'member', plan: 'free', registeredAt: at.toISOString() } };
const disabled: AccountEvent = { part: 'account', event: 'account_disabled', data: { disabledAt: at.toISOString(), by: ADMIN } };

describe('account decider', () => {
  const spec = deciderSpec(accountDecider);
  const register = { type: 'Register' as const, accountId: A, email: 'ann@example.com', passwordHash: HASH, role: 'member' as const, plan: 'free' as const, at };

  test('given nothing, when registering, then the account is registered', () => {
    spec.given([]).when(register).then([registered]);
  });
  test('an invite is recorded with the registration', () => {
    spec.given([]).when({ ...register, inviteId: 'c'.repeat(20) }).thenMatches(([e]) => assert.equal((e?.data as { inviteId?: string }).inviteId, 'c'.repeat(20)));
  });
  test('an email registers once', () => {
    spec.given([registered]).when(register).thenThrows(AccountStateError, /exists/);
  });
  test('a plan change is recorded once; the same plan again changes nothing', () => {
    const changed: AccountEvent = { part: 'account', event: 'account_plan_changed', data: { plan: 'pro', changedAt: later.toISOString(), by: ADMIN } };
    spec.given([registered]).when({ type: 'ChangePlan', accountId: A, plan: 'pro', by: ADMIN, at: later }).then([changed]);
    spec.given([registered, changed]).when({ type: 'ChangePlan', accountId: A, plan: 'pro', by: ADMIN, at: later }).then([]);
  });
  test('an unknown account cannot change', () => {
    spec.given([]).when({ type: 'ChangePlan', accountId: A, plan: 'pro', by: ADMIN, at }).thenThrows(NotFoundError);
    spec.given([]).when({ type: 'Disable', accountId: A, by: ADMIN, at }).thenThrows(NotFoundError);
  });
  test('an admin disables an account once, and enables it again', () => {
    spec.given([registered]).when({ type: 'Disable', accountId: A, by: ADMIN, at }).then([disabled]);
    spec.given([registered, disabled]).when({ type: 'Disable', accountId: A, by: ADMIN, at }).then([]);
    spec.given([registered, disabled]).when({ type: 'Enable', accountId: A, by: ADMIN, at: later })
      .then([{ part: 'account', event: 'account_enabled', data: { enabledAt: later.toISOString(), by: ADMIN } }]);
    spec.given([registered]).when({ type: 'Enable', accountId: A, by: ADMIN, at }).then([]);
  });
  test('nobody disables their own account', () => {
    spec.given([registered]).when({ type: 'Disable', accountId: A, by: A, at }).thenThrows(AccountStateError, /own account/);
  });
  test('emails are normalized and checked; passwords have a length range', () => {
    assert.equal(normalizeEmail('  Ann@Example.COM '), 'ann@example.com');
    for (const bad of ['', 'ann', 'ann@', '@x.y', 'a b@x.y', 'ann@localhost', `${'a'.repeat(250)}@x.y`]) assert.throws(() => normalizeEmail(bad), ValidationError, bad);
    assert.throws(() => checkPassword('short'), /at least 10/);
    assert.throws(() => checkPassword('x'.repeat(201)), /at most 200/);
    checkPassword('long enough pass');
  });
});

describe('invite decider', () => {
  const spec = deciderSpec(inviteDecider);
  const I = 'd'.repeat(20);
  const created: InviteEvent = { part: 'invite', event: 'invite_created', data: { tokenHash: 'e'.repeat(64), role: 'admin', createdAt: at.toISOString(), expiresAt: later.toISOString(), createdBy: 'operator' } };
  const create = { type: 'CreateInvite' as const, inviteId: I, tokenHash: 'e'.repeat(64), role: 'admin' as const, createdBy: 'operator', ttlMs: 24 * 3600 * 1000, at };

  test('given nothing, when creating, then the invite expires after its ttl', () => {
    spec.given([]).when(create).then([created]);
  });
  test('an invite is created once, and must expire in the future', () => {
    spec.given([created]).when(create).thenThrows(InviteStateError, /exists/);
    spec.given([]).when({ ...create, ttlMs: 0 }).thenThrows(ValidationError);
  });
  test('an open invite is redeemed once', () => {
    const redeemed: InviteEvent = { part: 'invite', event: 'invite_redeemed', data: { accountId: A, redeemedAt: at.toISOString() } };
    spec.given([created]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: false, at }).then([redeemed]);
    spec.given([created, redeemed]).when({ type: 'RedeemInvite', inviteId: I, accountId: ADMIN, adminExists: false, at }).thenThrows(InviteStateError, /used/);
  });
  test('npm start\'s bootstrap invite works only while no admin exists; other invites do not care', () => {
    const bootstrap: InviteEvent = { ...created, data: { ...created.data, bootstrap: true } };
    spec.given([]).when({ ...create, bootstrap: true }).then([bootstrap]);
    spec.given([bootstrap]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: true, at }).thenThrows(InviteStateError, /first admin/);
    spec.given([bootstrap]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: false, at }).thenMatches((events) => assert.equal(events.length, 1));
    spec.given([created]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: true, at }).thenMatches((events) => assert.equal(events.length, 1));
  });

  test('an admin revokes an open invite (once); a revoked invite makes no account; a used one cannot be revoked', () => {
    const revoked: InviteEvent = { part: 'invite', event: 'invite_revoked', data: { revokedAt: at.toISOString(), by: ADMIN } };
    const redeemed: InviteEvent = { part: 'invite', event: 'invite_redeemed', data: { accountId: A, redeemedAt: at.toISOString() } };
    spec.given([created]).when({ type: 'RevokeInvite', inviteId: I, by: ADMIN, at }).then([revoked]);
    spec.given([created, revoked]).when({ type: 'RevokeInvite', inviteId: I, by: ADMIN, at }).then([]);
    spec.given([created, revoked]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: false, at }).thenThrows(InviteStateError, /revoked/);
    spec.given([created, redeemed]).when({ type: 'RevokeInvite', inviteId: I, by: ADMIN, at }).thenThrows(InviteStateError, /used/);
    spec.given([]).when({ type: 'RevokeInvite', inviteId: I, by: ADMIN, at }).thenThrows(NotFoundError);
  });

  test('an expired or unknown invite is refused', () => {
    spec.given([created]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: false, at: later }).thenThrows(InviteStateError, /expired/);
    spec.given([]).when({ type: 'RedeemInvite', inviteId: I, accountId: A, adminExists: false, at }).thenThrows(NotFoundError);
  });
});

describe('session decider', () => {
  const spec = deciderSpec(sessionDecider);
  const S = 'f'.repeat(64);
  const started: SessionEvent = { part: 'session', event: 'session_started', data: { accountId: A, startedAt: at.toISOString(), expiresAt: later.toISOString() } };
  const start = { type: 'StartSession' as const, sessionId: S, accountId: A, account: { status: 'ACTIVE' as const }, ttlMs: 24 * 3600 * 1000, at };

  test('an active account starts a session that lasts its ttl', () => {
    spec.given([]).when(start).then([started]);
  });
  test('a disabled or unknown account cannot start one; a session starts once', () => {
    spec.given([]).when({ ...start, account: { status: 'DISABLED' } }).thenThrows(UnauthorizedError);
    spec.given([]).when({ ...start, account: { status: 'NONE' } }).thenThrows(UnauthorizedError);
    spec.given([started]).when(start).thenThrows(Error, /exists/);
  });
  test('signing out ends it once', () => {
    const ended: SessionEvent = { part: 'session', event: 'session_ended', data: { endedAt: at.toISOString(), reason: 'signed_out' } };
    spec.given([started]).when({ type: 'EndSession', sessionId: S, at }).then([ended]);
    spec.given([started, ended]).when({ type: 'EndSession', sessionId: S, at }).then([]);
    spec.given([]).when({ type: 'EndSession', sessionId: S, at }).thenThrows(NotFoundError);
  });
  test('a session is valid while open, unexpired and its account active', () => {
    const open = { status: 'OPEN' as const, expiresAt: later.toISOString() };
    assert.equal(isSessionValid(open, { status: 'ACTIVE' }, at), true);
    assert.equal(isSessionValid(open, { status: 'ACTIVE' }, later), false, 'expired at expiresAt');
    assert.equal(isSessionValid(open, { status: 'DISABLED' }, at), false);
    assert.equal(isSessionValid(open, null, at), false);
    assert.equal(isSessionValid({ ...open, status: 'ENDED' }, { status: 'ACTIVE' }, at), false);
  });
});

describe('password hashing', () => {
  test('scrypt hashes verify, salts differ, wrong passwords and malformed hashes fail', async () => {
    const params = { N: 1024, r: 8, p: 1 }; // small for the test; the format carries them
    const one = await hashPassword('correct horse battery', params);
    const two = await hashPassword('correct horse battery', params);
    assert.match(one, /^scrypt\$1024\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    assert.notEqual(one, two);
    assert.equal(await verifyPassword('correct horse battery', one), true);
    assert.equal(await verifyPassword('correct horse batterx', one), false);
    assert.equal(await verifyPassword('x', 'scrypt$1024$8$1$abc'), false);
    assert.equal(await verifyPassword('x', 'bcrypt$whatever'), false);
  });
});
