// madeOnce: one open shared by every caller; an open that failed is made again on the next ask.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { madeOnce } from '../../../shared/src/infra/made-once.js';

describe('madeOnce', () => {
  test('callers at once and later share the one made', async () => {
    let made = 0;
    const handle = madeOnce(async () => ++made);
    assert.deepEqual(await Promise.all([handle(), handle()]), [1, 1]);
    assert.equal(await handle(), 1);
    assert.equal(made, 1);
  });

  test('a failed make is not kept: the next ask makes it again', async () => {
    let asks = 0;
    const handle = madeOnce(async () => {
      if (++asks === 1) throw new Error('TIMEOUT');
      return 'open';
    });
    await assert.rejects(handle(), /TIMEOUT/);
    assert.equal(await handle(), 'open');
    assert.equal(await handle(), 'open');
    assert.equal(asks, 2);
  });
});
