// Operator commands on API keys, against the event log (the IO around ./decider.ts): read
// the key's history, decide, append. The log is the only truth these read; no read model
// is needed, so the CLI (scripts/keys.ts) needs nothing but NATS. Once-only events are
// appended `once`, repeating ones on the subject's last sequence: of two racing operators
// the loser re-reads and gets the decider's answer.
import { NotFoundError } from '../errors.js';
import { KEY_PART } from '../events/apikey.js';
import { appendDecision } from '../append-decision.js';
import type { StoredEvent } from '../events/index.js';
import { apiKeyHash, apiKeyId, newApiKey } from '../../infra/ids.js';
import type { EventLog } from '../../infra/nats/event-log.js';
import type { Plan } from '../plans.js';
import { SUBJECT_ROOT } from '../../infra/subjects.js';
import { decide, rehydrate, type KeyCommand, type KeyState } from './decider.js';

/** Re-read and decide again this many times when another writer got in between. */
const MAX_ATTEMPTS = 5;

/** Every API key event (all keys): the `list` filter. */
export const ALL_KEY_EVENTS = `${SUBJECT_ROOT}.apikey.>`;

/** A key id: 20 hex characters (the start of the key's hash). */
const KEY_ID = /^[0-9a-f]{20}$/;

export interface KeySummary {
  keyId: string;
  plan: Plan;
  label: string;
  createdAt: string;
  revokedAt: string | null;
  revokeReason: string | null;
  accountId: string | null;
}

export interface Outcome {
  keyId: string;
  /** Stream sequence of the appended event; null when nothing needed appending. */
  seq: number | null;
  /** The key as the decision found it, and as it is with the appended event. */
  before: KeyState;
  after: KeyState;
}

export interface AdminDeps {
  log: EventLog;
  now?: () => Date;
}

async function execute({ log, now = () => new Date() }: AdminDeps, command: KeyCommand): Promise<Outcome> {
  for (let attempt = 1; ; attempt++) {
    const history = await log.history('apikey', command.keyId);
    const before = rehydrate(history);
    const at = now();
    const emitted = decide(command, before, { now: at });
    if (emitted.length === 0) return { keyId: command.keyId, seq: null, before, after: before };
    // A decision is at most one event, so a refused append leaves nothing half done.
    const seq = await appendDecision(log, { kind: 'apikey', id: command.keyId }, emitted, history, { once: (event) => event !== 'key_plan_changed', now: at });
    if (seq !== null) return { keyId: command.keyId, seq, before, after: rehydrate(emitted, before) };
    // Another writer got in between: the next round reads its event and decides on it.
    if (attempt >= MAX_ATTEMPTS) throw new Error(`key ${command.keyId}: gave up after ${attempt} concurrent changes`);
  }
}

/** Makes a new random key (the format `npm start` prints) and records it; the key is returned once, never stored. */
export async function createKey(deps: AdminDeps, plan: Plan, label: string, key: string = newApiKey(), accountId?: string): Promise<Outcome & { key: string }> {
  const outcome = await execute(deps, { type: 'CreateKey', keyId: apiKeyId(key), keyHash: apiKeyHash(key), plan, label, ...(accountId ? { accountId } : {}) });
  return { ...outcome, key };
}

/** Revokes a key for good. Throws NotFoundError, or KeyStateError 'already-revoked'. */
export function revokeKey(deps: AdminDeps, keyId: string, reason?: string): Promise<Outcome> {
  return execute(deps, { type: 'RevokeKey', keyId, ...(reason !== undefined ? { reason } : {}) });
}

/** Moves a key to another plan (seq null: it was on it already). Throws NotFoundError, or KeyStateError 'revoked'. */
export function changeKeyPlan(deps: AdminDeps, keyId: string, plan: Plan): Promise<Outcome> {
  return execute(deps, { type: 'ChangePlan', keyId, plan });
}

/** Moves an operator's key (owned by no account) into a console account (seq null: it is there already). Throws NotFoundError, or KeyStateError 'revoked' / 'owned'. */
export function adoptKey(deps: AdminDeps, keyId: string, accountId: string): Promise<Outcome> {
  return execute(deps, { type: 'AdoptKey', keyId, accountId });
}

/** Every key ever created, oldest first, folded from the log. */
export async function listKeys(log: EventLog): Promise<KeySummary[]> {
  const byKey = new Map<string, StoredEvent[]>();
  for (const e of await log.read(ALL_KEY_EVENTS)) {
    const list = byKey.get(e.id) ?? [];
    list.push(e);
    byKey.set(e.id, list);
  }
  const keys: KeySummary[] = [];
  for (const [keyId, events] of byKey) {
    const s = rehydrate(events);
    if (s.status === 'NONE' || !s.plan || !s.createdAt) continue;
    keys.push({ keyId, plan: s.plan, label: s.label, createdAt: s.createdAt, revokedAt: s.revokedAt, revokeReason: s.revokeReason, accountId: s.accountId });
  }
  return keys.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId));
}

/**
 * The id of the key an operator named, by its id or by the key itself. A 20-hex-character
 * argument is tried as an id first; anything else (or an id that names no key) as a key.
 * The key is never echoed back in the error: it may be a secret pasted in.
 */
export async function resolveKey(log: EventLog, ref: string): Promise<string> {
  const exists = (id: string): Promise<boolean> => log.exists({ kind: 'apikey', id, part: KEY_PART, event: 'key_created' });
  if (KEY_ID.test(ref) && (await exists(ref))) return ref;
  const derived = apiKeyId(ref);
  if (await exists(derived)) return derived;
  throw new NotFoundError(KEY_ID.test(ref) ? `no key has the id ${ref}, and no key is ${ref}` : `no such key (a key that would have the id ${derived})`);
}
