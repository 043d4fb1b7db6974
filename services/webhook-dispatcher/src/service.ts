// The webhook-dispatcher on a connected service context: main.ts runs it in its own
// process, and `npm start`'s service host (scripts/service-host.ts) beside the other light
// services.
import type { RunningService, ServiceContext } from '../../../shared/src/infra/service.js';
import { loadServerSecret } from '../../../shared/src/domain/webhooks.js';
import { createWebhookDispatcher } from './worker.js';

export async function startWebhookDispatcher(ctx: ServiceContext): Promise<RunningService> {
  const settings = { retryScheduleMs: ctx.config.webhookRetryScheduleMs, attemptTimeoutMs: ctx.config.webhookTimeoutMs };
  const serverSecret = await loadServerSecret(ctx.js, ctx.config.webhookSigningSecret);
  const worker = createWebhookDispatcher({
    js: ctx.js, jsm: ctx.jsm, log: ctx.log, logger: ctx.logger, serverSecret, allow: ctx.config.ssrfAllowCidrs, settings,
  });
  await worker.start();
  return {
    ready: async () => ({ consumer: worker.ready }),
    stop: () => worker.stop(),
  };
}
