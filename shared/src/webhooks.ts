// Webhook signing per the Standard Webhooks convention (standardwebhooks.com), shared by the
// webhook-dispatcher (signs) and the gateway (hands each API key its secret).
//
//   webhook-id         msg_<crawlId>: the same on every attempt, receivers deduplicate on it
//   webhook-timestamp  Unix seconds of this attempt (receivers reject stale ones, 5 min)
//   webhook-signature  v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>
//
// Per-key secrets are derived, not stored: secret(key) = HMAC-SHA256(server secret,
// "trawl-webhook-secret:" + apiKeyId), shown to the user as "whsec_" + base64. One server
// secret thus gives every key its own secret with nothing to store, and no key's secret
// reveals another's or the server's. The server secret comes from WEBHOOK_SIGNING_SECRET,
// or else is generated once (32 random bytes) and kept in the NATS KV bucket
// `trawl-secrets`, created atomically by whichever service needs it first.
import { createHmac, randomBytes } from 'node:crypto';
import { StorageType, type JetStreamClient } from 'nats';
import { Webhook } from 'standardwebhooks';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
export const SECRETS_BUCKET = 'trawl-secrets';
const SERVER_SECRET_KEY = 'webhook-signing';

/** The per-API-key signing secret, in the `whsec_<base64>` form standardwebhooks libraries take. */
export function deriveWebhookSecret(serverSecret: string, apiKeyId: string): string {
  const key = createHmac('sha256', serverSecret).update(`trawl-webhook-secret:${apiKeyId}`).digest();
  return `${WEBHOOK_SECRET_PREFIX}${key.toString('base64')}`;
}

export interface WebhookHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Headers for one delivery attempt of `body` (signed byte for byte as sent). */
export function signWebhook(secret: string, webhookId: string, at: Date, body: string): WebhookHeaders {
  const signature = new Webhook(secret).sign(webhookId, at, body);
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  };
}

/**
 * The server secret: WEBHOOK_SIGNING_SECRET when set (at least 32 characters), otherwise
 * the one stored in the KV bucket, generated on first use. Throws on a too-short env value.
 */
export async function loadServerSecret(js: JetStreamClient, configured: string | undefined): Promise<string> {
  // Length is checked with the rest of the configuration (config.ts).
  if (configured) return configured;
  const kv = await js.views.kv(SECRETS_BUCKET, { storage: StorageType.File, history: 1 });
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
