// Verifies a webhook delivery with the Standard Webhooks library: the signature (any of the
// space-separated ones, so a rotation's grace period verifies with either secret) and the
// timestamp's freshness (5 minutes), then returns the parsed payload.
import { Webhook, WebhookVerificationError as LibraryError } from 'standardwebhooks';
import { WebhookVerificationError } from './errors.js';
import type { WebhookPayload } from './types.js';

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export function verifyWebhook(body: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookPayload {
  const pick = (name: string): string => {
    const v = headers instanceof Headers ? headers.get(name) : headers[name] ?? headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(' ') : v ?? '';
  };
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(text, {
      'webhook-id': pick('webhook-id'), 'webhook-timestamp': pick('webhook-timestamp'), 'webhook-signature': pick('webhook-signature'),
    }) as WebhookPayload;
  } catch (err) {
    const message = err instanceof LibraryError || err instanceof Error ? err.message : String(err);
    throw new WebhookVerificationError(`webhook did not verify: ${message}`, { code: 'INVALID_SIGNATURE', cause: err });
  }
}
