// What counts as NATS being unavailable for now (a worker runs the handler again in place)
// and what does not (a site's own 503, a page's error: those are answers about the page).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, NatsError } from 'nats';
import { InternalError, NetworkError } from '../../../shared/src/domain/errors.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';

test('the NATS client\'s no responders, timeouts and dropped connections are an outage, also when wrapped', () => {
  assert.equal(isNatsOutage(NatsError.errorForCode(ErrorCode.NoResponders)), true);
  assert.equal(isNatsOutage(NatsError.errorForCode(ErrorCode.Timeout)), true);
  assert.equal(isNatsOutage(NatsError.errorForCode(ErrorCode.Disconnect)), true);
  assert.equal(isNatsOutage(new InternalError('append failed', { cause: NatsError.errorForCode(ErrorCode.Timeout) })), true);
});

test('a site\'s or a page\'s failure is not, whatever its message says', () => {
  assert.equal(isNatsOutage(new Error('503 Service Temporarily Unavailable')), false);
  assert.equal(isNatsOutage(new NetworkError('no responders at 10.0.0.1: temporarily unavailable')), false);
  assert.equal(isNatsOutage(NatsError.errorForCode(ErrorCode.BadJson)), false);
  assert.equal(isNatsOutage(NatsError.errorForCode(ErrorCode.JetStream404NoMessages)), false);
  assert.equal(isNatsOutage('TIMEOUT'), false);
});
