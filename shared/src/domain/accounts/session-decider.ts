// A console sign-in session as a pure decider. The session id is the SHA-256 of the
// cookie's token, so the log and the read model hold nothing that signs anyone in.
//   - Start: refused when the session exists, or when the account is not ACTIVE (unknown
//     or disabled); it lasts ttlMs;
//   - End: refused when unknown; nothing when it has ended already.
// A session is valid while started, not ended, before its expiry, and its account active.
import { IllegalStateError, NotFoundError, UnauthorizedError } from '../errors.js';
import { SESSION_PART } from '../events/account.js';
import type { EventData } from '../events/index.js';
import type { AccountState } from './account-decider.js';

export type SessionEventName = 'session_started' | 'session_ended';
export type SessionEvent = { [N in SessionEventName]: { part: string; event: N; data: EventData<N> } }[SessionEventName];

export interface SessionState {
  status: 'NONE' | 'OPEN' | 'ENDED';
  accountId: string;
  expiresAt: string;
}

export const initialSessionState = (): SessionState => ({ status: 'NONE', accountId: '', expiresAt: '' });

export function evolveSession(state: SessionState, event: { event: string; data: unknown }): SessionState {
  const e = event as SessionEvent;
  switch (e.event) {
    case 'session_started':
      return state.status !== 'NONE' ? state : { status: 'OPEN', accountId: e.data.accountId, expiresAt: e.data.expiresAt };
    case 'session_ended':
      return state.status === 'OPEN' ? { ...state, status: 'ENDED' } : state;
    default:
      return state;
  }
}

export type SessionCommand =
  | { type: 'StartSession'; sessionId: string; accountId: string; account: Pick<AccountState, 'status'>; ttlMs: number; at: Date }
  | { type: 'EndSession'; sessionId: string; at: Date };

export function decideSession(command: SessionCommand, state: SessionState): SessionEvent[] {
  const at = command.at.toISOString();
  if (command.type === 'StartSession') {
    if (state.status !== 'NONE') throw new IllegalStateError('this session exists already', 'CONFLICT');
    if (command.account.status !== 'ACTIVE') throw new UnauthorizedError('this account cannot sign in');
    return [{ part: SESSION_PART, event: 'session_started', data: { accountId: command.accountId, startedAt: at, expiresAt: new Date(command.at.getTime() + command.ttlMs).toISOString() } }];
  }
  if (state.status === 'NONE') throw new NotFoundError('no such session');
  return state.status === 'ENDED' ? [] : [{ part: SESSION_PART, event: 'session_ended', data: { endedAt: at, reason: 'signed_out' } }];
}

/** For folding stored events and for given/when/then tests (typed by the aggregate's own events). */
export const sessionDecider = { decide: decideSession, evolve: evolveSession as (state: SessionState, event: SessionEvent) => SessionState, initialState: initialSessionState };

/** Whether a session signs its account in at `at`. */
export function isSessionValid(session: { status: SessionState['status']; expiresAt: string }, account: { status: AccountState['status'] } | null, at: Date): boolean {
  return session.status === 'OPEN' && at.getTime() < Date.parse(session.expiresAt) && account?.status === 'ACTIVE';
}
