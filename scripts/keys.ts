// Operator CLI for API keys, without a restart: `npm run keys -- <command>` (in a container:
// `node dist/scripts/keys.js <command>`). It talks to NATS only: every command reads the
// key's events from the log, decides (shared/src/domain/api-keys/decider.ts) and appends, then
// waits a little for the projector to apply it (that is when the gateways act on it). `list`
// folds the log too, so it shows the truth even while the projector is behind.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { connect, type NatsConnection } from 'nats';
import { changeKeyPlan, createKey, listKeys, resolveKey, revokeKey, type KeySummary } from '../shared/src/domain/api-keys/admin.js';
import { KeyStateError } from '../shared/src/domain/api-keys/decider.js';
import { NotFoundError } from '../shared/src/domain/errors.js';
import { EventLog } from '../shared/src/infra/nats/event-log.js';
import { createInvite, inviteLink } from '../shared/src/domain/accounts/commands.js';
import type { Role } from '../shared/src/domain/events/account.js';
import { PLANS, type Plan } from '../shared/src/domain/plans.js';
import { PROJECTED_SUBJECT, STREAM_NAME } from '../shared/src/infra/subjects.js';

export const USAGE = `usage: npm run keys -- <command> [--json]

  create --plan <${PLANS.join('|')}> [--label <text>]
                                  make a new random key; prints it once (only its hash is kept)
  list                            every key: id, plan, created, active or revoked, label
  revoke <key-or-keyId> [--reason <text>]
                                  refuse the key from now on (final)
  plan <key-or-keyId> <${PLANS.join('|')}>
                                  move the key to another plan
  invite [--role <member|admin>]  make a one-use invite link to the web console (7 days)

  --json   print JSON (one object per line for list) instead of text
  NATS_URL selects the NATS server(s) (default nats://127.0.0.1:4222, as npm start runs it)`;

const MAX_LABEL = 200;
const MAX_REASON = 500;
const PROJECTION_WAIT_MS = 5_000;

export type Command =
  | { name: 'create'; plan: Plan; label: string; json: boolean }
  | { name: 'list'; json: boolean }
  | { name: 'revoke'; ref: string; reason?: string; json: boolean }
  | { name: 'plan'; ref: string; plan: Plan; json: boolean }
  | { name: 'invite'; role: Role; json: boolean }
  | { name: 'help' };

export class UsageError extends Error {}

const isPlan = (value: string | undefined): value is Plan => (PLANS as readonly string[]).includes(value ?? '');

function text(value: string | undefined, what: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (!trimmed || trimmed.length > max || /\p{Cc}/u.test(trimmed)) throw new UsageError(`${what} must be 1-${max} characters, without control characters`);
  return trimmed;
}

