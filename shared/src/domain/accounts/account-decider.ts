// A console account as a pure decider: `evolve` folds the account's events, `decide` turns
// a command and that state into new events or refuses it (the rules: see `decideAccount`).
// No IO, no clock: the time comes in the command (`at`). The IO around it is ./commands.ts.
import { IllegalStateError, NotFoundError, ValidationError } from '../errors.js';
import { ACCOUNT_PART, type Role } from '../events/account.js';
import type { EventData } from '../events/index.js';
import type { Plan } from '../plans.js';

export type AccountEventName = 'account_registered' | 'account_plan_changed' | 'account_disabled' | 'account_enabled';
export type AccountEvent = { [N in AccountEventName]: { part: string; event: N; data: EventData<N> } }[AccountEventName];

export interface AccountState {
  status: 'NONE' | 'ACTIVE' | 'DISABLED';
  email: string;
  role: Role;
  plan: Plan;
  passwordHash: string;
}

export const initialAccountState = (): AccountState => ({ status: 'NONE', email: '', role: 'member', plan: 'free', passwordHash: '' });

export function evolveAccount(state: AccountState, event: { event: string; data: unknown }): AccountState {
  const e = event as AccountEvent;
  switch (e.event) {
    case 'account_registered':
      if (state.status !== 'NONE') return state;
      return { status: 'ACTIVE', email: e.data.email, role: e.data.role, plan: e.data.plan, passwordHash: e.data.passwordHash };
    case 'account_plan_changed':
      return state.status === 'NONE' ? state : { ...state, plan: e.data.plan };
    case 'account_disabled':
      return state.status === 'NONE' ? state : { ...state, status: 'DISABLED' };
    case 'account_enabled':
      return state.status === 'NONE' ? state : { ...state, status: 'ACTIVE' };
    default:
      return state;
  }
}

export type AccountCommand =
  | { type: 'Register'; accountId: string; email: string; passwordHash: string; role: Role; plan: Plan; inviteId?: string; at: Date }
  | { type: 'ChangePlan'; accountId: string; plan: Plan; by: string; at: Date }
  | { type: 'Disable'; accountId: string; by: string; at: Date }
  | { type: 'Enable'; accountId: string; by: string; at: Date };

/** A command the account's state refuses; `refusal` tells callers apart. */
export class AccountStateError extends IllegalStateError {
  constructor(message: string, readonly refusal: 'exists' | 'self') {
    super(message, 'CONFLICT');
  }
}

/**
 * Register: refused when the account exists (its id derives from the email, so an email
 * registers once). ChangePlan: refused when unknown; nothing when on that plan already.
 * Disable: refused when unknown and for an admin's own account (an admin cannot lock
 * themself out); nothing when disabled already. Enable: refused when unknown; nothing when
 * active.
 */
export function decideAccount(command: AccountCommand, state: AccountState): AccountEvent[] {
  const at = command.at.toISOString();
  if (command.type === 'Register') {
    if (state.status !== 'NONE') throw new AccountStateError('an account with this email exists already', 'exists');
    return [{
      part: ACCOUNT_PART, event: 'account_registered',
      data: { email: command.email, passwordHash: command.passwordHash, role: command.role, plan: command.plan, ...(command.inviteId ? { inviteId: command.inviteId } : {}), registeredAt: at },
    }];
  }
  if (state.status === 'NONE') throw new NotFoundError(`no account ${command.accountId}`);
  switch (command.type) {
    case 'ChangePlan':
      return state.plan === command.plan ? [] : [{ part: ACCOUNT_PART, event: 'account_plan_changed', data: { plan: command.plan, changedAt: at, by: command.by } }];
    case 'Disable':
      if (command.by === command.accountId) throw new AccountStateError('an admin cannot disable their own account', 'self');
      return state.status === 'DISABLED' ? [] : [{ part: ACCOUNT_PART, event: 'account_disabled', data: { disabledAt: at, by: command.by } }];
    case 'Enable':
      return state.status === 'ACTIVE' ? [] : [{ part: ACCOUNT_PART, event: 'account_enabled', data: { enabledAt: at, by: command.by } }];
  }
}

/** For folding stored events and for given/when/then tests (typed by the aggregate's own events). */
export const accountDecider = { decide: decideAccount, evolve: evolveAccount as (state: AccountState, event: AccountEvent) => AccountState, initialState: initialAccountState };

// ---- what an email and a password must be ---------------------------------------------

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
// Deliberately plain: one @, no spaces or control characters, a dot in the domain.
const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/** The email as accounts are keyed by it: trimmed, lower case. Throws ValidationError. */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw new ValidationError('enter a valid email address', 'email');
  return email;
}

export function checkPassword(password: string): void {
  if (password.length < PASSWORD_MIN) throw new ValidationError(`the password must have at least ${PASSWORD_MIN} characters`, 'password');
  if (password.length > PASSWORD_MAX) throw new ValidationError(`the password must have at most ${PASSWORD_MAX} characters`, 'password');
}
