import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ackDecision, BrowserError, ERROR_CODES, InternalError, NetworkError, PageTimeoutError, RateLimitedError, SelectorNotFoundError, toPageErrorCode, toTrawlError, TrawlError, UrlNotAllowedError } from '../../../shared/src/domain/errors.js';

const first = { deliveryCount: 1, maxDeliver: 3 };
const last = { deliveryCount: 3, maxDeliver: 3 };

test('retryable errors are redelivered with growing delays until the last attempt', () => {
  assert.deepEqual(ackDecision(new BrowserError('crash'), first), { kind: 'nak', delayMs: 1000 });
  assert.deepEqual(ackDecision(new BrowserError('crash'), { deliveryCount: 2, maxDeliver: 3 }), { kind: 'nak', delayMs: 2000 });
  assert.equal(ackDecision(new BrowserError('crash'), last).kind, 'giveUp');
});

test('non-retryable errors give up at once', () => {
  for (const err of [new PageTimeoutError('t'), new SelectorNotFoundError('s'), new UrlNotAllowedError('u'), new NetworkError('dns')]) {
    const d = ackDecision(err, first);
    assert.equal(d.kind, 'giveUp');
    assert.equal(d.kind === 'giveUp' && d.error, err);
  }
});

test('rate limits wait as long as they are told', () => {
  assert.deepEqual(ackDecision(new RateLimitedError('slow down', 7000), first), { kind: 'nak', delayMs: 7000 });
});

test('unknown errors are internal and retried', () => {
  const e = toTrawlError(new TypeError('boom'));
  assert.ok(e instanceof InternalError);
  assert.equal(ackDecision(new TypeError('boom'), first).kind, 'nak');
});

test('codes carry the spec statuses; page codes stay within the spec table', () => {
  assert.equal(ERROR_CODES.PAGE_TIMEOUT.status, 504);
  assert.equal(ERROR_CODES.URL_NOT_ALLOWED.status, 400);
  assert.equal(ERROR_CODES.RATE_LIMITED.status, 429);
  assert.equal(new NetworkError('x').status, 500);
  assert.equal(toPageErrorCode(new PageTimeoutError('x')), 'PAGE_TIMEOUT');
  assert.equal(toPageErrorCode(new InternalError('x')), 'BROWSER_ERROR');
});

test('the classes built from the code table keep their names, codes, statuses and delivery', () => {
  const built = [BrowserError, InternalError, PageTimeoutError, SelectorNotFoundError, UrlNotAllowedError];
  for (const ErrorClass of built) {
    const err = new ErrorClass('x', { cause: 'why' });
    const row = ERROR_CODES[err.code];
    assert.ok(err instanceof ErrorClass && err instanceof TrawlError && err instanceof Error);
    assert.equal(err.name, ErrorClass.name);
    assert.equal('className' in row && row.className, ErrorClass.name);
    assert.equal(err.status, row.status);
    assert.equal(err.retryable, row.delivery === 'nak');
    assert.equal(err.cause, 'why');
  }
  assert.ok(!(new PageTimeoutError('t') instanceof SelectorNotFoundError));
  assert.equal(new BrowserError('b').retryable, true);
  assert.equal(new PageTimeoutError('t').retryable, false);
});
