import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { NetworkError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';
import { ConfigError, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS as DEFAULT_RETRY_SCHEDULE_MS, loadConfig } from '../../../shared/src/infra/config.js';
import { decideAttempt, maxAttempts } from '../../../services/webhook-dispatcher/src/schedule.js';

const parseRetrySchedule = (raw: string | undefined) => loadConfig(raw === undefined ? {} : { WEBHOOK_RETRY_SCHEDULE_MS: raw }).webhookRetryScheduleMs;
const loadDispatcherSettings = (env: Record<string, string>) => ({ attemptTimeoutMs: loadConfig(env).webhookTimeoutMs });

describe('webhook retry schedule', () => {
  test('default: 5 s, 30 s, 2 min, 10 min, 1 h, so six attempts', () => {
    assert.deepEqual(DEFAULT_RETRY_SCHEDULE_MS, [5_000, 30_000, 120_000, 600_000, 3_600_000]);
    assert.equal(maxAttempts(DEFAULT_RETRY_SCHEDULE_MS), 6);
  });

  test('WEBHOOK_RETRY_SCHEDULE_MS parses; empty means no retry; junk is refused', () => {
    assert.deepEqual(parseRetrySchedule('100, 200'), [100, 200]);
    assert.deepEqual(parseRetrySchedule(''), []);
    assert.equal(parseRetrySchedule(undefined), DEFAULT_RETRY_SCHEDULE_MS);
    assert.throws(() => parseRetrySchedule('1s,2s'), ConfigError);
    assert.throws(() => parseRetrySchedule('-5'), /WEBHOOK_RETRY_SCHEDULE_MS/);
    assert.throws(() => loadConfig({ WEBHOOK_SIGNING_SECRET: 'short' }), /WEBHOOK_SIGNING_SECRET: must be at least 32/);
    assert.throws(() => loadConfig({ CRAWL_MAX_IN_FLIGHT: '0' }), /CRAWL_MAX_IN_FLIGHT/);
  });

  test('WEBHOOK_TIMEOUT_MS defaults to 10 s and is bounded', () => {
    assert.equal(loadDispatcherSettings({}).attemptTimeoutMs, 10_000);
    assert.equal(loadDispatcherSettings({ WEBHOOK_TIMEOUT_MS: '500' }).attemptTimeoutMs, 500);
    assert.throws(() => loadDispatcherSettings({ WEBHOOK_TIMEOUT_MS: 'abc' }), /WEBHOOK_TIMEOUT_MS/);
  });

  test('a 2xx is delivered', () => {
    assert.deepEqual(decideAttempt({ ok: true, status: 204, durationMs: 3 }, 1, [10]), { kind: 'delivered' });
  });

  test('a failure retries after the scheduled delay of its attempt, then is abandoned', () => {
    const schedule = [10, 20];
    const fail = { ok: false as const, status: 500, error: new Error('HTTP 500'), durationMs: 1 };
    assert.deepEqual(decideAttempt(fail, 1, schedule), { kind: 'retry', delayMs: 10 });
    assert.deepEqual(decideAttempt(fail, 2, schedule), { kind: 'retry', delayMs: 20 });
    assert.deepEqual(decideAttempt(fail, 3, schedule), { kind: 'abandon', reason: '3 attempts failed; last: HTTP 500' });
  });

  test('network errors retry; an SSRF-blocked URL is abandoned at once', () => {
    const net = { ok: false as const, error: new NetworkError('request failed (ECONNREFUSED)'), durationMs: 1 };
    assert.equal(decideAttempt(net, 1, [10]).kind, 'retry');
    const blocked = { ok: false as const, error: new UrlNotAllowedError('127.0.0.1 (loopback) is blocked'), durationMs: 1 };
    assert.deepEqual(decideAttempt(blocked, 1, [10]), { kind: 'abandon', reason: '127.0.0.1 (loopback) is blocked' });
  });
});
