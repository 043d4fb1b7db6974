// The webhook secret endpoints with inject(), against a real nats-server, the embedded
// store and a real projector in-process (for the API keys): reading the secret and its
// generation, rotating it (the event it records, the grace period, defaults), concurrent
// rotations, and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEY_PART, makeEvent, type StoredEvent, type WebhookSecretRotated } from '../../../shared/src/domain/events/index.js';
import { apiKeyHash, apiKeyId, newId } from '../../../shared/src/infra/ids.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import type { SqliteStore } from '../../../shared/src/infra/store/index.js';
import type { SubjectParts } from '../../../shared/src/infra/subjects.js';
import { deriveWebhookSecret, nextRotation, rotationSubject, webhookSecretOf } from '../../../shared/src/domain/webhooks.js';
import type { ProjectionWaiter } from '../../../services/gateway/src/projection-wait.js';
import { assertProblem, startGateway, type GatewayApp, type GatewayHarness } from '../../support/gateway.js';

const SERVER_SECRET = 'webhook-rotation-test-server-secret-0123456789';
const KEY = 'rotation_test_key_00000001';
const OTHER = 'rotation_test_key_00000002';
const RACE = 'rotation_test_key_00000003';
const CROWD = 'rotation_test_key_00000004';
const BAD = 'rotation_test_key_00000005';
const EMPTY = 'rotation_test_key_00000006';

/**
 * The log as two gateway replicas see it when they rotate the same key at once: when
 * `raceNext` is set, right after the next read of a rotation subject another writer
 * appends its own rotation there (and wins), before this one appends.
 */
class RacingEventLog extends EventLog {
  raceNext = false;
  override async last(parts: SubjectParts): Promise<StoredEvent | null> {
    const last = await super.last(parts);
    if (this.raceNext && parts.event === 'webhook_secret_rotated') {
      this.raceNext = false;
      const previous = last?.event === 'webhook_secret_rotated' ? last.data : null;
      await super.append(makeEvent('webhook_secret_rotated', { kind: 'apikey', id: parts.id, part: KEY_PART },
        nextRotation(previous, new Date(), 60), { eventId: newId(), now: new Date() }));
    }
    return last;
  }
}

