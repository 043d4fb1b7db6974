// Console accounts, their invites and their sign-in sessions, as events; the accounts,
// invites and sessions read models are folds of them. Secrets never enter the log: a
// password only as its scrypt hash, a token only as its SHA-256 (the aggregate id derives
// from it). Subjects: docs/architecture.md "Web console: accounts, invites, sessions".
import { Type, type Static } from '@sinclair/typebox';
import { PLANS } from '../plans.js';
import { Timestamp } from './common.js';

export const ACCOUNT_PART = 'account';
export const INVITE_PART = 'invite';
export const SESSION_PART = 'session';

export const ROLES = ['admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

const PlanSchema = Type.Union(PLANS.map((p) => Type.Literal(p)));
const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));
/** An account id: 20 hex characters of the SHA-256 of its normalized email. */
const AccountId = Type.String({ pattern: '^[0-9a-f]{20}$' });

export const AccountRegistered = Type.Object({
  /** Normalized (trimmed, lower case). */
  email: Type.String({ minLength: 3, maxLength: 254 }),
  /** `scrypt$<N>$<r>$<p>$<salt>$<hash>` (shared/src/domain/accounts/password.ts); never the password. */
  passwordHash: Type.String({ pattern: '^scrypt\\$' }),
  role: RoleSchema,
  plan: PlanSchema,
  /** The invite it was made from (absent when sign-up is open). */
  inviteId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{20}$' })),
  registeredAt: Timestamp,
});
export type AccountRegistered = Static<typeof AccountRegistered>;

export const AccountPlanChanged = Type.Object({ plan: PlanSchema, changedAt: Timestamp, by: AccountId });
export const AccountDisabled = Type.Object({ disabledAt: Timestamp, by: AccountId });
export const AccountEnabled = Type.Object({ enabledAt: Timestamp, by: AccountId });

export const InviteCreated = Type.Object({
  /** SHA-256 (hex) of the invite token; the id is its first 20 characters. */
  tokenHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  role: RoleSchema,
  createdAt: Timestamp,
  expiresAt: Timestamp,
  /** The admin account that made it, or `operator` (npm start, npm run keys -- invite). */
  createdBy: Type.Union([AccountId, Type.Literal('operator')]),
  /** npm start's invite for the first admin: it stops working once any admin exists. */
  bootstrap: Type.Optional(Type.Boolean()),
});
export type InviteCreated = Static<typeof InviteCreated>;

export const InviteRedeemed = Type.Object({ accountId: AccountId, redeemedAt: Timestamp });
/** An open invite taken back by an admin: its link stops working. Final. */
export const InviteRevoked = Type.Object({ revokedAt: Timestamp, by: AccountId });

export const SessionStarted = Type.Object({ accountId: AccountId, startedAt: Timestamp, expiresAt: Timestamp });
export const SessionEnded = Type.Object({ endedAt: Timestamp, reason: Type.Literal('signed_out') });

export const accountEvents = {
  account_registered: AccountRegistered,
  account_plan_changed: AccountPlanChanged,
  account_disabled: AccountDisabled,
  account_enabled: AccountEnabled,
  invite_created: InviteCreated,
  invite_redeemed: InviteRedeemed,
  invite_revoked: InviteRevoked,
  session_started: SessionStarted,
  session_ended: SessionEnded,
} as const;
