// The webhook-dispatcher service: signs and delivers webhook_requested events.
import { runService } from '../../../shared/src/infra/service.js';
import { startWebhookDispatcher } from './service.js';

await runService('webhook-dispatcher', startWebhookDispatcher);
