// Webhook signing per the Standard Webhooks convention (standardwebhooks.com), shared by the
// webhook-dispatcher (signs) and the gateway (hands each API key its secret). Per-key
// secrets are derived from one server secret, not stored; rotations are events on the key's
// own subject, so the log alone says which secrets sign (docs/api.md "Webhooks").
import { createHmac, randomBytes } from 'node:crypto';
import { StorageType, type JetStreamClient } from 'nats';
import { Webhook } from 'standardwebhooks';
import { KEY_PART, type WebhookSecretRotated } from './events/apikey.js';
import type { EventLog } from '../infra/nats/event-log.js';
import type { SubjectParts } from '../infra/subjects.js';
import { openKv } from '../infra/nats/replicas.js';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const SECRETS_BUCKET = 'trawl-secrets';
const SERVER_SECRET_KEY = 'webhook-signing';

// secret(key) = HMAC-SHA256(server secret, "trawl-webhook-secret:" + apiKeyId), shown to
// the user as "whsec_" + base64: one server secret gives every key its own secret with
// nothing to store, and no key's secret reveals another's or the server's. Generation
// n >= 1 (a rotated secret) derives from "trawl-webhook-secret:<apiKeyId>:<n>" (key ids
// have no ':', so no two labels collide); generation 0 is unchanged, so secrets handed out
// before rotation existed keep working.
/** The per-API-key signing secret of generation 0, in the `whsec_<base64>` form standardwebhooks libraries take. */
export function deriveWebhookSecret(serverSecret: string, apiKeyId: string): string {
  return webhookSecretOf(serverSecret, apiKeyId, 0);
}

/** The key's signing secret of one generation (0: never rotated). */
export function webhookSecretOf(serverSecret: string, apiKeyId: string, generation: number): string {
  if (!Number.isSafeInteger(generation) || generation < 0) throw new RangeError(`webhook secret generation ${generation} is not an integer >= 0`);
  const label = generation === 0 ? `trawl-webhook-secret:${apiKeyId}` : `trawl-webhook-secret:${apiKeyId}:${generation}`;
  const key = createHmac('sha256', serverSecret).update(label).digest();
  return `${WEBHOOK_SECRET_PREFIX}${key.toString('base64')}`;
}

// Rotation: each one is a `webhook_secret_rotated` event on the key's own subject, so the
// last event there *is* the current generation: nothing else is stored. For a grace period
// after a rotation every delivery carries two signatures, one per secret, so receivers
// switch secrets at their own pace; the functions that decide it take the clock as input.
/** The subject of a key's rotations: its last event is the key's current generation. */
export function rotationSubject(apiKeyId: string): SubjectParts {
  return { kind: 'apikey', id: apiKeyId, part: KEY_PART, event: 'webhook_secret_rotated' };
}

export interface LastRotation {
  rotation: WebhookSecretRotated;
  /** Its stream sequence: the expected last subject sequence of the next rotation's append. */
  seq: number;
}

/** A key's last rotation, read from the log itself (a point read); null when never rotated. */
export async function readLastRotation(log: Pick<EventLog, 'last'>, apiKeyId: string): Promise<LastRotation | null> {
  const last = await log.last(rotationSubject(apiKeyId));
  return last?.event === 'webhook_secret_rotated' ? { rotation: last.data, seq: last.seq } : null;
}

/** The key's current generation, given its last rotation (null: never rotated). */
export function currentGeneration(last: WebhookSecretRotated | null): number {
  return last?.generation ?? 0;
}

/** The rotation that follows `last` at `now`: the previous secret keeps signing `graceSeconds` more. */
export function nextRotation(last: WebhookSecretRotated | null, now: Date, graceSeconds: number): WebhookSecretRotated {
  return {
    generation: currentGeneration(last) + 1,
    rotatedAt: now.toISOString(),
    previousValidUntil: new Date(now.getTime() + graceSeconds * 1000).toISOString(),
  };
}

/**
 * The generations that sign at `now`, current first: the current one, and the previous one
 * while `now` is before the last rotation's `previousValidUntil`. Only one previous
 * generation is ever kept: a second rotation within the grace period retires the oldest.
 */
export function signingGenerations(last: WebhookSecretRotated | null, now: Date): number[] {
  const current = currentGeneration(last);
  if (!last || now.getTime() >= Date.parse(last.previousValidUntil)) return [current];
  return [current, current - 1];
}

/** The secrets to sign a delivery with at `now`, current first (see signingGenerations). */
export function signingSecrets(serverSecret: string, apiKeyId: string, last: WebhookSecretRotated | null, now: Date): string[] {
  return signingGenerations(last, now).map((generation) => webhookSecretOf(serverSecret, apiKeyId, generation));
}

/**
 * webhook-id: msg_<crawlId>, the same on every attempt (receivers deduplicate on it);
 * webhook-timestamp: Unix seconds of this attempt (receivers reject stale ones, 5 min);
 * webhook-signature: v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>.
 */
export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Headers for one delivery attempt of `body` (signed byte for byte as sent). With several
 * secrets, `webhook-signature` holds one `v1,<sig>` per secret, space-separated: Standard
 * Webhooks receivers accept the message when any of them matches their secret.
 */
export function signWebhook(secrets: string | readonly string[], webhookId: string, at: Date, body: string): WebhookHeaders {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  if (list.length === 0) throw new Error('signWebhook: at least one secret is needed');
  const signature = list.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' ');
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/**
 * The server secret: WEBHOOK_SIGNING_SECRET when set (at least 32 characters), otherwise
 * the one stored in the `trawl-secrets` KV bucket: 32 random bytes generated on first use,
 * created atomically by whichever service needs it first. Throws on a too-short env value.
 */
export async function loadServerSecret(js: JetStreamClient, configured: string | undefined): Promise<string> {
  // Length is checked with the rest of the configuration (config.ts).
  if (configured) return configured;
  const kv = await openKv(js, SECRETS_BUCKET, { storage: StorageType.File, history: 1 });
  const existing = await kv.get(SERVER_SECRET_KEY);
  if (existing && existing.value.length > 0) return existing.string();
  try {
    // create() succeeds only when the key does not exist: two services racing agree on one.
    await kv.create(SERVER_SECRET_KEY, new TextEncoder().encode(randomBytes(32).toString('base64url')));
  } catch {
    // Another service created it first; read theirs below.
  }
  const stored = await kv.get(SERVER_SECRET_KEY);
  if (!stored || stored.value.length === 0) throw new Error('could not load or create the webhook signing secret');
  return stored.string();
}
