// Webhook secret rotation, the pure part: which generation is current, what the next
// rotation records, and which secrets sign at a given moment. given(last rotation) /
// at(now) / then(generations): a test states the key's history, not internal state.
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { PoisonMessageError, validateEventData, type WebhookSecretRotated } from '../../../shared/src/domain/events/index.js';
import { subjectOf } from '../../../shared/src/infra/subjects.js';
import {
  currentGeneration, deriveWebhookSecret, nextRotation, rotationSubject, signingGenerations, signingSecrets, signWebhook, webhookSecretOf,
} from '../../../shared/src/domain/webhooks.js';

const SERVER_SECRET = 'test-server-secret-0123456789abcdef';
const KEY = 'key-a';
const BODY = JSON.stringify({ event: 'crawl.completed', data: { id: 'c1' }, timestamp: '2026-01-01T00:00:00.000Z' });

/** The last rotation event's data: generation n, made at `at`, previous secret valid until `until`. */
const rotated = (generation: number, at: string, until: string): WebhookSecretRotated => ({ generation, rotatedAt: at, previousValidUntil: until });

function given(last: WebhookSecretRotated | null) {
  return {
    at(now: string) {
      return {
        then(generations: number[]) {
          assert.deepEqual(signingGenerations(last, new Date(now)), generations);
        },
      };
    },
  };
}

const hmacSecret = (label: string): string => `whsec_${createHmac('sha256', SERVER_SECRET).update(label).digest('base64')}`;

describe('webhook secret generations', () => {
  test('generation 0 is the original derivation, so secrets handed out before rotation keep working', () => {
    assert.equal(webhookSecretOf(SERVER_SECRET, KEY, 0), hmacSecret(`trawl-webhook-secret:${KEY}`));
    assert.equal(deriveWebhookSecret(SERVER_SECRET, KEY), webhookSecretOf(SERVER_SECRET, KEY, 0));
  });

  test('generation n >= 1 derives from "trawl-webhook-secret:<apiKeyId>:<n>"', () => {
    assert.equal(webhookSecretOf(SERVER_SECRET, KEY, 1), hmacSecret(`trawl-webhook-secret:${KEY}:1`));
    assert.equal(webhookSecretOf(SERVER_SECRET, KEY, 12), hmacSecret(`trawl-webhook-secret:${KEY}:12`));
    const all = [0, 1, 2, 3].map((g) => webhookSecretOf(SERVER_SECRET, KEY, g));
    assert.equal(new Set(all).size, 4, 'each generation has its own secret');
    assert.notEqual(webhookSecretOf(SERVER_SECRET, 'key-b', 1), all[1], 'and each key');
    for (const s of all) assert.match(s, /^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  test('a generation that is not an integer >= 0 is a bug, refused', () => {
    for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => webhookSecretOf(SERVER_SECRET, KEY, bad), RangeError);
  });

  test('a key never rotated is at generation 0; each rotation adds one', () => {
    assert.equal(currentGeneration(null), 0);
    const now = new Date('2026-03-01T12:00:00.000Z');
    assert.deepEqual(nextRotation(null, now, 86_400), rotated(1, '2026-03-01T12:00:00.000Z', '2026-03-02T12:00:00.000Z'));
    const third = rotated(3, '2026-02-01T00:00:00.000Z', '2026-02-02T00:00:00.000Z');
    assert.equal(currentGeneration(third), 3);
    assert.deepEqual(nextRotation(third, now, 0), rotated(4, '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.000Z'));
  });

  test('a rotation made by nextRotation is a valid event; generation 0 is not', () => {
    validateEventData('webhook_secret_rotated', nextRotation(null, new Date(), 604_800));
    assert.throws(() => validateEventData('webhook_secret_rotated', rotated(0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')), PoisonMessageError);
    assert.throws(() => validateEventData('webhook_secret_rotated', { generation: 1, rotatedAt: '2026-01-01T00:00:00.000Z' }), PoisonMessageError);
  });

  test("a key's rotations live on one subject of the key's own history", () => {
    assert.equal(subjectOf(rotationSubject('0123456789abcdef0123')), 'trawl.apikey.0123456789abcdef0123.key.webhook_secret_rotated');
  });
});

describe('which secrets sign', () => {
  const last = rotated(2, '2026-03-01T12:00:00.000Z', '2026-03-02T12:00:00.000Z');

  test('never rotated: generation 0 alone', () => {
    given(null).at('2026-03-01T12:00:00.000Z').then([0]);
  });

  test('within the grace period: the current generation, then the previous one', () => {
    given(last).at('2026-03-01T12:00:00.000Z').then([2, 1]);
    given(last).at('2026-03-02T11:59:59.999Z').then([2, 1]);
  });

  test('from previousValidUntil on: the current generation alone', () => {
    given(last).at('2026-03-02T12:00:00.000Z').then([2]);
    given(last).at('2027-01-01T00:00:00.000Z').then([2]);
  });

  test('a rotation with no grace retires the previous secret at once', () => {
    const now = new Date('2026-03-01T12:00:00.000Z');
    given(nextRotation(last, now, 0)).at(now.toISOString()).then([3]);
  });

  test('the first rotation keeps generation 0 signing during its grace', () => {
    given(rotated(1, '2026-03-01T12:00:00.000Z', '2026-03-01T13:00:00.000Z')).at('2026-03-01T12:30:00.000Z').then([1, 0]);
  });

  test('signingSecrets are the secrets of those generations, current first', () => {
    assert.deepEqual(signingSecrets(SERVER_SECRET, KEY, last, new Date('2026-03-01T13:00:00.000Z')),
      [webhookSecretOf(SERVER_SECRET, KEY, 2), webhookSecretOf(SERVER_SECRET, KEY, 1)]);
    assert.deepEqual(signingSecrets(SERVER_SECRET, KEY, null, new Date()), [deriveWebhookSecret(SERVER_SECRET, KEY)]);
  });
});

describe('signing with several secrets', () => {
  const [current, previous, retired] = [2, 1, 0].map((g) => webhookSecretOf(SERVER_SECRET, KEY, g)) as [string, string, string];

  test('webhook-signature carries one v1 signature per secret, space-separated, in order', () => {
    const at = new Date('2026-03-01T12:00:00.000Z');
    const both = signWebhook([current, previous], 'msg_c1', at, BODY);
    const one = (secret: string): string => signWebhook(secret, 'msg_c1', at, BODY)['webhook-signature'];
    assert.equal(both['webhook-signature'], `${one(current)} ${one(previous)}`);
    assert.match(both['webhook-signature'], /^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    assert.equal(both['webhook-timestamp'], String(at.getTime() / 1000));
  });

  test('a standardwebhooks receiver holding either secret verifies; one holding neither does not', () => {
    const headers = { ...signWebhook([current, previous], 'msg_c1', new Date(), BODY) };
    assert.deepEqual(new Webhook(current).verify(BODY, headers), JSON.parse(BODY));
    assert.deepEqual(new Webhook(previous).verify(BODY, headers), JSON.parse(BODY));
    assert.throws(() => new Webhook(retired).verify(BODY, headers), /No matching signature/);
  });

  test('no secret at all is a bug, refused', () => {
    assert.throws(() => signWebhook([], 'msg_c1', new Date(), BODY), /at least one secret/);
  });
});
