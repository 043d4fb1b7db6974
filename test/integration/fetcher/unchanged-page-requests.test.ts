// What an unchanged page (a recrawl's 304s) asks NATS for, against a real nats-server and a
// real site: a conditional GET answered 304 only reads its host's profile (not counted as a
// page seen; any other answer is), and a host's pages within a second read it once; a host's pages in a row take one slot of the fleet's
// bound, not one publish and one delete each, and the slot is free for another replica soon
// after; a host's pace read is reused a moment, so another replica's 429 is seen within
// PACE_READ_REUSE_MS; a job's cancel is learnt at once, though "not cancelled" is believed
// for a second.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { loadConfig } from '../../../shared/src/infra/config.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { CancelCheck } from '../../../shared/src/infra/nats/cancel-check.js';
import { EngineRouter, PROFILE_READ_REUSE_MS } from '../../../services/fetcher/src/engine/engine-router.js';
import { hostKeyOf, KvHostProfiles, type HostProfiles } from '../../../services/fetcher/src/engine/host-profile-store.js';
import { HttpEngine } from '../../../services/fetcher/src/engine/http-engine.js';
import { ENGINE_DEFAULTS } from '../../../shared/src/domain/scrape-options.js';
import { HostGovernor, PACE_READ_REUSE_MS, SLOT_LINGER_MS } from '../../../services/fetcher/src/fleet/host-governor.js';
import { HOST_SLOTS_STREAM } from '../../../services/fetcher/src/fleet/host-slots.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx as signal, LOOPBACK_ALLOWED, opts, testRouter } from './helpers.js';

const PAGE = `<!doctype html><html><head><title>Same</title></head><body><article><h1>Same</h1>${'<p>Text of a page that does not change between two crawls.</p>'.repeat(5)}</article></body></html>`;

