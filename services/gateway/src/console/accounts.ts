// What the console does with accounts, invites and sessions, without HTTP: every change is
// a command decided against the log (shared/src/domain/accounts/commands.ts); reads come from the
// read models, and fall back to the log itself for what was appended a moment ago and is
// not projected yet (a session started by the previous response).
import { adoptKey, changeKeyPlan, listKeys, revokeKey, type KeySummary } from '../../../../shared/src/domain/api-keys/admin.js';
import { KeyStateError } from '../../../../shared/src/domain/api-keys/decider.js';
import { accountDecider, checkPassword, normalizeEmail, type AccountState } from '../../../../shared/src/domain/accounts/account-decider.js';
import { createInvite, hasAdmin, inviteLink, runAccountCommand, runInviteCommand, runSessionCommand } from '../../../../shared/src/domain/accounts/commands.js';
import { inviteDecider } from '../../../../shared/src/domain/accounts/invite-decider.js';
import { decoyHash, hashPassword, verifyPassword } from '../../../../shared/src/domain/accounts/password.js';
import { isSessionValid } from '../../../../shared/src/domain/accounts/session-decider.js';
import { accountIdOf, inviteIdOf, inviteTokenHash, newSessionToken, SESSION_TTL_MS, sessionIdOf } from '../../../../shared/src/domain/accounts/tokens.js';
import { ForbiddenError, NotFoundError, UnauthorizedError, ValidationError } from '../../../../shared/src/domain/errors.js';
import type { Role } from '../../../../shared/src/domain/events/account.js';
import type { Clock } from '../../../../shared/src/infra/ids.js';
import type { EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import { PLANS, type Plan } from '../../../../shared/src/domain/plans.js';
import type { AccountDoc, ReadModelStore, SessionDoc } from '../../../../shared/src/infra/store/index.js';
import type { ProjectionWaiter } from '../projection-wait.js';
import type { ConsoleConfig } from '../../../../shared/src/infra/console-config.js';
import type { LoginThrottle } from './throttle.js';

export interface AccountsDeps {
  log: EventLog;
  store: ReadModelStore;
  waiter: ProjectionWaiter;
  clock: Clock;
  throttle: LoginThrottle;
  config: ConsoleConfig;
  publicBaseUrl: string;
}

const PAGE = { limit: 500, offset: 0 };
/** The largest plan: the first admin's (it is the operator's own server). */
export const TOP_PLAN: Plan = PLANS[PLANS.length - 1]!;

export class ConsoleAccounts {
  constructor(private readonly deps: AccountsDeps) {}

  private async projected(seq: number | null): Promise<void> {
    if (seq !== null) await this.deps.waiter.waitFor(seq);
  }

  /** The account, from the read model or (not projected yet) folded from the log. */
  async account(accountId: string): Promise<AccountDoc | null> {
    const doc = await this.deps.store.accounts.get(accountId);
    if (doc) return doc;
    const history = await this.deps.log.history('account', accountId);
    const state: AccountState = history.reduce((s, e) => accountDecider.evolve(s, e as never), accountDecider.initialState());
    const first = history[0];
    if (state.status === 'NONE' || !first || first.event !== 'account_registered') return null;
    return { id: accountId, email: state.email, passwordHash: state.passwordHash, role: state.role, plan: state.plan, status: state.status, createdAt: first.data.registeredAt, lastSeq: history.at(-1)!.seq };
  }

  private async session(sessionId: string): Promise<Pick<SessionDoc, 'accountId' | 'expiresAt' | 'endedAt'> | null> {
    const doc = await this.deps.store.sessions.get(sessionId);
    if (doc) return doc;
    const started = await this.deps.log.last({ kind: 'session', id: sessionId, part: 'session', event: 'session_started' });
    if (!started || started.event !== 'session_started') return null;
    const ended = await this.deps.log.exists({ kind: 'session', id: sessionId, part: 'session', event: 'session_ended' });
    return { accountId: started.data.accountId, expiresAt: started.data.expiresAt, ...(ended ? { endedAt: started.occurredAt } : {}) };
  }

  /** The signed-in account of a session cookie's token, or null. */
  async signedIn(token: string): Promise<AccountDoc | null> {
    const session = await this.session(sessionIdOf(token));
    if (!session) return null;
    const account = await this.account(session.accountId);
    const valid = isSessionValid({ status: session.endedAt ? 'ENDED' : 'OPEN', expiresAt: session.expiresAt }, account, this.deps.clock());
    return valid ? account : null;
  }

  private async startSession(account: AccountDoc): Promise<string> {
    const token = newSessionToken();
    const outcome = await runSessionCommand(this.deps.log, {
      type: 'StartSession', sessionId: sessionIdOf(token), accountId: account.id, account, ttlMs: SESSION_TTL_MS, at: this.deps.clock(),
    });
    await this.projected(outcome.seq);
    return token;
  }

  /**
   * Makes an account (from an invite unless sign-up is open) and signs it in; returns the
   * session token. The first admin (from npm start's invite) is the operator: their account
   * gets the top plan and adopts the keys npm start made, so the jobs and usage of those
   * keys (the CLI's, the SDK's, the MCP server's) show in the console.
   */
  async signUp(input: { email: string; password: string; invite?: string | undefined }): Promise<{ token: string; account: AccountDoc; adopted: number }> {
    const { signup, defaultPlan } = this.deps.config;
    const email = normalizeEmail(input.email);
    checkPassword(input.password);
    const accountId = accountIdOf(email);
    let role: Role = 'member';
    let inviteId: string | undefined;
    let operator = false;
    if (input.invite) {
      inviteId = await this.usableInvite(input.invite);
      const invite = await this.inviteState(inviteId);
      role = invite.role;
      operator = invite.bootstrap;
    } else if (signup !== 'open') {
      throw new ForbiddenError(signup === 'closed' ? 'sign-up is closed on this server' : 'sign-up needs an invite link; ask an admin for one');
    }
    if (signup === 'closed' && role !== 'admin') throw new ForbiddenError('sign-up is closed on this server');
    if (await this.deps.log.exists({ kind: 'account', id: accountId, part: 'account', event: 'account_registered' })) {
      throw new ValidationError('an account with this email exists already; sign in instead', 'email');
    }
    const passwordHash = await hashPassword(input.password);
    const at = this.deps.clock();
    // The invite first: of two people racing for one invite, one gets it; the other makes
    // no account. (If the email were taken in between, the invite is spent: rare, and an
    // admin makes another.)
    if (inviteId) await runInviteCommand(this.deps.log, { type: 'RedeemInvite', inviteId, accountId, adminExists: await hasAdmin(this.deps.log), at });
    const plan = operator ? TOP_PLAN : defaultPlan;
    const outcome = await runAccountCommand(this.deps.log, { type: 'Register', accountId, email, passwordHash, role, plan, ...(inviteId ? { inviteId } : {}), at });
    await this.projected(outcome.seq);
    const account = (await this.account(accountId))!;
    const adopted = operator ? await this.adoptOperatorKeys(account) : 0;
    return { token: await this.startSession(account), account, adopted };
  }

  /** The keys no account owns (npm start's, BOOTSTRAP_API_KEYS, npm run keys), not revoked; from the log. */
  async operatorKeys(): Promise<KeySummary[]> {
    return (await listKeys(this.deps.log)).filter((k) => k.accountId === null && k.revokedAt === null);
  }

  /** Moves operator keys (all, or those named) into the account; returns how many moved. */
  async adoptOperatorKeys(account: AccountDoc, keyIds?: string[]): Promise<number> {
    let last: number | null = null;
    let moved = 0;
    for (const key of await this.operatorKeys()) {
      if (keyIds && !keyIds.includes(key.keyId)) continue;
      try {
        const outcome = await adoptKey({ log: this.deps.log, now: this.deps.clock }, key.keyId, account.id);
        if (outcome.seq !== null) { last = outcome.seq; moved++; }
      } catch (err) {
        if (!(err instanceof KeyStateError)) throw err; // revoked or adopted meanwhile
      }
    }
    await this.projected(last);
    return moved;
  }

  private async inviteState(inviteId: string) {
    const history = await this.deps.log.history('invite', inviteId);
    return history.reduce((s, e) => inviteDecider.evolve(s, e as never), inviteDecider.initialState());
  }

  /** The invite id of a token that can be used now; throws a friendly refusal otherwise. */
  async usableInvite(token: string): Promise<string> {
    if (!/^inv_[A-Za-z0-9_-]{32}$/.test(token)) throw new NotFoundError('this invite link is not valid');
    const inviteId = inviteIdOf(token);
    const state = await this.inviteState(inviteId);
    if (state.status === 'NONE' || state.tokenHash !== inviteTokenHash(token)) throw new NotFoundError('this invite link is not valid');
    if (state.status === 'USED') throw new ForbiddenError('this invite link has been used already');
    if (state.status === 'REVOKED') throw new ForbiddenError('this invite link was revoked by an admin; ask them for a new one');
    if (this.deps.clock().getTime() >= Date.parse(state.expiresAt)) throw new ForbiddenError('this invite link has expired; ask an admin for a new one');
    if (state.bootstrap && await hasAdmin(this.deps.log)) throw new ForbiddenError('this start-up invite was for the first admin, and an admin exists now: ask them for an invite');
    return inviteId;
  }

  /**
   * Checks the password, limited per account and address: the attempt is counted before
   * the check (throttle.ts) and given back when the password is right. Returns a new session token.
   */
  async signIn(input: { email: string; password: string; address: string }): Promise<{ token: string; account: AccountDoc }> {
    let email: string;
    try { email = normalizeEmail(input.email); } catch { throw new UnauthorizedError('wrong email or password'); }
    const attempt = await this.deps.throttle.reserve(email, input.address);
    const account = await this.account(accountIdOf(email));
    // An unknown email costs the same scrypt time as a wrong password.
    const ok = await verifyPassword(input.password.slice(0, 1024), account?.passwordHash ?? await decoyHash());
    if (!account || !ok) throw new UnauthorizedError('wrong email or password');
    await attempt.refund();
    if (account.status !== 'ACTIVE') throw new ForbiddenError('this account is disabled; ask an admin');
    return { token: await this.startSession(account), account };
  }

  async signOut(token: string): Promise<void> {
    const sessionId = sessionIdOf(token);
    if (!(await this.session(sessionId))) return;
    const outcome = await runSessionCommand(this.deps.log, { type: 'EndSession', sessionId, at: this.deps.clock() });
    await this.projected(outcome.seq);
  }

  // ---- admin -----------------------------------------------------------------------

  async invite(by: AccountDoc, role: Role): Promise<{ link: string; expiresAt: string }> {
    const made = await createInvite(this.deps.log, { role, createdBy: by.id, now: this.deps.clock() });
    await this.projected(made.seq);
    return { link: inviteLink(this.deps.publicBaseUrl, made.token), expiresAt: made.expiresAt };
  }

  /** Takes back an open invite: its link stops working. Revoking it again changes nothing. */
  async revokeInvite(by: AccountDoc, inviteId: string): Promise<void> {
    const outcome = await runInviteCommand(this.deps.log, { type: 'RevokeInvite', inviteId, by: by.id, at: this.deps.clock() });
    await this.projected(outcome.seq);
  }

  async changePlan(by: AccountDoc, accountId: string, plan: Plan): Promise<void> {
    const outcome = await runAccountCommand(this.deps.log, { type: 'ChangePlan', accountId, plan, by: by.id, at: this.deps.clock() });
    await this.projected(outcome.seq);
    await this.syncKeyPlans(accountId, plan);
  }

  /**
   * Puts the account's active keys on its plan. Run after every plan change and whenever
   * the account's keys are shown, so a change interrupted half way is finished later.
   */
  async syncKeyPlans(accountId: string, plan: Plan): Promise<void> {
    let last: number | null = null;
    for (const key of await this.deps.store.apiKeys.listBy(accountId, PAGE)) {
      if (key.revokedAt || key.plan === plan) continue;
      try {
        last = (await changeKeyPlan({ log: this.deps.log, now: this.deps.clock }, key.id, plan)).seq ?? last;
      } catch (err) {
        if (!(err instanceof KeyStateError)) throw err; // revoked meanwhile
      }
    }
    await this.projected(last);
  }

  /** Disabling ends the account's sign-ins and revokes its keys (revocation is final). */
  async setDisabled(by: AccountDoc, accountId: string, disabled: boolean): Promise<void> {
    const at = this.deps.clock();
    const outcome = await runAccountCommand(this.deps.log, disabled ? { type: 'Disable', accountId, by: by.id, at } : { type: 'Enable', accountId, by: by.id, at });
    await this.projected(outcome.seq);
    if (!disabled) return;
    let last: number | null = null;
    for (const key of await this.deps.store.apiKeys.listBy(accountId, PAGE)) {
      if (key.revokedAt) continue;
      try {
        last = (await revokeKey({ log: this.deps.log, now: this.deps.clock }, key.id, 'account disabled')).seq;
      } catch (err) {
        if (!(err instanceof KeyStateError)) throw err;
      }
    }
    await this.projected(last);
  }
}
