// API key events (subjects `trawl.apikey.<keyId>.key.<event>`; which happen once and which
// repeat: docs/architecture.md "API keys"). The key itself never enters the log: only its
// hash.
import { Type, type Static } from '@sinclair/typebox';
import { PLANS } from '../plans.js';
import { Timestamp } from './common.js';

export const KeyCreated = Type.Object({
  keyHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  plan: Type.Union(PLANS.map((p) => Type.Literal(p))),
  label: Type.String(),
  createdAt: Timestamp,
  /** The console account that owns the key (absent: an operator's key, owned by no account). */
  accountId: Type.Optional(Type.String({ pattern: '^[0-9a-f]{20}$' })),
});
export type KeyCreated = Static<typeof KeyCreated>;

/** Revocation is final: there is no event that brings a key back. */
export const KeyRevoked = Type.Object({
  revokedAt: Timestamp,
  /** The operator's note (a leak, an employee leaving); never shown to API clients. */
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
});
export type KeyRevoked = Static<typeof KeyRevoked>;

export const KeyPlanChanged = Type.Object({
  /** The new plan; the limits of the next request follow it. */
  plan: Type.Union(PLANS.map((p) => Type.Literal(p))),
  changedAt: Timestamp,
});
export type KeyPlanChanged = Static<typeof KeyPlanChanged>;

/**
 * An operator's key joins a console account (the first admin adopts the keys `npm start`
 * made, so their jobs and usage show in the console). Once per key: an owned key never
 * changes hands.
 */
export const KeyAdopted = Type.Object({
  accountId: Type.String({ pattern: '^[0-9a-f]{20}$' }),
  adoptedAt: Timestamp,
});
export type KeyAdopted = Static<typeof KeyAdopted>;

/** The subject part of every API key event. */
export const KEY_PART = 'key';

export const WebhookSecretRotated = Type.Object({
  /** The new current generation: the previous one plus 1 (the first rotation makes 1). */
  generation: Type.Integer({ minimum: 1 }),
  rotatedAt: Timestamp,
  /** Until then the previous generation's secret signs too (the grace period); at it, it stops. */
  previousValidUntil: Timestamp,
});
export type WebhookSecretRotated = Static<typeof WebhookSecretRotated>;

export const apiKeyEvents = {
  key_created: KeyCreated,
  key_revoked: KeyRevoked,
  key_plan_changed: KeyPlanChanged,
  key_adopted: KeyAdopted,
  webhook_secret_rotated: WebhookSecretRotated,
} as const;
