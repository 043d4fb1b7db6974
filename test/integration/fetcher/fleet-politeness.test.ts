// Politeness for the whole fleet against a real nats-server and a real site: two host
// governors (two fetcher replicas) together never load more of one host at once than the
// fleet's bound, a 429 with Retry-After seen by one stops both for that long, and the pace
// recovers once the host answers again; through a NATS outage no page starts and none fails,
// and a place given back meanwhile is free once NATS is back; a page whose fetcher's holder
// key is not renewed waits for its slot within a bound.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { HostGovernor } from '../../../services/fetcher/src/fleet/host-governor.js';
import { openHostPaces, paceKey, parsePace, withCrawlDelay } from '../../../shared/src/domain/host-pace.js';
import { casUpdate } from '../../../shared/src/infra/nats/kv-cas.js';
import { isNatsOutage } from '../../../shared/src/infra/nats/outage.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';

describe('fleet politeness', { timeout: 90_000 }, () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let site: TestSite;
  let loading = 0;
  let mostAtOnce = 0;
  let refuseNext = 0;
  const startedAt: number[] = [];
  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    site = await startSite({
      '/page': (_req: http.IncomingMessage, res: http.ServerResponse) => {
        startedAt.push(Date.now());
        loading++;
        mostAtOnce = Math.max(mostAtOnce, loading);
        const refuse = refuseNext > 0 && refuseNext-- > 0;
        setTimeout(() => {
          loading--;
          if (refuse) res.writeHead(429, { 'retry-after': '2' }).end('slow down');
          else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
        }, 50);
      },
    });
  });
  const governors: HostGovernor[] = [];
  const governor = (maxInFlight: number): HostGovernor => {
    const g = new HostGovernor(nc.jetstream(), { maxInFlight, intervalMs: 0, holderId: `fetcher-${governors.length}` });
    governors.push(g);
    return g;
  };
  after(async () => {
    await Promise.all(governors.map((g) => g.stop()));
    await site.close();
    await nc.close();
    await server.stop();
  });

  /** One page as a fetcher replica loads it: place, GET, report, release. */
  async function page(governor: HostGovernor): Promise<number> {
    const host = new URL(site.origin).host;
    const leave = await governor.enter(host, AbortSignal.timeout(60_000));
    try {
      const res = await fetch(site.url('/page'));
      await res.arrayBuffer();
      await governor.report(host, res.status, res.headers.get('retry-after') ?? undefined);
      return res.status;
    } finally {
      await leave();
    }
  }

  test('two replicas keep the fleet bound on one host between them', async () => {
    const replicas = [governor(3), governor(3)];
    // Each replica would load 6 at once on its own.
    await Promise.all(replicas.flatMap((g) => Array.from({ length: 6 }, () => page(g))));
    assert.equal(mostAtOnce, 3);
  });

  test('a 429 with Retry-After seen by one replica holds both back, then the pace recovers', async () => {
    const [a, b] = [governor(4), governor(4)];
    const host = new URL(site.origin).host;
    refuseNext = 1;
    assert.equal(await page(a), 429);
    const refusedAt = Date.now();
    const pace = await b.pace(host);
    assert.match(pace?.reason ?? '', /HTTP 429 with Retry-After 2 s/);
    startedAt.length = 0;
    // The other replica's next page waits out the Retry-After.
    assert.equal(await page(b), 200);
    assert.ok(startedAt[0]! - refusedAt >= 1_900, `started ${startedAt[0]! - refusedAt} ms after the 429`);
    // Successes halve the back-off until it is gone: the host is no longer slowed.
    for (let i = 0; i < 3; i++) await page(i % 2 ? a : b);
    const recovered = await a.pace(host);
    assert.equal(recovered?.backoffMs, 0);
    assert.equal(recovered?.reason, undefined);
  });

  test('an unspaced pace read answers only pages this process had before it was sent', async () => {
    const g = governor(4);
    const host = 'reuse.test';
    const sign = () => AbortSignal.timeout(10_000);
    const early = performance.now(); // a page in hand before any read
    await (await g.enter(host, sign(), performance.now()))(); // reads the pace: unspaced
    // A Crawl-delay written now, as the frontier does when it reads robots.txt, before it asks for more pages.
    const kv = await openHostPaces(nc.jetstream());
    await casUpdate(kv, paceKey(host), (text) => ({ value: JSON.stringify(withCrawlDelay(parsePace(text), 1)), result: undefined }));
    // The page in hand before the read is answered by it: no spaced start is written.
    await (await g.enter(host, sign(), early))();
    assert.equal((await g.pace(host))?.nextAt ?? 0, 0, 'the read sent after the page came was read again');
    // A page that came after the read (after the delay was written) reads the pace again: its start is spaced.
    await (await g.enter(host, sign(), performance.now()))();
    assert.ok(((await g.pace(host))?.nextAt ?? 0) > Date.now(), 'a page that came after the read started unspaced');
  });

  test('a page whose fetcher cannot renew its holder key waits for a slot within a bound, and ends as a NATS outage', async () => {
    // The key renewed once, at the start, then not for a minute: after 2/3 of its 600 ms TTL it is not current, and no slot may be taken.
    const g = new HostGovernor(nc.jetstream(), { maxInFlight: 4, intervalMs: 0, holderId: 'unrenewed', holderTtlMs: 600, holderRenewMs: 60_000, natsSlotWaitMs: 1_000 });
    governors.push(g);
    await g.slots.holders.start();
    await new Promise((r) => setTimeout(r, 500));
    // Before: asked again until the page's signal ended it (a handler's deadline, minutes; here 10 s).
    await assert.rejects(g.enter('unrenewed.test', AbortSignal.timeout(10_000)), (err: unknown) => isNatsOutage(err) && /not renewed/.test(String(err)));
  });

  test('through a NATS outage no page starts and none fails; a place given back meanwhile is freed after', async () => {
    const [a, b] = [governor(1), governor(1)];
    const host = 'outage.test';
    const leave = await a.enter(host, AbortSignal.timeout(10_000));
    await server.kill();
    await leave(); // its delete meets the outage: asked again until it goes
    let started = false;
    const next = b.enter(host, AbortSignal.timeout(60_000)).then((release) => { started = true; return release; });
    await new Promise((r) => setTimeout(r, 2_000));
    assert.equal(started, false, 'a page started while NATS was down');
    await server.start();
    await (await next)();
    assert.equal(started, true);
  });
});
