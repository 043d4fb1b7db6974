// An event whose payload the projector could not read (services/projector/src/projector.ts):
// applied without its content only when the payload is gone, never on a NATS outage.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode, NatsError } from 'nats';
import { PayloadNotFoundError } from '../../../shared/src/infra/nats/payloads.js';
import { appliesWithoutPayload } from '../../../services/projector/src/projector.js';

describe('projector: a payload that could not be read', () => {
  test('gone (expired, never written) or unreadable: applied without it', () => {
    assert.equal(appliesWithoutPayload(new PayloadNotFoundError({ bucket: 'trawl-payloads', name: 'crawl/c/p/result.json', size: 1, contentType: 'application/json' })), true);
    assert.equal(appliesWithoutPayload(new SyntaxError('Unexpected end of JSON input')), true);
  });

  test('NATS unavailable (no responders after a thaw, a timeout): not applied, read again', () => {
    assert.equal(appliesWithoutPayload(new NatsError('503', '503')), false);
    assert.equal(appliesWithoutPayload(new NatsError('timeout', ErrorCode.Timeout)), false);
  });
});
