// The webhook secret endpoints (docs/api.md "Webhooks") and the body of a delivery.
import { Type, type Static } from '@sinclair/typebox';

/** The longest grace period a rotation may keep the previous secret signing: 7 days. */
export const MAX_GRACE_SECONDS = 7 * 24 * 3600;
export const DEFAULT_GRACE_SECONDS = 24 * 3600;

const Secret = Type.String({ description: 'whsec_<base64>: the key of the webhook-signature HMAC (Standard Webhooks)' });

export const WebhookSecretView = Type.Object({
  secret: Secret,
  generation: Type.Integer({ minimum: 0, description: 'How many times the secret was rotated (0: never)' }),
});
export type WebhookSecretView = Static<typeof WebhookSecretView>;

export const RotateWebhookSecretBody = Type.Object(
  {
    graceSeconds: Type.Optional(Type.Integer({
      minimum: 0, maximum: MAX_GRACE_SECONDS, default: DEFAULT_GRACE_SECONDS,
      description: 'How long deliveries stay signed with the previous secret too (0: not at all)',
    })),
  },
  { additionalProperties: false },
);
export type RotateWebhookSecretBody = Static<typeof RotateWebhookSecretBody>;

export const WebhookSecretRotation = Type.Object({
  secret: Secret,
  generation: Type.Integer({ minimum: 1 }),
  previousSecretValidUntil: Type.String({ description: 'Until then deliveries carry a signature with the previous secret too' }),
});
export type WebhookSecretRotation = Static<typeof WebhookSecretRotation>;

/** The body of a webhook delivery (docs/api.md "Webhooks"). */
export interface WebhookPayload {
  event: `${'crawl' | 'batch'}.${'completed' | 'failed' | 'cancelled'}`;
  data: { id: string; status: string; startUrl?: string; totalUrls: number; completedUrls: number; failedUrls: number };
  timestamp: string;
}
