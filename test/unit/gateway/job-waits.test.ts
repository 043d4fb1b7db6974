// JobWaits without HTTP: which notices wake a wait, how many reads a wait costs, what ends
// it (final notice, deadline, reconnect, client gone, shutdown), and the bounds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimitedError } from '../../../shared/src/domain/errors.js';
import { decodeNotice, encodeNotice } from '../../../shared/src/infra/projection-notice.js';
import { JobWaits } from '../../../services/gateway/src/job-waits.js';

/** A job whose status the test sets; `reads` counts loads. */
function job(status = 'PENDING') {
  const state = { status, reads: 0 };
  return { state, load: async () => { state.reads++; return { status: state.status }; } };
}

const bounds = { maxWaitsPerKey: 2, maxWaitsPerGateway: 3, fallbackReadMs: 60_000 };

describe('JobWaits', () => {
  test('a final notice of the job wakes its wait: two reads in all; other jobs and non-final statuses cost none', async () => {
    const waits = new JobWaits(bounds);
    const j = job();
    const answer = waits.wait({ keyId: 'k', kind: 'scrape', id: 'a', waitMs: 60_000, load: j.load });
    await sleep(10);
    assert.equal(waits.size, 1);
    waits.noticed({ kind: 'scrape', id: 'a', status: 'PROCESSING' });
    waits.noticed({ kind: 'scrape', id: 'b', status: 'COMPLETED' });
    waits.noticed({ kind: 'crawl', id: 'a', status: 'COMPLETED' });
    await sleep(10);
    assert.equal(j.state.reads, 1);
    j.state.status = 'COMPLETED';
    waits.noticed({ kind: 'scrape', id: 'a', status: 'COMPLETED' });
    assert.deepEqual(await answer, { status: 'COMPLETED' });
    assert.equal(j.state.reads, 2);
    assert.equal(waits.size, 0);
  });

  test('a job final at the first read, or waitMs 0, is answered at once without taking a place', async () => {
    const waits = new JobWaits({ maxWaitsPerKey: 1, maxWaitsPerGateway: 1, fallbackReadMs: 60_000 });
    const pending = job();
    const held = waits.wait({ keyId: 'k', kind: 'scrape', id: 'p', waitMs: 60_000, load: pending.load });
    await sleep(10);
    const done = job('FAILED');
    assert.deepEqual(await waits.wait({ keyId: 'k', kind: 'scrape', id: 'd', waitMs: 60_000, load: done.load }), { status: 'FAILED' });
    assert.deepEqual(await waits.wait({ keyId: 'k', kind: 'scrape', id: 'p', waitMs: 0, load: pending.load }), { status: 'PENDING' });
    waits.close();
    await held;
  });

  test('the deadline answers the current state', async () => {
    const waits = new JobWaits(bounds);
    const j = job('PROCESSING');
    const started = Date.now();
    assert.deepEqual(await waits.wait({ keyId: 'k', kind: 'batch', id: 'x', waitMs: 100, load: j.load }), { status: 'PROCESSING' });
    assert.ok(Date.now() - started >= 95);
    assert.equal(j.state.reads, 2);
  });

  test('a lost notice: the wait reads every fallbackReadMs and answers the finished job within one interval, not at its deadline', async () => {
    const waits = new JobWaits({ ...bounds, fallbackReadMs: 50 });
    const j = job('PROCESSING');
    const started = Date.now();
    const answer = waits.wait({ keyId: 'k', kind: 'scrape', id: 'lost', waitMs: 30_000, load: j.load });
    await sleep(180);
    const readsBefore = j.state.reads;
    assert.ok(readsBefore >= 2, `read ${readsBefore} times in 180 ms`);
    j.state.status = 'COMPLETED';
    assert.deepEqual(await answer, { status: 'COMPLETED' });
    assert.ok(Date.now() - started < 5_000, `answered after ${Date.now() - started} ms`);
    assert.equal(waits.size, 0);
  });

  test('a fallback read of an unfinished job keeps waiting, and the deadline still ends the wait', async () => {
    const waits = new JobWaits({ ...bounds, fallbackReadMs: 40 });
    const j = job('PROCESSING');
    const started = Date.now();
    assert.deepEqual(await waits.wait({ keyId: 'k', kind: 'scrape', id: 'slow', waitMs: 200, load: j.load }), { status: 'PROCESSING' });
    assert.ok(Date.now() - started >= 195, `answered after ${Date.now() - started} ms`);
    assert.ok(j.state.reads >= 5, `${j.state.reads} reads`);
  });

  test('a notice during the first read is not lost', async () => {
    const waits = new JobWaits(bounds);
    const state = { status: 'PENDING', reads: 0 };
    const load = async () => {
      state.reads++;
      const seen = { status: state.status };
      if (state.reads === 1) {
        // The job finishes while it is being read: the read saw PENDING, the notice comes now.
        state.status = 'COMPLETED';
        waits.noticed({ kind: 'crawl', id: 'r', status: 'COMPLETED' });
      }
      return seen;
    };
    assert.deepEqual(await waits.wait({ keyId: 'k', kind: 'crawl', id: 'r', waitMs: 60_000, load }), { status: 'COMPLETED' });
    assert.equal(state.reads, 2);
  });

  test('after a reconnect every wait reads once and keeps waiting unless its job finished', async () => {
    const waits = new JobWaits(bounds);
    const a = job();
    const b = job();
    const answerA = waits.wait({ keyId: 'k', kind: 'scrape', id: 'a', waitMs: 60_000, load: a.load });
    const answerB = waits.wait({ keyId: 'k', kind: 'scrape', id: 'b', waitMs: 60_000, load: b.load });
    await sleep(10);
    b.state.status = 'FAILED'; // its notice was lost
    waits.recheckAll();
    assert.deepEqual(await answerB, { status: 'FAILED' });
    await sleep(10);
    assert.equal(a.state.reads, 2);
    assert.equal(waits.size, 1, 'the other wait goes on');
    waits.close();
    assert.deepEqual(await answerA, { status: 'PENDING' });
  });

  test('per key and per gateway bounds: 429 past either, or an answer at once with whenBusy "answer"; a client gone frees its place', async () => {
    const waits = new JobWaits(bounds);
    const gone = new AbortController();
    const held = [
      waits.wait({ keyId: 'k1', kind: 'scrape', id: 'a', waitMs: 60_000, load: job().load, signal: gone.signal }),
      waits.wait({ keyId: 'k1', kind: 'scrape', id: 'b', waitMs: 60_000, load: job().load }),
    ];
    await sleep(10);
    await assert.rejects(waits.wait({ keyId: 'k1', kind: 'scrape', id: 'c', waitMs: 60_000, load: job().load }),
      (err: unknown) => err instanceof RateLimitedError && /holds 2 waiting requests/.test(err.message) && err.retryAfterMs === 1000);
    assert.deepEqual(await waits.wait({ keyId: 'k1', kind: 'scrape', id: 'c', waitMs: 60_000, load: job().load, whenBusy: 'answer' }), { status: 'PENDING' });
    held.push(waits.wait({ keyId: 'k2', kind: 'scrape', id: 'd', waitMs: 60_000, load: job().load }));
    await sleep(10);
    await assert.rejects(waits.wait({ keyId: 'k3', kind: 'scrape', id: 'e', waitMs: 60_000, load: job().load }), /gateway already holds 3 waiting requests/);
    gone.abort();
    await held[0];
    assert.equal(waits.size, 2);
    const k3 = waits.wait({ keyId: 'k3', kind: 'scrape', id: 'e', waitMs: 60_000, load: job().load });
    await sleep(10);
    assert.equal(waits.size, 3);
    waits.close();
    await Promise.all([...held, k3]);
    assert.equal(waits.size, 0);
    // Closed: nothing waits any more.
    const started = Date.now();
    await waits.wait({ keyId: 'k1', kind: 'scrape', id: 'f', waitMs: 60_000, load: job().load });
    assert.ok(Date.now() - started < 1000);
  });
});

describe('projection notice', () => {
  test('the sequence alone, or with the job whose status changed', () => {
    const plain = encodeNotice({ seq: 42 });
    assert.equal(plain.headers, undefined);
    assert.deepEqual(decodeNotice({ string: () => plain.data }), { seq: 42 });
    const change = { kind: 'batch' as const, id: '01HX-abc_1', status: 'CANCELLED' };
    const rich = encodeNotice({ seq: 43, change });
    assert.deepEqual(decodeNotice({ string: () => rich.data, ...(rich.headers ? { headers: rich.headers } : {}) }), { seq: 43, change });
  });
});
