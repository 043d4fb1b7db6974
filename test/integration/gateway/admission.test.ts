// Strict plan limits: the limiter and its admission ledger against a real nats-server and
// the embedded store, with no projector running, so nothing the requests do reaches the
// read model unless the test writes it. Requests that arrive together are decided one
// after another: never more jobs than the plan's slots, never more pages than the quota.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { SqliteStore } from '../../../shared/src/infra/store/index.js';
import { AdmissionLedger } from '../../../shared/src/infra/admission/ledger.js';
import { PlanLimiter, type Need } from '../../../shared/src/infra/admission/plan-limits.js';
import { RateLimiter } from '../../../services/gateway/src/rate-limit.js';
import type { Caller } from '../../../services/gateway/src/plugins/auth.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';

describe('admission: strict plan limits', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let store: SqliteStore;
  let dir: string;
  let now = Date.parse('2026-11-10T12:00:00.000Z');
  let ledger: AdmissionLedger;
  let limiter: PlanLimiter;
  let keys = 0;

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-admission-'));
    store = new SqliteStore(path.join(dir, 'rm.sqlite'));
    await store.init();
    ledger = new AdmissionLedger(nc.jetstream(), { now: () => now, reservationTtlMs: 60_000 });
    limiter = new PlanLimiter(store, ledger, () => new Date(now), { concurrency: true, quota: true });
  });

  after(async () => {
    await nc.close();
    await store.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const caller = (plan: Caller['plan']): Caller => ({ keyId: `key-${++keys}`, plan });
  const month = (): string => new Date(now).toISOString().slice(0, 7);
  /** Admits each need at the same moment; the outcomes in order. */
  const together = (who: Caller, needs: Need[]) => Promise.allSettled(needs.map((need) => limiter.admit(who, need)));
  const codes = (outcomes: PromiseSettledResult<unknown>[]): string[] =>
    outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : String((o.reason as { code?: string }).code)));
  const jobs = (n: number, pages = 1): Need[] => Array.from({ length: n }, (_, i) => ({ id: `job-${keys}-${i}`, pages, job: true }));

  test('ten jobs of a free key at the same moment: exactly its 2 slots are granted', async () => {
    const who = caller('free');
    const outcomes = codes(await together(who, jobs(10)));
    assert.equal(outcomes.filter((c) => c === 'ok').length, 2, outcomes.join());
    assert.deepEqual([...new Set(outcomes.filter((c) => c !== 'ok'))], ['RATE_LIMITED']);
    assert.equal((await ledger.pending(who.keyId)).length, 2);
  });

  test('two gateway replicas admitting the same key at once still grant exactly its slots', async () => {
    // Each replica has its own ledger (its own in-process lock): only compare-and-set
    // keeps them from both taking the last slot.
    const replicas = [limiter, new PlanLimiter(store, new AdmissionLedger(nc.jetstream(), { now: () => now }), () => new Date(now), { concurrency: true, quota: true })];
    const who = caller('pro'); // 10 slots
    const outcomes = codes(await Promise.allSettled(jobs(24).map((need, i) => replicas[i % 2]!.admit(who, need))));
    assert.equal(outcomes.filter((c) => c === 'ok').length, 10, outcomes.join());
    assert.equal((await ledger.pending(who.keyId)).length, 10);
  });

  test('the last pages of a quota go to as many requests as there are pages', async () => {
    const who = caller('basic'); // 5 slots, 3000 pages
    await store.keyUsage.put({ id: who.keyId, month: month(), pages: 2998, activeJobs: {}, lastSeq: 1 });
    const outcomes = codes(await together(who, jobs(5)));
    assert.equal(outcomes.filter((c) => c === 'ok').length, 2, outcomes.join());
    assert.deepEqual([...new Set(outcomes.filter((c) => c !== 'ok'))], ['QUOTA_EXCEEDED']);
  });

  test('a reservation the read model already shows is not counted twice', async () => {
    const who = caller('free');
    const [first] = jobs(1);
    const admission = await limiter.admit(who, first!);
    // The projector has applied it (the job is running), but the reservation is still there.
    await store.keyUsage.put({ id: who.keyId, month: month(), pages: 1, activeJobs: { [first!.id]: new Date(now).toISOString() }, lastSeq: 2 });
    assert.equal((await ledger.pending(who.keyId)).length, 1);
    await limiter.admit(who, { id: 'second', pages: 1, job: true });
    await assert.rejects(limiter.admit(who, { id: 'third', pages: 1, job: true }), { code: 'RATE_LIMITED' });
    assert.equal(admission.grantedPages, 1);
  });

  test('recording frees the reservation once projected, or at once when the append fails', async () => {
    const who = caller('free');
    const ok = await limiter.admit(who, { id: 'a', pages: 1, job: true });
    assert.equal(await ok.record(async () => 41, async (seq) => seq === 41), 41);
    const failing = await limiter.admit(who, { id: 'b', pages: 1, job: true });
    await assert.rejects(failing.record(async () => { throw new Error('nats down'); }, async () => true), /nats down/);
    assert.deepEqual(await ledger.pending(who.keyId), []);
    // Not yet projected: the reservation stays until the projection shows the job.
    const late = await limiter.admit(who, { id: 'c', pages: 1, job: true });
    await late.record(async () => 42, async () => false);
    assert.deepEqual((await ledger.pending(who.keyId)).map((r) => r.id), ['c']);
  });

  test('a reservation left by a crashed gateway stops counting after its time to live', async () => {
    const who = caller('free');
    await together(who, jobs(2));
    await assert.rejects(limiter.admit(who, { id: 'blocked', pages: 1, job: true }), { code: 'RATE_LIMITED' });
    now += 60_001;
    const admitted = await limiter.admit(who, { id: 'later', pages: 1, job: true });
    assert.equal(admitted.grantedPages, 1);
    assert.deepEqual((await ledger.pending(who.keyId)).map((r) => r.id), ['later']);
  });

  test('a crawl is granted what is left of the quota after what running crawls hold', async () => {
    const who = caller('free'); // 500 pages
    await store.keyUsage.put({ id: who.keyId, month: month(), pages: 300, activeJobs: {}, committedPages: { running: 120 }, lastSeq: 3 });
    const outcomes = await Promise.allSettled([
      limiter.admit(who, { id: 'crawl-a', pages: 1, upToPages: 50, job: true }),
      limiter.admit(who, { id: 'crawl-b', pages: 1, upToPages: 100, job: true }),
    ]);
    // 80 pages were free: whichever was decided first got its wish (or all 80), the other
    // the rest (or QUOTA_EXCEEDED when none was left). Never more than 80 between them.
    const granted = outcomes.map((o) => (o.status === 'fulfilled' ? o.value.grantedPages : 0));
    assert.equal(granted[0]! + granted[1]!, 80, JSON.stringify(granted));
    await assert.rejects(limiter.admit(who, { id: 'map', pages: 1, job: false }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'QUOTA_EXCEEDED');
      assert.match(err.message, /300 used, 200 more held by running jobs/);
      return true;
    });
  });

  test('a burst of one key at the per-minute limiter: exactly the limit is counted, across replicas', async () => {
    const minuteStart = Math.floor(now / 60_000) * 60_000 + 1_000;
    const replicas = [new RateLimiter(nc.jetstream(), () => minuteStart), new RateLimiter(nc.jetstream(), () => minuteStart)];
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => replicas[i % 2]!.take('burst-key', 30)));
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason.message));
    assert.equal(outcomes.length - refused.length, 30);
    // Refused only for the limit, never for contention.
    assert.ok(refused.every((m) => /rate limit of 30 requests per minute/.test(m)), refused.join('\n'));
    const remaining = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.remaining] : [])).sort((a, b) => a - b);
    assert.deepEqual(remaining, Array.from({ length: 30 }, (_, i) => i));
  });

  test('with both limits off nothing is reserved', async () => {
    const open = new PlanLimiter(store, ledger, () => new Date(now), { concurrency: false, quota: false });
    const who = caller('free');
    const outcomes = await Promise.all(jobs(5).map((need) => open.admit(who, need)));
    assert.equal(outcomes.length, 5);
    assert.deepEqual(await ledger.pending(who.keyId), []);
  });
});