describe('gateway webhook secret API', () => {
  let gateway: GatewayHarness<SqliteStore, RacingEventLog>;
  let app: GatewayApp;
  let store: SqliteStore;
  let log: RacingEventLog;
  let waiter: ProjectionWaiter;
  // The gateway's clock: rotations are stamped with it.
  let now = new Date('2026-03-01T12:00:00.000Z');

  before(async () => {
    gateway = await startGateway({
      keys: [KEY, OTHER, RACE, CROWD, BAD, EMPTY].map((key) => [key, 'team'] as const),
      env: { ERROR_TYPE_BASE: 'https://errors.example/trawl', WEBHOOK_SIGNING_SECRET: SERVER_SECRET },
      clock: () => now,
      makeLog: (js, jsm) => new RacingEventLog(js, jsm),
    });
    ({ app, store, log, waiter } = gateway);
  });

  after(() => gateway.close());

  const getSecret = (key = KEY) => app.inject({ method: 'GET', url: '/api/v1/webhooks/secret', headers: { authorization: `Bearer ${key}` } });
  /** POST rotate; `body` undefined sends no body and no Content-Type; a string is sent as is. */
  const rotate = (body?: unknown, key = KEY) => app.inject({
    method: 'POST', url: '/api/v1/webhooks/secret/rotate',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const rotations = async (key: string): Promise<WebhookSecretRotated[]> =>
    (await log.history('apikey', apiKeyId(key))).flatMap((e) => (e.event === 'webhook_secret_rotated' ? [e.data] : []));

  test('a key never rotated has its original secret, generation 0', async () => {
    const res = await getSecret();
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { secret: deriveWebhookSecret(SERVER_SECRET, apiKeyId(KEY)), generation: 0 });
  });

  test('rotating without a body: generation 1, the previous secret valid for the default day, one event in the log', async () => {
    now = new Date('2026-03-01T12:00:00.000Z');
    const res = await rotate();
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), {
      secret: webhookSecretOf(SERVER_SECRET, apiKeyId(KEY), 1), generation: 1, previousSecretValidUntil: '2026-03-02T12:00:00.000Z',
    });
    assert.notEqual(res.json().secret, deriveWebhookSecret(SERVER_SECRET, apiKeyId(KEY)));
    assert.deepEqual(await rotations(KEY), [{ generation: 1, rotatedAt: '2026-03-01T12:00:00.000Z', previousValidUntil: '2026-03-02T12:00:00.000Z' }]);
    const last = await log.last(rotationSubject(apiKeyId(KEY)));
    assert.equal(last?.event, 'webhook_secret_rotated');
    // Read straight from the log: the very next GET sees the new generation.
    assert.deepEqual((await getSecret()).json(), { secret: res.json().secret, generation: 1 });
  });

  test('graceSeconds sets how long the previous secret still signs; 0 retires it at once', async () => {
    now = new Date('2026-03-05T08:00:00.000Z');
    const week = await rotate({ graceSeconds: 604_800 });
    assert.equal(week.statusCode, 200, week.body);
    assert.deepEqual([week.json().generation, week.json().previousSecretValidUntil], [2, '2026-03-12T08:00:00.000Z']);
    const none = await rotate({ graceSeconds: 0 });
    assert.deepEqual(none.json(), { secret: webhookSecretOf(SERVER_SECRET, apiKeyId(KEY), 3), generation: 3, previousSecretValidUntil: '2026-03-05T08:00:00.000Z' });
    assert.deepEqual((await rotations(KEY)).map((r) => r.generation), [1, 2, 3]);
    assert.deepEqual((await getSecret()).json().generation, 3);
  });

  test('an empty body sent as application/json, and {}, mean the defaults too', async () => {
    now = new Date('2026-03-01T00:00:00.000Z');
    const empty = await rotate('', EMPTY);
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual([empty.json().generation, empty.json().previousSecretValidUntil], [1, '2026-03-02T00:00:00.000Z']);
    const braces = await rotate({}, EMPTY);
    assert.deepEqual([braces.json().generation, braces.json().previousSecretValidUntil], [2, '2026-03-02T00:00:00.000Z']);
  });

  test("rotating one key leaves every other key's secret as it was", async () => {
    assert.deepEqual((await getSecret(OTHER)).json(), { secret: deriveWebhookSecret(SERVER_SECRET, apiKeyId(OTHER)), generation: 0 });
    assert.deepEqual(await rotations(OTHER), []);
  });

  test('a rotation that loses a race to another one is 409 ROTATION_CONFLICT and records nothing', async () => {
    log.raceNext = true;
    const lost = await rotate({ graceSeconds: 10 }, RACE);
    assertProblem(lost, 409, 'ROTATION_CONFLICT', /rotated by another request/);
    // Only the winner's rotation is in the log, and it is what GET shows.
    assert.deepEqual((await rotations(RACE)).map((r) => r.generation), [1]);
    assert.deepEqual((await getSecret(RACE)).json(), { secret: webhookSecretOf(SERVER_SECRET, apiKeyId(RACE), 1), generation: 1 });
    // Rotating again, on purpose, works from there.
    assert.equal((await rotate(undefined, RACE)).json().generation, 2);
  });

  test('concurrent rotations never share a generation: each success is its own, the others are 409', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => rotate(undefined, CROWD)));
    const won = answers.filter((r) => r.statusCode === 200).map((r) => r.json());
    for (const r of answers.filter((a) => a.statusCode !== 200)) assertProblem(r, 409, 'ROTATION_CONFLICT');
    assert.ok(won.length >= 1);
    const recorded = (await rotations(CROWD)).map((r) => r.generation);
    assert.deepEqual(recorded, Array.from({ length: won.length }, (_, i) => i + 1), 'generations 1..n, each once');
    assert.deepEqual(won.map((w) => w.generation).sort((a, b) => a - b), recorded);
    assert.equal(new Set(won.map((w) => w.secret)).size, won.length);
  });

  describe('bad input is a 400 problem and rotates nothing', () => {
    const cases: [string, unknown, RegExp][] = [
      ['negative grace', { graceSeconds: -1 }, /graceSeconds must be >= 0/],
      ['grace over 7 days', { graceSeconds: 1e9 }, /graceSeconds must be <= 604800/],
      ['grace one second over 7 days', { graceSeconds: 604_801 }, /graceSeconds must be <= 604800/],
      ['grace a string', { graceSeconds: 'x' }, /graceSeconds must be of type integer/],
      ['grace a numeric string', { graceSeconds: '60' }, /graceSeconds must be of type integer/],
      ['grace not an integer', { graceSeconds: 1.5 }, /graceSeconds must be of type integer/],
      ['grace null', { graceSeconds: null }, /graceSeconds must be of type integer/],
      ['unknown field', { graceSeconds: 60, grace: 60 }, /grace is not a known field/],
      ['body not an object', [60], /request body must be a JSON object/],
      ['body JSON null', 'null', /request body must be a JSON object/],
      ['body not JSON', '{graceSeconds: 60', /not valid JSON/],
    ];
    for (const [name, body, detail] of cases) {
      test(name, async () => {
        assertProblem(await rotate(body, BAD), 400, 'VALIDATION_ERROR', detail);
      });
    }
    test('none of them was recorded', async () => {
      assert.deepEqual(await rotations(BAD), []);
      assert.equal((await getSecret(BAD)).json().generation, 0);
    });
  });

  test('both endpoints need a valid key, like every /api/v1 route', async () => {
    assertProblem(await app.inject({ method: 'POST', url: '/api/v1/webhooks/secret/rotate' }), 401, 'UNAUTHORIZED', /missing/);
    assertProblem(await app.inject({ method: 'GET', url: '/api/v1/webhooks/secret' }), 401, 'UNAUTHORIZED', /missing/);
    assertProblem(await rotate({}, 'nope_nope_nope_nope'), 401, 'UNAUTHORIZED', /invalid/);
  });

  test('the OpenAPI document lists both endpoints, with the rotate body', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
    assert.ok(doc.paths['/api/v1/webhooks/secret'].get);
    const post = doc.paths['/api/v1/webhooks/secret/rotate'].post;
    assert.ok(post.requestBody.content['application/json'].schema.properties.graceSeconds);
    assert.equal(post.requestBody.required, false, 'the body may be left out');
    assert.equal(doc.paths['/api/v1/batch/scrape'].post.requestBody.required, true, 'other bodies stay required');
    assert.deepEqual(Object.keys(post.responses).sort(), ['200', '400', '401', '409']);
  });

  test('the projector passes rotations by: it moves on past them and keys are still served', async () => {
    const last = await log.last(rotationSubject(apiKeyId(KEY)));
    assert.equal(await waiter.waitFor(last!.seq, 5000), true);
    assert.equal((await store.apiKeys.find(apiKeyHash(KEY)))?.id, apiKeyId(KEY));
    assert.equal((await getSecret()).statusCode, 200);
  });
});
