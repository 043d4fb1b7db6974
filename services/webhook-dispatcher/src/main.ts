// The webhook-dispatcher service: signs and delivers webhook_requested events.
import { runService } from '../../../shared/src/service.js';
import { loadServerSecret } from '../../../shared/src/webhooks.js';
import { createWebhookDispatcher } from './worker.js';

await runService('webhook-dispatcher', async (ctx) => {
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
});
