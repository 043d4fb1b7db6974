// The webhook-dispatcher's consumer: one webhook_requested event is one delivery job.
// Retries are JetStream redeliveries, not timers in memory: a failed attempt naks the
// message with the schedule's delay, so a restarted dispatcher (or another replica)
// resumes the schedule where it was. Every attempt is recorded (webhook_attempted), and
// the outcome once (webhook_delivered | webhook_abandoned).
//
// Each attempt is signed with the key's current secret and, within the grace period of its
// last rotation, the previous one too (two signatures in one header). The rotation is read
// from the log at every attempt, so a retry after a rotation is signed with the new secret.
import { RateLimitedError, type TrawlError } from '../../../shared/src/domain/errors.js';
import { WEBHOOK_PART, type WebhookRequested } from '../../../shared/src/domain/events/job.js';
import { makeEvent, type StoredEvent, type TrawlEvent } from '../../../shared/src/domain/events/index.js';
import { newId, type Clock, systemClock } from '../../../shared/src/infra/ids.js';
import type { Logger } from '../../../shared/src/infra/logger.js';
import type { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ConsumerWorker, type MessageContext } from '../../../shared/src/infra/nats/worker.js';
import { eventFilter } from '../../../shared/src/infra/subjects.js';
import type { CidrRange } from '../../../shared/src/net/url-safety.js';
import { readLastRotation, signingSecrets, signWebhook } from '../../../shared/src/domain/webhooks.js';
import type { JetStreamClient, JetStreamManager } from 'nats';
import { webhookMetrics } from '../../../shared/src/infra/metrics.js';
import { deliverWebhook } from './delivery.js';
import { decideAttempt, describeFailure, maxAttempts, type DispatcherSettings } from './schedule.js';

export const DISPATCHER_DURABLE = 'webhook-dispatcher';

export interface DispatcherDeps {
  js: JetStreamClient;
  jsm: JetStreamManager;
  log: EventLog;
  logger: Logger;
  serverSecret: string;
  allow: CidrRange[];
  settings: DispatcherSettings;
  concurrency?: number;
  clock?: Clock;
}

type WebhookRequestedEvent = StoredEvent & { event: 'webhook_requested'; data: WebhookRequested };

/** Nak with a delay through the shared worker's decision table ("retry after"). */
class RetryLater extends RateLimitedError {}

export function createWebhookDispatcher(deps: DispatcherDeps): ConsumerWorker<WebhookRequestedEvent> {
  const clock = deps.clock ?? systemClock;
  const { retryScheduleMs, attemptTimeoutMs } = deps.settings;

  const record = async <N extends 'webhook_attempted' | 'webhook_delivered' | 'webhook_abandoned'>(
    source: WebhookRequestedEvent, event: N, data: TrawlEvent<N>['data'], once: boolean,
  ): Promise<void> => {
    // On the request's own part: a crawl's final webhook is on WEBHOOK_PART, a crawl.host_blocked one on a part per host.
    const e = makeEvent(event, { kind: source.kind, id: source.id, part: source.part }, data, { eventId: newId(), now: clock() });
    await deps.log.append(e as never, { once });
  };

  /** True when this webhook already has an outcome (a redelivery after a crash). */
  const settled = async (source: WebhookRequestedEvent): Promise<boolean> => {
    const at = { kind: source.kind, id: source.id, part: source.part };
    return (await deps.log.exists({ ...at, event: 'webhook_delivered' })) || (await deps.log.exists({ ...at, event: 'webhook_abandoned' }));
  };

  return new ConsumerWorker<WebhookRequestedEvent>({
    js: deps.js,
    jsm: deps.jsm,
    logger: deps.logger,
    durable: DISPATCHER_DURABLE,
    filterSubject: eventFilter('webhook_requested'),
    concurrency: deps.concurrency ?? 8,
    maxDeliver: maxAttempts(retryScheduleMs),
    handlerTimeoutMs: attemptTimeoutMs + 20_000,
    confirmAcks: true, // a redelivered delivery would be posted again
    async handle(source: WebhookRequestedEvent, ctx: MessageContext): Promise<void> {
      if (await settled(source)) return;
      const attempt = ctx.deliveryCount;
      const hook = source.data;
      const last = await readLastRotation(deps.log, hook.apiKeyId);
      const now = clock();
      const secrets = signingSecrets(deps.serverSecret, hook.apiKeyId, last?.rotation ?? null, now);
      const headers = signWebhook(secrets, hook.webhookId, now, hook.body);
      const outcome = await deliverWebhook({
        url: hook.url, body: hook.body, headers, allow: deps.allow, timeoutMs: attemptTimeoutMs, signal: ctx.signal,
      });
      const decision = decideAttempt(outcome, attempt, retryScheduleMs);
      await record(source, 'webhook_attempted', {
        attempt,
        ...(outcome.status !== undefined ? { status: outcome.status } : {}),
        ...(!outcome.ok ? { error: describeFailure(outcome).slice(0, 500) } : {}),
        durationMs: outcome.durationMs,
        ...(decision.kind === 'retry' ? { nextAttemptInMs: decision.delayMs } : {}),
        attemptedAt: clock().toISOString(),
      }, false);
      ctx.logger.info({ url: hook.url, attempt, status: outcome.status, decision: decision.kind }, 'webhook attempt');
      webhookMetrics.attempts().inc({ outcome: decision.kind === 'abandon' ? 'abandoned' : decision.kind });
      if (decision.kind === 'delivered') {
        await record(source, 'webhook_delivered', { attempt, status: outcome.status!, deliveredAt: clock().toISOString() }, true);
      } else if (decision.kind === 'abandon') {
        await record(source, 'webhook_abandoned', { attempts: attempt, reason: decision.reason.slice(0, 500), abandonedAt: clock().toISOString() }, true);
      } else {
        throw new RetryLater(`webhook attempt ${attempt} failed; retrying in ${decision.delayMs} ms`, decision.delayMs);
      }
    },
    async giveUp(source: WebhookRequestedEvent, error: TrawlError): Promise<void> {
      await record(source, 'webhook_abandoned', {
        attempts: maxAttempts(retryScheduleMs),
        reason: `gave up: ${error.message}`.slice(0, 500),
        abandonedAt: clock().toISOString(),
      }, true);
    },
  });
}
