// The pool's bounds (issue 20): a transform past its budget is killed and its thread
// replaced; one key cannot take every thread; keys are served round-robin; documents run
// at a bounded concurrency; a thread that kept a big heap is replaced after its transform.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ackDecision, DocumentTooComplexError, TransformTimeoutError } from '../../../shared/src/domain/errors.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { TransformPool, type TransformInput } from '../../../services/transformer/src/index.js';
import { rebuildError, WorkerTrawlError } from '../../../services/transformer/src/thread-protocol.js';

function page(n: number): TransformInput {
  const html = `<html><head><title>Page ${n}</title></head><body><h1>Heading ${n}</h1><p>Body ${n}</p></body></html>`;
  return { html, url: `https://example.com/page/${n}`, options: normalizeScrapeOptions({ onlyMainContent: false, formats: ['markdown'] }) };
}

/**
 * The page and selector: 300 nested divs and a descendant chain that never matches
 * (no <section>), which linkedom's matcher backtracks through for minutes. Built past the
 * gateway's validation on purpose: the pool must hold whatever gets through.
 */
function stall(n: number): TransformInput {
  const html = `<html><head><title>Stall ${n}</title></head><body>${'<div>'.repeat(300)}<span>x</span>${'</div>'.repeat(300)}</body></html>`;
  const options = { ...normalizeScrapeOptions({ formats: ['markdown'] }), formats: ['extract' as const] };
  return { html, url: `https://example.com/stall/${n}`, options: { ...options, extract: { schema: { fields: { x: { selector: 'section div div div div div div span' } } } } } };
}

const FIRST_DELIVERY = { deliveryCount: 1, maxDeliver: 3 };

describe('TransformPool budgets', () => {
  test('given a transform past its budget, then it fails at once with TRANSFORM_TIMEOUT (final), its thread is replaced and the next transform runs', async () => {
    const pool = new TransformPool({ size: 2 });
    try {
      const ids = pool.threadIds();
      const started = performance.now();
      const err = await pool.run(stall(1), { budgetMs: 300 }).then(() => undefined, (e: unknown) => e);
      const tookMs = performance.now() - started;
      assert.ok(err instanceof TransformTimeoutError, String(err));
      assert.equal(err.code, 'TRANSFORM_TIMEOUT');
      assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp', 'not redelivered into the same stall');
      assert.ok(tookMs < 5_000, `stopped at its budget, not run to its end (${Math.round(tookMs)} ms)`);
      assert.deepEqual(pool.stats(), { size: 2, busy: 0, queued: 0 });
      assert.equal((await pool.run(page(2), { budgetMs: 10_000 })).metadata.title, 'Page 2');
      // terminate() is asynchronous: the stopped thread leaves the pool at its exit event,
      // which on a busy machine may come after page 2 ran on the other thread.
      for (let i = 0; i < 100 && pool.threadIds().includes(ids[0]!) && pool.threadIds().includes(ids[1]!); i++) await new Promise((r) => setTimeout(r, 50));
      assert.notDeepEqual(pool.threadIds(), ids, 'the stalled thread was replaced');
      assert.equal(pool.stoppedThreads().budget, 1);
    } finally {
      await pool.close();
    }
  });

  test('given a running transform is aborted (a cancelled job), then its thread is free at once for the next one', async () => {
    const pool = new TransformPool({ size: 1 });
    try {
      const cancel = new AbortController();
      const stalled = pool.run(stall(1), { key: 'a', signal: cancel.signal });
      const behind = pool.run(page(2), { key: 'a' });
      assert.deepEqual(pool.stats(), { size: 1, busy: 1, queued: 1 });
      cancel.abort(new Error('crawl cancelled'));
      await assert.rejects(stalled, /crawl cancelled/);
      assert.equal(pool.stoppedThreads().aborted, 1);
      assert.equal((await behind).metadata.title, 'Page 2');
    } finally {
      await pool.close();
    }
  });
});

describe('TransformPool budgets and thread start-up', () => {
  test('given a page posted to a thread still loading its modules, then the start-up does not count against the page\'s budget', async () => {
    // The thread is started by the constructor and the page is posted at once, before the
    // thread can have said it is ready; then this thread blocks for far longer than the
    // budget (as a saturated machine delays everything), so the thread's start-up, the
    // page's transform and its reply all come in while the budget would have run out.
    const pool = new TransformPool({ size: 1 });
    try {
      const done = pool.run(page(1), { budgetMs: 1_000 });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3_000);
      assert.equal((await done).metadata.title, 'Page 1');
      assert.equal(pool.stoppedThreads().budget, 0);
      // A thread that is ready gives the next page its budget from the post, as before.
      const err = await pool.run(stall(2), { budgetMs: 300 }).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof TransformTimeoutError, String(err));
    } finally {
      await pool.close();
    }
  });
});

