// API key events. The key itself never enters the log: only its hash.
import { Type, type Static } from '@sinclair/typebox';
import { PLANS } from '../plans.js';
import { Timestamp } from './common.js';

export const KeyCreated = Type.Object({
  keyHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  plan: Type.Union(PLANS.map((p) => Type.Literal(p))),
  label: Type.String(),
  createdAt: Timestamp,
});
export type KeyCreated = Static<typeof KeyCreated>;

export const apiKeyEvents = {
  key_created: KeyCreated,
} as const;
