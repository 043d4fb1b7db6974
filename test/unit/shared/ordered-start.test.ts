// orderedStart: an ordered consumer's first create in time, or a NATS timeout (an outage the
// caller runs again) with the consumer's own retries ended and a late start given up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { orderedStart } from '../../../shared/src/infra/nats/ordered-start.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';

describe('orderedStart', () => {
  test('a start in time is answered as it is, the consumer untouched', async () => {
    const consumer = { maxInitialReset: 30 };
    const given: string[] = [];
    assert.equal(await orderedStart(sleep(5).then(() => 'started'), consumer, (late) => given.push(late), 200), 'started');
    assert.equal(consumer.maxInitialReset, 30);
    assert.deepEqual(given, []);
  });

  test('a start that fails in time fails as it does', async () => {
    await assert.rejects(orderedStart(Promise.reject(new Error('stream not found')), {}, () => undefined, 200), /stream not found/);
  });

  test('a late start is a NATS timeout; the consumer asks no more; its start, when it comes, is given up', async () => {
    const consumer = { maxInitialReset: 30 };
    const given: string[] = [];
    const starting = sleep(100).then(() => 'late');
    await assert.rejects(orderedStart(starting, consumer, (late) => given.push(late), 20), (err) => isNatsOutage(err));
    assert.equal(consumer.maxInitialReset, 0);
    await starting;
    await sleep(0);
    assert.deepEqual(given, ['late']);
  });

  test('a late start that then fails is left alone', async () => {
    const given: unknown[] = [];
    const starting = sleep(50).then(() => { throw new Error('gone'); });
    await assert.rejects(orderedStart(starting, {}, (late) => given.push(late), 10), (err) => isNatsOutage(err));
    await starting.catch(() => undefined);
    assert.deepEqual(given, []);
  });
});
