// An API key as a pure decider (the crawl decider's style): `evolve` folds the key's log
// events into a state, `decide` turns an operator's command and that state into new
// events, or refuses it. No IO, no clock: the caller (scripts/keys.ts through ./admin.ts)
// reads the key's history, passes `now`, and appends what comes back.
import { IllegalStateError, NotFoundError } from '../errors.js';
import { KEY_PART } from '../events/apikey.js';
import type { EventData, EventName } from '../events/index.js';
import type { Plan } from '../plans.js';

/** An event as the decider sees it; those not about the key's life (webhook secret rotations) change nothing. */
export type KeyEvent = { [N in EventName]: { part: string; event: N; data: EventData<N> } }[EventName];

export type KeyStatus = 'NONE' | 'ACTIVE' | 'REVOKED';

export interface KeyState {
  status: KeyStatus;
  plan: Plan | null;
  label: string;
  createdAt: string | null;
  revokedAt: string | null;
  revokeReason: string | null;
  /** The console account that owns the key; null: an operator's key. */
  accountId: string | null;
}

export const initialState = (): KeyState => ({ status: 'NONE', plan: null, label: '', createdAt: null, revokedAt: null, revokeReason: null, accountId: null });

export function evolve(state: KeyState, event: KeyEvent): KeyState {
  switch (event.event) {
    case 'key_created':
      if (state.status !== 'NONE') return state;
      return { ...state, status: 'ACTIVE', plan: event.data.plan, label: event.data.label, createdAt: event.data.createdAt, accountId: event.data.accountId ?? null };
    case 'key_revoked':
      if (state.status !== 'ACTIVE') return state;
      return { ...state, status: 'REVOKED', revokedAt: event.data.revokedAt, revokeReason: event.data.reason ?? null };
    case 'key_plan_changed':
      return state.status === 'ACTIVE' ? { ...state, plan: event.data.plan } : state;
    case 'key_adopted':
      return state.status === 'ACTIVE' && state.accountId === null ? { ...state, accountId: event.data.accountId } : state;
    default:
      return state;
  }
}

export type KeyCommand =
  | { type: 'CreateKey'; keyId: string; keyHash: string; plan: Plan; label: string; accountId?: string }
  | { type: 'RevokeKey'; keyId: string; reason?: string }
  | { type: 'ChangePlan'; keyId: string; plan: Plan }
  | { type: 'AdoptKey'; keyId: string; accountId: string };

export type Emitted = Extract<KeyEvent, { event: 'key_created' | 'key_revoked' | 'key_plan_changed' | 'key_adopted' }>;

/**
 * A command the key's state refuses. `refusal` lets a caller tell them apart (the CLI
 * treats "already revoked" as done). Never answered over HTTP, so it keeps the default code.
 */
export class KeyStateError extends IllegalStateError {
  constructor(message: string, readonly refusal: 'exists' | 'already-revoked' | 'revoked' | 'owned') {
    super(message);
  }
}

// The rules:
//   - CreateKey: refused when the key exists (its id is derived from its hash, so the same
//     key is the same aggregate);
//   - RevokeKey: refused when the key is unknown or already revoked. Revocation is final;
//   - ChangePlan: refused when the key is unknown or revoked; no event when the key is on
//     that plan already;
//   - AdoptKey: refused when the key is unknown, revoked, or owned by another account
//     already (an owned key never changes hands); no event when that account owns it.
// The log may still hold a plan change after a revocation (two operators racing on two
// subjects); `evolve` ignores it, and so does the api-keys read model.
export function decide(command: KeyCommand, state: KeyState, ctx: { now: Date }): Emitted[] {
  const at = ctx.now.toISOString();
  if (command.type === 'CreateKey') {
    if (state.status !== 'NONE') throw new KeyStateError(`key ${command.keyId} already exists`, 'exists');
    return [{ part: KEY_PART, event: 'key_created', data: { keyHash: command.keyHash, plan: command.plan, label: command.label, createdAt: at, ...(command.accountId ? { accountId: command.accountId } : {}) } }];
  }
  if (state.status === 'NONE') throw new NotFoundError(`key ${command.keyId} not found`);
  switch (command.type) {
    case 'RevokeKey':
      if (state.status === 'REVOKED') throw new KeyStateError(`key ${command.keyId} was already revoked at ${state.revokedAt}`, 'already-revoked');
      return [{ part: KEY_PART, event: 'key_revoked', data: { revokedAt: at, ...(command.reason !== undefined ? { reason: command.reason } : {}) } }];
    case 'ChangePlan':
      if (state.status === 'REVOKED') throw new KeyStateError(`key ${command.keyId} is revoked (at ${state.revokedAt}): its plan cannot change`, 'revoked');
      if (state.plan === command.plan) return [];
      return [{ part: KEY_PART, event: 'key_plan_changed', data: { plan: command.plan, changedAt: at } }];
    case 'AdoptKey':
      if (state.status === 'REVOKED') throw new KeyStateError(`key ${command.keyId} is revoked (at ${state.revokedAt}): it cannot be adopted`, 'revoked');
      if (state.accountId === command.accountId) return [];
      if (state.accountId !== null) throw new KeyStateError(`key ${command.keyId} belongs to another account`, 'owned');
      return [{ part: KEY_PART, event: 'key_adopted', data: { accountId: command.accountId, adoptedAt: at } }];
  }
}

/** Folds a history into a state. */
export function rehydrate(events: Iterable<KeyEvent>, from: KeyState = initialState()): KeyState {
  let s = from;
  for (const e of events) s = evolve(s, e);
  return s;
}