describe('TransformPool fairness', () => {
  for (const otherKeyBefore of [true, false]) {
    test(`given one key stalls every thread${otherKeyBefore ? ' after another key gave work' : ', alone'}, then another key still gets a thread at once (the key over its share gives one back)`, async () => {
      const pool = new TransformPool({ size: 2 });
      try {
        if (otherKeyBefore) await pool.run(page(8), { key: 'b' });
        const stalls = [1, 2, 3].map((n) => pool.run(stall(n), { key: 'a', budgetMs: 20_000 }).catch((e: unknown) => e));
        // Key a uses both threads (its share is one: size - 1); the third page waits. A spare
        // thread is kept warm for another key while a runs over its share only if another key
        // gave work lately: alone, a holds no thread for keys that are not there.
        assert.deepEqual(pool.runningByKey(), { a: 2 });
        assert.deepEqual(pool.stats(), { size: otherKeyBefore ? 3 : 2, busy: 2, queued: 1 });
        const started = performance.now();
        const other = pool.run(page(9), { key: 'b', budgetMs: 20_000 });
        // b starts at once, on the spare or on a thread started for it; a's newest stall is
        // stopped and queued again.
        assert.deepEqual(pool.runningByKey(), { a: 1, b: 1 });
        assert.equal(pool.stats().queued, 2);
        assert.equal((await other).metadata.title, 'Page 9');
        assert.ok(performance.now() - started < 5_000, 'not behind the stalled pages');
        assert.deepEqual(pool.runningByKey(), { a: 2 }, 'the freed thread goes back to key a');
        await pool.close();
        await Promise.all(stalls);
      } finally {
        await pool.close();
      }
    });
  }

  test('given another key gave work longer than sharedWindowMs ago, then a key over its share holds no spare thread', async () => {
    const pool = new TransformPool({ size: 2, sharedWindowMs: 100 });
    try {
      await pool.run(page(8), { key: 'b' });
      await new Promise((r) => setTimeout(r, 200));
      const stalls = [1, 2, 3].map((n) => pool.run(stall(n), { key: 'a', budgetMs: 20_000 }).catch((e: unknown) => e));
      assert.deepEqual(pool.stats(), { size: 2, busy: 2, queued: 1 });
      await pool.close();
      await Promise.all(stalls);
    } finally {
      await pool.close();
    }
  });

  test('given one key runs over its share for longer than idleTimeoutMs, then the spare thread is kept, not stopped and started again', async () => {
    const pool = new TransformPool({ size: 2, idleThreads: 1, idleTimeoutMs: 50 });
    try {
      await pool.run(page(8), { key: 'b' });
      const stalls = [1, 2, 3].map((n) => pool.run(stall(n), { key: 'a', budgetMs: 20_000 }).catch((e: unknown) => e));
      assert.deepEqual(pool.stats(), { size: 3, busy: 2, queued: 1 });
      const threads = pool.threadIds();
      await new Promise((r) => setTimeout(r, 400));
      assert.deepEqual(pool.stats(), { size: 3, busy: 2, queued: 1 }, 'the spare is still there');
      assert.deepEqual(pool.threadIds(), threads, 'the same threads: none stopped and replaced');
      await pool.close();
      await Promise.all(stalls);
    } finally {
      await pool.close();
    }
  });

  test('given one key queued many pages before another key, then the keys are served in turns', async () => {
    const pool = new TransformPool({ size: 1 });
    try {
      const done: string[] = [];
      const runs = [
        ...['a1', 'a2', 'a3', 'a4'].map((name, n) => pool.run(page(n), { key: 'a' }).then(() => done.push(name))),
        pool.run(page(5), { key: 'b' }).then(() => done.push('b1')),
      ];
      await Promise.all(runs);
      // a1 was running, a2 was next in turn; then b's turn comes before a's other pages.
      assert.deepEqual(done, ['a1', 'a2', 'b1', 'a3', 'a4']);
    } finally {
      await pool.close();
    }
  });

  test('given a key over its share is preempted, then its stopped transform runs again and completes', async () => {
    const pool = new TransformPool({ size: 2 });
    try {
      const big = (n: number): TransformInput => ({
        ...page(n), html: `<html><head><title>Big ${n}</title></head><body>${'<div><p>Paragraph text <a href="/x">link</a></p></div>'.repeat(20_000)}</body></html>`,
      });
      const done: string[] = [];
      const a = [1, 2].map((n) => pool.run(big(n), { key: 'a' }).then((out) => done.push(out.metadata.title)));
      assert.deepEqual(pool.runningByKey(), { a: 2 });
      const b = pool.run(page(3), { key: 'b' }).then((out) => done.push(out.metadata.title));
      assert.deepEqual(pool.runningByKey(), { a: 1, b: 1 }, 'b runs at once; a\'s newest page was stopped for it');
      await Promise.all([...a, b]);
      assert.equal(done[0], 'Page 3', 'b did not wait for a\'s pages');
      assert.equal(pool.stoppedThreads().preempted, 1);
      assert.deepEqual(done.slice(1).sort(), ['Big 1', 'Big 2'], 'the preempted page still completed');
    } finally {
      await pool.close();
    }
  });

  test('given documents (heavy) beyond heavyThreads, then they wait while a page of the same key runs', async () => {
    const pool = new TransformPool({ size: 3, threadsPerKey: 3, heavyThreads: 1 });
    try {
      const first = pool.run(stall(1), { key: 'a', heavy: true, budgetMs: 200 }).catch((e: unknown) => e);
      const second = pool.run(stall(2), { key: 'b', heavy: true, budgetMs: 200 }).catch((e: unknown) => e);
      const light = pool.run(page(3), { key: 'b' });
      assert.deepEqual(pool.stats(), { size: 3, busy: 2, queued: 1 }, 'the second document waits; the page runs');
      assert.equal((await light).metadata.title, 'Page 3');
      assert.ok((await first) instanceof TransformTimeoutError);
      assert.ok((await second) instanceof TransformTimeoutError, 'the second document ran after the first');
    } finally {
      await pool.close();
    }
  });
});

