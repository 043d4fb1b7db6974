// One delivery attempt: POST the body with its signature headers through the SSRF-safe
// client (every resolved address checked at connect time, so a webhook host that
// re-resolves to a private address is refused at delivery, not only at submission).
// Redirects are not followed: a 3xx is a failed attempt, like any non-2xx.
import { safeStream } from '../../../shared/src/net/safe-http.js';
import { TRAWL_USER_AGENT } from '../../../shared/src/net/safe-http.js';
import type { CidrRange } from '../../../shared/src/net/url-safety.js';
import type { WebhookHeaders } from '../../../shared/src/domain/webhooks.js';
import type { AttemptOutcome } from './schedule.js';

export interface DeliveryRequest {
  url: string;
  body: string;
  headers: WebhookHeaders;
  allow: CidrRange[];
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Bytes of the receiver's answer read at most (it is discarded). */
const MAX_RESPONSE_BYTES = 64 * 1024;

export async function deliverWebhook(req: DeliveryRequest, clock: () => number = Date.now): Promise<AttemptOutcome> {
  const startedAt = clock();
  const elapsed = (): number => Math.max(0, Math.round(clock() - startedAt));
  try {
    const res = await safeStream(req.url, {
      allow: req.allow,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': TRAWL_USER_AGENT,
        ...req.headers,
      },
      body: req.body,
      timeoutMs: req.timeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      maxRedirects: 0,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    // Drain (bounded) so the whole answer arrived within the timeout; its content is unused.
    for await (const _ of res.body) { /* discard */ }
    const ok = res.status >= 200 && res.status < 300;
    return ok ? { ok: true, status: res.status, durationMs: elapsed() } : { ok: false, status: res.status, error: new Error(`HTTP ${res.status}`), durationMs: elapsed() };
  } catch (error) {
    return { ok: false, error, durationMs: elapsed() };
  }
}
