import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ackDecision, InvalidUrlError, PageTooComplexError, ValidationError } from '../../../shared/src/domain/errors.js';
import { normalizeScrapeOptions, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';
import { TransformPool, type TransformInput } from '../../../services/transformer/src/index.js';
import { threadFreeNow } from '../../../services/transformer/src/consumer.js';

function input(n: number, options: ScrapeOptionsInput = {}, url = `https://example.com/page/${n}`): TransformInput {
  const html = `<html><head><title>Page ${n}</title></head><body><h1>Heading ${n}</h1><p>Body of page ${n}. <a href="/next/${n}">next</a></p></body></html>`;
  return { html, url, options: normalizeScrapeOptions({ onlyMainContent: false, formats: ['markdown'], ...options }) };
}

describe('TransformPool', () => {
  let pool: TransformPool;
  before(() => {
    pool = new TransformPool({ size: 2 });
  });
  after(async () => {
    await pool.close();
  });

  test('runs transforms on two workers at once and queues the rest; every result is the right one', async () => {
    const runs = [1, 2, 3, 4, 5].map((n) => pool.run(input(n)));
    // Dispatch is synchronous: both workers got a task, the other three wait in the queue.
    assert.deepEqual(pool.stats(), { size: 2, busy: 2, queued: 3 });
    const outputs = await Promise.all(runs);
    outputs.forEach((out, i) => {
      const n = i + 1;
      assert.equal(out.metadata.title, `Page ${n}`);
      assert.match(out.markdown!, new RegExp(`^# Heading ${n}\\n\\nBody of page ${n}\\. \\[next\\]\\(https://example\\.com/next/${n}\\)$`));
      assert.deepEqual(out.links, [`https://example.com/next/${n}`]);
    });
    assert.deepEqual(pool.stats(), { size: 2, busy: 0, queued: 0 });
  });

  test('a transform that throws rejects with its message (validation errors keep class and field); the pool goes on', async () => {
    await assert.rejects(pool.run(input(1, { includeTags: ['p[[['] })), (err: unknown) => {
      assert.ok(err instanceof ValidationError);
      assert.equal(err.field, 'includeTags');
      assert.match(err.message, /invalid CSS selector/);
      return true;
    });
    await assert.rejects(pool.run(input(2, {}, 'no-scheme')), InvalidUrlError);
    const out = await pool.run(input(3));
    assert.equal(out.metadata.title, 'Page 3');
  });

  test('an aborted signal rejects a queued or running transform; the stopped worker is replaced', async () => {
    const early = new AbortController();
    early.abort(new Error('gave up early'));
    await assert.rejects(pool.run(input(1), { signal: early.signal }), /gave up early/);

    // A big page keeps a worker busy long enough to abort it while it runs.
    const big = input(2);
    big.html = `<html><body>${'<div><p>Paragraph text <a href="/x">link</a></p></div>'.repeat(40_000)}</body></html>`;
    const controller = new AbortController();
    const running = pool.run(big, { signal: controller.signal });
    assert.equal(pool.stats().busy, 1);
    controller.abort(new Error('stop now'));
    await assert.rejects(running, /stop now/);
    assert.deepEqual(pool.stats(), { size: 2, busy: 0, queued: 0 });
    const outputs = await Promise.all([pool.run(input(3)), pool.run(input(4))]);
    assert.deepEqual(outputs.map((o) => o.metadata.title), ['Page 3', 'Page 4']);
  });
});

describe('TransformPool crash recovery', () => {
  test('a worker that dies (out of memory) fails only its task and is replaced', async () => {
    const pool = new TransformPool({ size: 1, maxOldGenerationSizeMb: 32 });
    try {
      const huge = input(1);
      huge.html = `<html><body>${'<div><p>word <b>bold</b> <a href="/x">l</a></p></div>'.repeat(100_000)}</body></html>`;
      const crashing = pool.run(huge);
      const queuedBehind = pool.run(input(2));
      assert.deepEqual(pool.stats(), { size: 1, busy: 1, queued: 1 });
      await assert.rejects(crashing, (err: unknown) => {
        // Final: the same page would kill the next thread (issue 20), so it is never redelivered.
        assert.ok(err instanceof PageTooComplexError, String(err));
        assert.match(err.message, /transform worker died/);
        assert.equal(ackDecision(err, { deliveryCount: 1, maxDeliver: 3 }).kind, 'giveUp');
        return true;
      });
      // The task waiting behind the crash runs on the replacement worker.
      assert.equal((await queuedBehind).metadata.title, 'Page 2');
      const after = await pool.run(input(3));
      assert.equal(after.metadata.title, 'Page 3');
      assert.equal(pool.stats().size, 1);
    } finally {
      await pool.close();
    }
  });

  test('threadFreeNow (the transformer reads a page\'s HTML early only then): given a free thread, true; given it busy or a page waiting, false', async () => {
    const pool = new TransformPool({ size: 1 });
    try {
      assert.equal(threadFreeNow(pool.stats()), true, 'a free thread');
      const first = pool.run(input(1));
      assert.equal(threadFreeNow(pool.stats()), false, 'the one thread is busy: a page given now would wait');
      const second = pool.run(input(2));
      assert.equal(threadFreeNow(pool.stats()), false, 'a page waits');
      await Promise.all([first, second]);
      assert.equal(threadFreeNow(pool.stats()), true, 'free again');
    } finally {
      await pool.close();
    }
  });

  test('close() rejects waiting work and later calls', async () => {
    const pool = new TransformPool({ size: 1 });
    const first = assert.rejects(pool.run(input(1)), /closed/);
    const waiting = assert.rejects(pool.run(input(2)), /closed/);
    await pool.close();
    await Promise.all([first, waiting]);
    await assert.rejects(pool.run(input(3)), /closed/);
  });
});

describe('TransformPool with fewer threads when idle', () => {
  test('one transform at a time holds one thread: a second starts only when work waits for it', async () => {
    const pool = new TransformPool({ size: 2, idleThreads: 1, idleTimeoutMs: 60_000 });
    try {
      for (const n of [1, 2, 3]) {
        const run = pool.run(input(n), { key: 'a' });
        assert.deepEqual(pool.stats(), { size: 1, busy: 1, queued: 0 }, 'no spare started beside the running transform');
        assert.equal((await run).metadata.title, `Page ${n}`);
      }
      assert.equal(pool.threadIds().length, 1);
      const both = [4, 5].map((n) => pool.run(input(n), { key: 'a' }));
      assert.deepEqual(pool.stats(), { size: 2, busy: 2, queued: 0 }, 'the waiting page started the second thread');
      (await Promise.all(both)).forEach((out, i) => assert.equal(out.metadata.title, `Page ${i + 4}`));
    } finally {
      await pool.close();
    }
  });


  test('starts idleThreads, grows to size under load, shrinks back after idleTimeoutMs', async () => {
    const pool = new TransformPool({ size: 2, idleThreads: 1, idleTimeoutMs: 100 });
    try {
      assert.equal(pool.stats().size, 1);
      const runs = [1, 2, 3].map((n) => pool.run(input(n)));
      assert.deepEqual(pool.stats(), { size: 2, busy: 2, queued: 1 });
      const outputs = await Promise.all(runs);
      outputs.forEach((out, i) => assert.equal(out.metadata.title, `Page ${i + 1}`));
      const deadline = Date.now() + 5_000;
      while (pool.stats().size > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(pool.stats().size, 1, 'the extra thread stopped when idle');
      assert.equal((await pool.run(input(9))).metadata.title, 'Page 9', 'the remaining thread still works');
    } finally {
      await pool.close();
    }
  });
});
