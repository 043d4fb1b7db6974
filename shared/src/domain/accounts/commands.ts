// Console commands against the event log (the IO around the three deciders): read the
// aggregate's history, decide, append. Events that happen once per subject (a
// registration, an invite made or used, a session started or ended) are `once` appends,
// so of two racing requests the second is refused by the server, re-reads and gets the
// decider's answer; repeating ones (plan changes, disabling, enabling) carry their
// subject's last sequence as read (docs/architecture.md "Idempotency").
import { appendDecision } from '../append-decision.js';
import type { EventLog } from '../../infra/nats/event-log.js';
import type { AggregateKind } from '../../infra/subjects.js';
import { accountDecider, type AccountCommand, type AccountState } from './account-decider.js';
import { inviteDecider, type InviteCommand, type InviteState } from './invite-decider.js';
import { sessionDecider, type SessionCommand, type SessionState } from './session-decider.js';
import { INVITE_TTL_MS, inviteIdOf, inviteTokenHash, newInviteToken } from './tokens.js';
import type { Role } from '../events/account.js';

const ONCE: ReadonlySet<string> = new Set(['account_registered', 'invite_created', 'invite_redeemed', 'invite_revoked', 'session_started', 'session_ended']);
const MAX_ATTEMPTS = 5;

interface Decider<C, S> {
  decide(command: C, state: S): { part: string; event: string; data: unknown }[];
  evolve(state: S, event: never): S;
  initialState(): S;
}

export interface Outcome<S> {
  /** Stream sequence of the last appended event; null when nothing needed appending. */
  seq: number | null;
  state: S;
}

async function execute<C, S>(log: EventLog, kind: AggregateKind, id: string, decider: Decider<C, S>, command: C): Promise<Outcome<S>> {
  for (let attempt = 1; ; attempt++) {
    const history = await log.history(kind, id);
    const before = history.reduce((s, e) => decider.evolve(s, e as never), decider.initialState());
    const emitted = decider.decide(command, before);
    if (emitted.length === 0) return { seq: null, state: before };
    const seq = await appendDecision(log, { kind, id }, emitted, history, { once: (event) => ONCE.has(event), now: new Date() });
    if (seq !== null) return { seq, state: emitted.reduce((s, e) => decider.evolve(s, e as never), before) };
    if (attempt >= MAX_ATTEMPTS) throw new Error(`${kind} ${id}: gave up after ${attempt} concurrent changes`);
  }
}

export const runAccountCommand = (log: EventLog, command: AccountCommand): Promise<Outcome<AccountState>> =>
  execute(log, 'account', command.accountId, accountDecider, command);

export const runInviteCommand = (log: EventLog, command: InviteCommand): Promise<Outcome<InviteState>> =>
  execute(log, 'invite', command.inviteId, inviteDecider, command);

export const runSessionCommand = (log: EventLog, command: SessionCommand): Promise<Outcome<SessionState>> =>
  execute(log, 'session', command.sessionId, sessionDecider, command);

/** Makes an invite and returns its token (shown once: only its hash is kept). */
export async function createInvite(log: EventLog, opts: { role: Role; createdBy: string; ttlMs?: number; bootstrap?: boolean; now?: Date }): Promise<{ token: string; inviteId: string; seq: number | null; expiresAt: string }> {
  const token = newInviteToken();
  const inviteId = inviteIdOf(token);
  const outcome = await runInviteCommand(log, {
    type: 'CreateInvite', inviteId, tokenHash: inviteTokenHash(token), role: opts.role, createdBy: opts.createdBy,
    ttlMs: opts.ttlMs ?? INVITE_TTL_MS, ...(opts.bootstrap ? { bootstrap: true } : {}), at: opts.now ?? new Date(),
  });
  return { token, inviteId, seq: outcome.seq, expiresAt: outcome.state.expiresAt };
}

/** The link that opens the console's sign-up form with an invite. */
export const inviteLink = (publicBaseUrl: string, token: string): string => `${publicBaseUrl}/console/signup?invite=${encodeURIComponent(token)}`;

/** Whether any account has the admin role (folded from the log: no read model needed). */
export async function hasAdmin(log: EventLog): Promise<boolean> {
  return (await log.read('trawl.account.*.account.account_registered')).some((e) => e.event === 'account_registered' && e.data.role === 'admin');
}