describe('an unchanged page asks NATS for little', { timeout: 90_000 }, () => {
  let server: NatsServerHandle;
  let ctx: ServiceContext;
  let site: TestSite;
  let dir: string;
  let refuseNext = 0;
  const governors: HostGovernor[] = [];

  before(async () => {
    server = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-unchanged-'));
    ctx = await connectService('unchanged-test', loadConfig({ NATS_URL: server.url, DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' }), createLogger('unchanged-test', 'silent'));
    site = await startSite({
      '/etag': (req: http.IncomingMessage, res: http.ServerResponse) => {
        if (req.headers['if-none-match'] === '"v1"') { res.writeHead(304, { etag: '"v1"' }).end(); return; }
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"v1"' }).end(PAGE);
      },
      '/page': (_req: http.IncomingMessage, res: http.ServerResponse) => {
        if (refuseNext > 0 && refuseNext-- > 0) { res.writeHead(429, { 'retry-after': '1' }).end('slow down'); return; }
        res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
      },
    });
  });
  after(async () => {
    await Promise.all(governors.map((g) => g.stop()));
    await ctx.nc.close();
    await site.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const governor = (holderId: string, maxInFlight: number): HostGovernor => {
    const g = new HostGovernor(ctx.js, { maxInFlight, intervalMs: 0, holderId });
    governors.push(g);
    return g;
  };
  const slotPublishes = async (): Promise<number> => (await ctx.jsm.streams.info(HOST_SLOTS_STREAM)).state.last_seq;

  test('a conditional GET answered 304 reads the host profile without counting the page; a 200 counts it', async () => {
    const router = testRouter(ctx.nc, () => Promise.reject(new Error('no render expected')));
    const profiles = new KvHostProfiles(ctx.js, { agreements: 3, recheckEvery: 25 }, createLogger('profiles', 'silent'));
    const host = hostKeyOf(site.url('/etag'));
    // A static host: three agreeing verifications.
    for (let i = 0; i < 3; i++) await profiles.record(host, { type: 'verified', agreed: true, similarity: 1, url: site.url('/etag'), at: new Date().toISOString(), markers: [] });
    const before = (await profiles.get(host)).sinceCheck;
    assert.equal((await profiles.get(host)).mode, 'static');

    const unchanged = await router.fetch('crawl', site.url('/etag'), opts(), signal(), { etag: '"v1"' });
    assert.equal(unchanged.notModified, true);
    assert.equal((await profiles.get(host)).sinceCheck, before, 'a 304 is no page seen');

    const changed = await router.fetch('crawl', site.url('/etag'), opts(), signal(), { etag: '"v0"' });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.engine.used, 'http');
    assert.equal((await profiles.get(host)).sinceCheck, before + 1, 'any other answer is counted');
  });

  test('conditional GETs of one host within PROFILE_READ_REUSE_MS read its profile once', async () => {
    const inner = new KvHostProfiles(ctx.js, { agreements: 3, recheckEvery: 25 }, createLogger('profiles', 'silent'));
    let reads = 0;
    const profiles: HostProfiles = { get: (key) => { reads++; return inner.get(key); }, record: (key, event) => inner.record(key, event) };
    const router = new EngineRouter({
      capture: () => Promise.reject(new Error('no render expected')),
      http: new HttpEngine({ allowCidrs: LOOPBACK_ALLOWED, maxBytes: 5_000_000, documentMaxBytes: 5_000_000, chromeVersion: () => '140' }),
      profiles, policy: { agreements: 3, recheckEvery: 25 }, defaults: ENGINE_DEFAULTS, clock: () => new Date(), logger: createLogger('router', 'silent'),
    });
    const host = hostKeyOf(site.url('/etag'));
    for (let i = 0; i < 3; i++) await inner.record(host, { type: 'verified', agreed: true, similarity: 1, url: site.url('/etag'), at: new Date().toISOString(), markers: [] });
    for (let i = 0; i < 5; i++) assert.equal((await router.fetch('crawl', site.url('/etag'), opts(), signal(), { etag: '"v1"' })).notModified, true);
    assert.equal(reads, 1, 'one read for five pages');
    await new Promise((r) => setTimeout(r, PROFILE_READ_REUSE_MS + 50));
    await router.fetch('crawl', site.url('/etag'), opts(), signal(), { etag: '"v1"' });
    assert.equal(reads, 2, 'read again once the one known is older');
  });

  test('pages of a host in a row take one slot; it is free for another replica soon after', async () => {
    const host = new URL(site.origin).host;
    const a = governor('a', 1);
    const first = await a.enter(host, AbortSignal.timeout(10_000));
    await first();
    const published = await slotPublishes();
    for (let i = 0; i < 5; i++) await (await a.enter(host, AbortSignal.timeout(10_000)))();
    assert.equal(await slotPublishes(), published, 'the next pages reused the slot: no publish');
    // Another replica with the same bound of 1 gets the slot once this one stops using it.
    await new Promise((r) => setTimeout(r, SLOT_LINGER_MS + 200));
    const b = governor('b', 1);
    const leave = await b.enter(host, AbortSignal.timeout(5_000));
    await leave();
  });

  test('a 429 seen by one replica holds the other back once its pace read is older than PACE_READ_REUSE_MS', async () => {
    const host = new URL(site.origin).host;
    const [a, b] = [governor('pace-a', 4), governor('pace-b', 4)];
    await (await b.enter(host, AbortSignal.timeout(10_000)))(); // b has read the pace
    refuseNext = 1;
    const leave = await a.enter(host, AbortSignal.timeout(10_000));
    const res = await fetch(site.url('/page'));
    const refusedAt = Date.now(); // before the report: the pace holds starts until a second after it
    await a.report(host, res.status, res.headers.get('retry-after') ?? undefined);
    await leave();
    assert.equal(res.status, 429);
    await new Promise((r) => setTimeout(r, PACE_READ_REUSE_MS));
    await (await b.enter(host, AbortSignal.timeout(10_000)))();
    assert.ok(Date.now() - refusedAt >= 900, `b started ${Date.now() - refusedAt} ms after the 429 (Retry-After: 1)`);
  });

  test('a cancel is learnt at once, though a job read as not cancelled is believed for a while', async () => {
    // "Not cancelled" believed for a minute here: a "cancelled" can only come from the event.
    const check = new CancelCheck(ctx.log, ctx.nc, 60_000);
    try {
      assert.equal(await check.cancelled('crawl', 'c-live'), false);
      const now = new Date();
      await ctx.log.append(makeEvent('crawl_cancel_requested', { kind: 'crawl', id: 'c-live', part: 'job' }, { requestedAt: now.toISOString() }, { eventId: newId(), now }));
      const heardBy = Date.now() + 30_000;
      while (!(await check.cancelled('crawl', 'c-live'))) {
        assert.ok(Date.now() < heardBy, 'the cancel was not learnt from its event');
        await new Promise((r) => setTimeout(r, 10));
      }
      // A cancel nobody here heard (recorded before this process listened): read from the log.
      const late = new CancelCheck(ctx.log, ctx.nc);
      assert.equal(await late.cancelled('crawl', 'c-live'), true);
      late.close();
      assert.equal(await check.cancelled('scrape', 'any'), false, 'a scrape has no cancel');
    } finally {
      check.close();
    }
  });
});
