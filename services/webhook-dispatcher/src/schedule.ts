// When a webhook is retried and when it is given up: pure, so the schedule is tested
// without waiting for it. Delays are between the end of one attempt and the next.
//
// Default: 6 attempts, at about 0 s, 5 s, 35 s, 2 min 35 s, 12 min 35 s and 1 h 12 min 35 s
// after the crawl finished (plus up to 10 s per attempt), then abandoned.
// WEBHOOK_RETRY_SCHEDULE_MS ("5000,30000,...", empty = no retry) changes it (tests use
// short delays); WEBHOOK_TIMEOUT_MS (default 10000) bounds one attempt (shared/src/infra/config.ts).
import { UrlNotAllowedError, ValidationError } from '../../../shared/src/domain/errors.js';

export interface DispatcherSettings {
  retryScheduleMs: readonly number[];
  attemptTimeoutMs: number;
}

/** Attempts in all: the first plus one per scheduled delay. */
export const maxAttempts = (schedule: readonly number[]): number => schedule.length + 1;

export type AttemptOutcome =
  | { ok: true; status: number; durationMs: number }
  | { ok: false; status?: number; error: unknown; durationMs: number };

export type AttemptDecision =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number }
  | { kind: 'abandon'; reason: string };

/** A 2xx is success; an SSRF-blocked or invalid URL is abandoned at once; anything else retries while the schedule lasts. */
export function decideAttempt(outcome: AttemptOutcome, attempt: number, schedule: readonly number[]): AttemptDecision {
  if (outcome.ok) return { kind: 'delivered' };
  const why = describeFailure(outcome);
  if (outcome.error instanceof UrlNotAllowedError || outcome.error instanceof ValidationError) {
    return { kind: 'abandon', reason: why };
  }
  const delayMs = schedule[attempt - 1];
  if (delayMs === undefined) return { kind: 'abandon', reason: `${attempt} attempts failed; last: ${why}` };
  return { kind: 'retry', delayMs };
}

export function describeFailure(outcome: Extract<AttemptOutcome, { ok: false }>): string {
  if (outcome.status !== undefined) return `HTTP ${outcome.status}`;
  const err = outcome.error;
  return err instanceof Error ? err.message : String(err);
}