/** Reads the arguments after `keys`; throws UsageError with what is wrong. */
export function parseCommand(argv: string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { plan: { type: 'string' }, label: { type: 'string' }, reason: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;
  if (values.help || name === 'help') return { name: 'help' };
  const json = values.json ?? false;
  const only = (allowed: string[], positional: number): void => {
    for (const option of ['plan', 'label', 'reason', 'role'] as const) {
      if (values[option] !== undefined && !allowed.includes(option)) throw new UsageError(`${name} takes no --${option}`);
    }
    if (rest.length !== positional) throw new UsageError(`${name} expects ${positional} argument${positional === 1 ? '' : 's'}, got ${rest.length}`);
  };
  switch (name) {
    case 'create':
      only(['plan', 'label'], 0);
      if (!isPlan(values.plan)) throw new UsageError(`create needs --plan <${PLANS.join('|')}>${values.plan ? `; "${values.plan}" is not a plan` : ''}`);
      return { name, plan: values.plan, label: text(values.label, '--label', MAX_LABEL) ?? 'cli', json };
    case 'list':
      only([], 0);
      return { name, json };
    case 'revoke': {
      only(['reason'], 1);
      const reason = text(values.reason, '--reason', MAX_REASON);
      return { name, ref: rest[0]!, ...(reason !== undefined ? { reason } : {}), json };
    }
    case 'plan':
      only([], 2);
      if (!isPlan(rest[1])) throw new UsageError(`plan: "${rest[1]}" is not a plan (${PLANS.join(', ')})`);
      return { name, ref: rest[0]!, plan: rest[1], json };
    case 'invite': {
      only(['role'], 0);
      const role = values.role ?? 'member';
      if (role !== 'member' && role !== 'admin') throw new UsageError(`invite: --role must be member or admin, not "${role}"`);
      return { name, role, json };
    }
    case undefined:
      throw new UsageError('no command given');
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

const out = (line: string): void => { process.stdout.write(`${line}\n`); };
const err = (line: string): void => { process.stderr.write(`${line}\n`); };

/** Resolves true once the projector reports a checkpoint at or past `seq`; false after the wait. */
function projectedWaiter(nc: NatsConnection): (seq: number) => Promise<boolean> {
  let projected = 0;
  const waiting = new Set<() => void>();
  nc.subscribe(PROJECTED_SUBJECT, {
    callback: (_e, msg) => {
      projected = Math.max(projected, Number(msg.string()) || 0);
      for (const check of waiting) check();
    },
  });
  return (seq) => new Promise<boolean>((resolve) => {
    const done = (ok: boolean): void => { clearTimeout(timer); waiting.delete(check); resolve(ok); };
    const check = (): void => { if (projected >= seq) done(true); };
    const timer = setTimeout(() => done(false), PROJECTION_WAIT_MS);
    waiting.add(check);
    check();
  });
}

function reportProjection(done: boolean): void {
  if (done) err('the projector has applied it: the gateways act on it from the next request');
  else err(`warning: the projector has not applied it within ${PROJECTION_WAIT_MS / 1000} s (is it running?); the gateways act on it once it has`);
}

function listText(keys: KeySummary[]): string[] {
  const rows = [['ID', 'PLAN', 'CREATED', 'STATUS', 'LABEL'], ...keys.map((k) => [
    k.keyId, k.plan, k.createdAt, k.revokedAt ? `revoked ${k.revokedAt}` : 'active', k.label,
  ])];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

async function run(command: Exclude<Command, { name: 'help' }>, nc: NatsConnection, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const log = new EventLog(nc.jetstream(), await nc.jetstreamManager());
  const projected = projectedWaiter(nc);
  switch (command.name) {
    case 'list': {
      const keys = await listKeys(log);
      if (command.json) for (const k of keys) out(JSON.stringify(k));
      else if (keys.length === 0) err('no API keys');
      else for (const line of listText(keys)) out(line);
      return 0;
    }
    case 'create': {
      const created = await createKey({ log }, command.plan, command.label);
      const result = { keyId: created.keyId, key: created.key, plan: command.plan, label: command.label, createdAt: created.after.createdAt };
      if (command.json) out(JSON.stringify(result));
      else {
        out(`created key ${result.keyId} (plan ${result.plan}, label "${result.label}")`);
        out(`key: ${result.key}`);
        err('the key is shown only this once: only its hash is stored');
      }
      reportProjection(await projected(created.seq!));
      return 0;
    }
    case 'revoke': {
      const keyId = await resolveKey(log, command.ref);
      try {
        const revoked = await revokeKey({ log }, keyId, command.reason);
        if (command.json) out(JSON.stringify({ keyId, revokedAt: revoked.after.revokedAt, changed: true }));
        else out(`revoked key ${keyId} at ${revoked.after.revokedAt}`);
        reportProjection(await projected(revoked.seq!));
      } catch (e) {
        if (!(e instanceof KeyStateError && e.refusal === 'already-revoked')) throw e;
        if (command.json) out(JSON.stringify({ keyId, changed: false }));
        else out(`${e.message}; nothing changed`);
      }
      return 0;
    }
    case 'invite': {
      const made = await createInvite(log, { role: command.role, createdBy: 'operator' });
      const base = (env.PUBLIC_BASE_URL?.trim() || `http://localhost:${env.PORT?.trim() || '3000'}`).replace(/\/+$/, '');
      const link = inviteLink(base, made.token);
      if (command.json) out(JSON.stringify({ inviteId: made.inviteId, role: command.role, link, expiresAt: made.expiresAt }));
      else {
        out(`invite link (${command.role}, one use, until ${made.expiresAt}):`);
        out(link);
        err('the link is shown only this once: only its hash is stored (PUBLIC_BASE_URL sets its host)');
      }
      return 0;
    }
    case 'plan': {
      const keyId = await resolveKey(log, command.ref);
      const changed = await changeKeyPlan({ log }, keyId, command.plan);
      if (command.json) out(JSON.stringify({ keyId, plan: command.plan, previousPlan: changed.before.plan, changed: changed.seq !== null }));
      else out(changed.seq === null ? `key ${keyId} is on plan ${command.plan} already; nothing changed` : `key ${keyId}: plan ${changed.before.plan} -> ${command.plan}`);
      if (changed.seq !== null) reportProjection(await projected(changed.seq));
      return 0;
    }
  }
}

/**
 * Exit codes: 0 done (also "already revoked" and "already on that plan": the state asked
 * for holds, so scripts may repeat a command); 1 refused or failed (unknown key, plan of a
 * revoked key, NATS unreachable); 2 bad arguments.
 */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let command: Command;
  try {
    command = parseCommand(argv);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`keys: ${e.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.name === 'help') {
    out(USAGE);
    return 0;
  }
  const url = env.NATS_URL ?? 'nats://127.0.0.1:4222';
  let nc: NatsConnection;
  try {
    nc = await connect({ servers: url.split(',').map((s) => s.trim()), name: 'trawl-keys', timeout: 5_000, maxReconnectAttempts: 0 });
  } catch (e) {
    err(`keys: cannot reach NATS at ${url}: ${(e as Error).message} (set NATS_URL to Trawl's NATS)`);
    return 1;
  }
  try {
    try {
      await (await nc.jetstreamManager()).streams.info(STREAM_NAME);
    } catch (e) {
      err(`keys: NATS at ${url} has no ${STREAM_NAME} stream (${(e as Error).message}): is this Trawl's NATS, and has Trawl started once?`);
      return 1;
    }
    return await run(command, nc, env);
  } catch (e) {
    if (e instanceof NotFoundError || e instanceof KeyStateError) {
      err(`keys: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await nc.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (e: unknown) => {
    process.stderr.write(`keys: failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  });
}