describe('TransformPool memory', () => {
  test('given a document (heavy) whose transform exhausts its thread\'s heap, then DOCUMENT_TOO_COMPLEX (final) and the pool goes on', async () => {
    const pool = new TransformPool({ size: 1, maxOldGenerationSizeMb: 32 });
    try {
      const huge = page(1);
      huge.html = `<html><body>${'<div><p>word <b>bold</b> <a href="/x">l</a></p></div>'.repeat(100_000)}</body></html>`;
      const err = await pool.run(huge, { heavy: true }).then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof DocumentTooComplexError, String(err));
      assert.equal(err.code, 'DOCUMENT_TOO_COMPLEX');
      assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp', 'never redelivered into another crash');
      assert.equal(pool.stoppedThreads().died, 1);
      assert.equal((await pool.run(page(2), { heavy: true })).metadata.title, 'Page 2');
    } finally {
      await pool.close();
    }
  });

  test('given a transform that left its thread holding more than recycleAboveMb, then the thread is replaced', async () => {
    const pool = new TransformPool({ size: 1, recycleAboveMb: 16 });
    try {
      const ids = pool.threadIds();
      const big = page(1);
      big.html = `<html><body>${'<div><p>Paragraph text <a href="/x">link</a></p></div>'.repeat(20_000)}</body></html>`;
      await pool.run(big);
      const deadline = Date.now() + 5_000;
      while (pool.threadIds()[0] === ids[0] && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.notEqual(pool.threadIds()[0], ids[0], 'recycled');
      assert.equal(pool.stoppedThreads().recycled, 1);
      assert.equal((await pool.run(page(2))).metadata.title, 'Page 2');

      const small = new TransformPool({ size: 1, recycleAboveMb: 4096 });
      try {
        const before = small.threadIds();
        await small.run(page(3));
        assert.deepEqual(small.threadIds(), before, 'a small transform keeps its thread');
      } finally {
        await small.close();
      }
    } finally {
      await pool.close();
    }
  });
});

describe('TransformPool lazy inputs', () => {
  test('given a loader, then it runs only when a thread takes the task (a waiting document holds no bytes); a failed load fails only its task', async () => {
    const pool = new TransformPool({ size: 1 });
    try {
      let loads = 0;
      const first = pool.run(stall(1), { budgetMs: 300 }).catch((e: unknown) => e);
      const lazy = pool.run(async () => {
        loads += 1;
        return page(2);
      });
      const broken = pool.run(() => Promise.reject(new Error('payload expired')));
      assert.equal(loads, 0, 'not loaded while it waits');
      assert.ok((await first) instanceof TransformTimeoutError);
      assert.equal((await lazy).metadata.title, 'Page 2');
      assert.equal(loads, 1);
      await assert.rejects(broken, /payload expired/);
      assert.equal((await pool.run(page(3))).metadata.title, 'Page 3', 'the pool goes on');
    } finally {
      await pool.close();
    }
  });
});

describe('errors across the thread boundary', () => {
  test('given one of our errors the pool does not name, then its code and retryability still decide the message', () => {
    const err = rebuildError({ name: 'DocumentBombError', message: 'inflated past 64 MiB', code: 'DOCUMENT_TOO_COMPLEX', retryable: false });
    assert.ok(err instanceof WorkerTrawlError);
    assert.equal(err.code, 'DOCUMENT_TOO_COMPLEX');
    assert.equal(err.name, 'DocumentBombError');
    assert.equal(ackDecision(err, FIRST_DELIVERY).kind, 'giveUp');
    const known = rebuildError({ name: 'TransformTimeoutError', message: 'x', code: 'TRANSFORM_TIMEOUT', retryable: false });
    assert.ok(known instanceof TransformTimeoutError);
    const plain = rebuildError({ name: 'TypeError', message: 'boom' });
    assert.equal(plain.name, 'TypeError');
    assert.equal(ackDecision(plain, FIRST_DELIVERY).kind, 'nak', 'an unknown failure is retried as before');
    const badCode = rebuildError({ name: 'X', message: 'y', code: 'NOT_A_CODE', retryable: false });
    assert.ok(!(badCode instanceof WorkerTrawlError));
  });
});
