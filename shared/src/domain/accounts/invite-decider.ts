// An invite as a pure decider. An invite is a secret link (its token) that lets one person
// make one account, with the role it names, until it expires.
//   - Create: refused when it exists; the expiry must be after the creation;
//   - Redeem: refused when unknown, used, revoked, or expired (at or after expiresAt); a
//     bootstrap invite (npm start's, for the first admin) also once any admin exists;
//   - Revoke: refused when unknown or used; no event when revoked already. Final.
import { IllegalStateError, NotFoundError, ValidationError } from '../errors.js';
import { INVITE_PART, type Role } from '../events/account.js';
import type { EventData } from '../events/index.js';

export type InviteEventName = 'invite_created' | 'invite_redeemed' | 'invite_revoked';
export type InviteEvent = { [N in InviteEventName]: { part: string; event: N; data: EventData<N> } }[InviteEventName];

export interface InviteState {
  status: 'NONE' | 'OPEN' | 'USED' | 'REVOKED';
  role: Role;
  tokenHash: string;
  expiresAt: string;
  bootstrap: boolean;
  redeemedBy: string | null;
}

export const initialInviteState = (): InviteState => ({ status: 'NONE', role: 'member', tokenHash: '', expiresAt: '', bootstrap: false, redeemedBy: null });

export function evolveInvite(state: InviteState, event: { event: string; data: unknown }): InviteState {
  const e = event as InviteEvent;
  switch (e.event) {
    case 'invite_created':
      return state.status !== 'NONE' ? state : { ...state, status: 'OPEN', role: e.data.role, tokenHash: e.data.tokenHash, expiresAt: e.data.expiresAt, bootstrap: e.data.bootstrap === true };
    case 'invite_redeemed':
      return state.status !== 'OPEN' ? state : { ...state, status: 'USED', redeemedBy: e.data.accountId };
    case 'invite_revoked':
      return state.status !== 'OPEN' ? state : { ...state, status: 'REVOKED' };
    default:
      return state;
  }
}

export type InviteCommand =
  | { type: 'CreateInvite'; inviteId: string; tokenHash: string; role: Role; createdBy: string; ttlMs: number; bootstrap?: boolean; at: Date }
  | { type: 'RedeemInvite'; inviteId: string; accountId: string; adminExists: boolean; at: Date }
  | { type: 'RevokeInvite'; inviteId: string; by: string; at: Date };

export class InviteStateError extends IllegalStateError {
  constructor(message: string, readonly refusal: 'exists' | 'used' | 'expired' | 'superseded' | 'revoked') {
    super(message, 'CONFLICT');
  }
}

export function isInviteUsable(state: InviteState, at: Date, adminExists: boolean): boolean {
  return state.status === 'OPEN' && at.getTime() < Date.parse(state.expiresAt) && !(state.bootstrap && adminExists);
}

export function decideInvite(command: InviteCommand, state: InviteState): InviteEvent[] {
  const at = command.at.toISOString();
  if (command.type === 'CreateInvite') {
    if (state.status !== 'NONE') throw new InviteStateError('this invite exists already', 'exists');
    if (!(command.ttlMs > 0)) throw new ValidationError('an invite must expire after it is made', 'ttlMs');
    const expiresAt = new Date(command.at.getTime() + command.ttlMs).toISOString();
    return [{ part: INVITE_PART, event: 'invite_created', data: { tokenHash: command.tokenHash, role: command.role, createdAt: at, expiresAt, createdBy: command.createdBy, ...(command.bootstrap ? { bootstrap: true } : {}) } }];
  }
  if (state.status === 'NONE') throw new NotFoundError('this invite link is not valid');
  if (state.status === 'USED') throw new InviteStateError('this invite link has been used already', 'used');
  if (command.type === 'RevokeInvite') {
    if (state.status === 'REVOKED') return [];
    return [{ part: INVITE_PART, event: 'invite_revoked', data: { revokedAt: at, by: command.by } }];
  }
  if (state.status === 'REVOKED') throw new InviteStateError('this invite link was revoked by an admin', 'revoked');
  if (command.at.getTime() >= Date.parse(state.expiresAt)) throw new InviteStateError('this invite link has expired', 'expired');
  if (!isInviteUsable(state, command.at, command.adminExists)) throw new InviteStateError('this start-up invite was for the first admin, and an admin exists now: ask them for an invite', 'superseded');
  return [{ part: INVITE_PART, event: 'invite_redeemed', data: { accountId: command.accountId, redeemedAt: at } }];
}

/** For folding stored events and for given/when/then tests (typed by the aggregate's own events). */
export const inviteDecider = { decide: decideInvite, evolve: evolveInvite as (state: InviteState, event: InviteEvent) => InviteState, initialState: initialInviteState };
