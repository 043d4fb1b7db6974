// Which keys gave the transform pool work lately (key-activity.ts): the pool's spare thread
// is kept warm only while more than one key is about.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeyActivity } from '../../../services/transformer/src/key-activity.js';

describe('KeyActivity', () => {
  test('given one key giving work again and again, then the keys are not shared', () => {
    const keys = new KeyActivity(1000);
    for (let at = 0; at <= 5000; at += 500) keys.seen('a', at);
    assert.equal(keys.shared(5000), false);
  });

  test('given two keys within the window, then shared; once the older one is past it, not shared', () => {
    const keys = new KeyActivity(1000);
    keys.seen('b', 0);
    keys.seen('a', 800);
    assert.equal(keys.shared(1000), true);
    assert.equal(keys.shared(1001), false, 'b gave work 1001 ms ago');
    keys.seen('a', 1500);
    assert.equal(keys.shared(1500), false);
  });

  test('given the older key gives work again, then it counts from its new time', () => {
    const keys = new KeyActivity(1000);
    keys.seen('b', 0);
    keys.seen('a', 100);
    keys.seen('b', 900);
    assert.equal(keys.shared(1050), true);
    assert.equal(keys.shared(1200), false, 'a (at 100) is past the window; b (at 900) alone is one key');
  });
});
