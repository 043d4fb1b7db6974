// When a webhook is retried and when it is given up: pure, so the schedule is tested
// without waiting for it. Delays are between the end of one attempt and the next.
//
// Default: 6 attempts, at about 0 s, 5 s, 35 s, 2 min 35 s, 12 min 35 s and 1 h 12 min 35 s
// after the crawl finished (plus up to 10 s per attempt), then abandoned.
// WEBHOOK_RETRY_SCHEDULE_MS ("5000,30000,...", empty = no retry) changes it (tests use
// short delays); WEBHOOK_TIMEOUT_MS (default 10000) bounds one attempt.
import { UrlNotAllowedError, ValidationError } from '../../../shared/src/errors.js';

export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 3_600_000];
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 10_000;

export interface DispatcherSettings {
  retryScheduleMs: readonly number[];
  attemptTimeoutMs: number;
}

export function parseRetrySchedule(raw: string | undefined): readonly number[] {
  if (raw === undefined) return DEFAULT_RETRY_SCHEDULE_MS;
  if (raw.trim() === '') return [];
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20 || parts.some((p) => !/^\d{1,9}$/.test(p))) {
    throw new Error(`WEBHOOK_RETRY_SCHEDULE_MS must be up to 20 comma-separated millisecond delays, got "${raw}"`);
  }
  return parts.map(Number);
}

export function loadDispatcherSettings(env: Record<string, string | undefined> = process.env): DispatcherSettings {
  const timeoutRaw = env.WEBHOOK_TIMEOUT_MS?.trim();
  const attemptTimeoutMs = timeoutRaw ? Number(timeoutRaw) : DEFAULT_ATTEMPT_TIMEOUT_MS;
  if (!Number.isInteger(attemptTimeoutMs) || attemptTimeoutMs < 100 || attemptTimeoutMs > 60_000) {
    throw new Error(`WEBHOOK_TIMEOUT_MS must be an integer from 100 to 60000, got "${timeoutRaw}"`);
  }
  return { retryScheduleMs: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE_MS), attemptTimeoutMs };
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
