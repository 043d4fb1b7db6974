// A cache hit shows only its own identifiers (issue 20, item 2): account B's scrape of a
// page completes; account A then scrapes the same page and is served B's result from the
// cache, or joins B's load while it runs. Nothing A can read (the POST answer, the job,
// the job list, the job's events, its console page, timeline and progress) may name B's
// job or the cache key both share. The pipeline is played by appending the events the
// fetcher and transformer would (no fetcher runs here) against a real nats-server.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createKey } from '../../../shared/src/domain/api-keys/admin.js';
import { makeEvent, type AnyEvent } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { startGateway, type GatewayHarness } from '../../support/gateway.js';
import { withEnv } from '../../support/env.js';

const KEY_A = 'cachehit_tenant_a_00000001';
const KEY_B = 'cachehit_tenant_b_00000001';
const PASSWORD = 'a long enough password';

describe('a cache hit names no other tenant', () => {
  let gw: GatewayHarness;
  let sessionA = '';

  const api = (method: 'GET' | 'POST', url: string, key: string, body?: unknown) => gw.app.inject({
    method, url, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}),
  });

  async function signUp(email: string): Promise<{ session: string; accountId: string }> {
    const form = await gw.app.inject({ method: 'GET', url: '/console/signup' });
    const set = form.headers['set-cookie'];
    const cookie = (Array.isArray(set) ? set : [String(set)]).find((c) => c.startsWith('trawl_csrf='))!.split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
    const res = await gw.app.inject({ method: 'POST', url: '/console/signup', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString() });
    assert.equal(res.statusCode, 303, res.body);
    const session = (res.headers['set-cookie'] as string[]).find((c) => c.startsWith('trawl_session='))!.split(';')[0]!;
    const keys = await gw.app.inject({ method: 'GET', url: '/console/keys', headers: { cookie: session } });
    assert.equal(keys.statusCode, 200);
    const accountId = (await gw.store.accounts.list({ limit: 10, offset: 0 })).find((a) => a.email === email)!.id;
    return { session, accountId };
  }

  /** Plays B's page to its end, as the fetcher and transformer record it. */
  async function completeB(jobId: string): Promise<void> {
    const [requested] = await gw.log.history('scrape', jobId);
    const at = { kind: 'scrape' as const, id: jobId, part: requested!.part };
    const now = new Date();
    const raw = await gw.payloads.putText(`scrape/${jobId}/${at.part}/raw.html`, '<h1>Shared page</h1>', 'text/html; charset=utf-8');
    await gw.log.append(makeEvent('page_fetched', at, {
      finalUrl: 'http://127.0.0.1:9/shared', statusCode: 200, rawHtml: raw, timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 1, screenshotMs: 0 }, fetchedAt: now.toISOString(),
    }, { eventId: newId(), now }) as AnyEvent, { once: true });
    const result = await gw.payloads.putJson(`scrape/${jobId}/${at.part}/result.json`, { markdown: '# Shared page' });
    const { seq } = await gw.log.append(makeEvent('page_completed', at, {
      result, metadata: { title: 'Shared page', description: '' }, links: [], cacheKey: (requested!.data as { cacheKey: string }).cacheKey,
      timings: { queueWaitMs: 0, fetchMs: 1, renderMs: 1, transformMs: 1, screenshotMs: 0, totalMs: 3 }, completedAt: now.toISOString(),
    }, { eventId: newId(), now }) as AnyEvent, { once: true });
    await gw.waiter.waitFor(seq);
  }

  /** Everything A can read about its job, as one text. */
  async function everythingA(jobId: string): Promise<string> {
    const reads = [
      await api('GET', `/api/v1/scrape/${jobId}`, KEY_A),
      await api('GET', `/api/v1/scrape/${jobId}/events`, KEY_A),
      await api('GET', '/api/v1/scrape', KEY_A),
      await gw.app.inject({ method: 'GET', url: `/console/jobs/scrape/${jobId}`, headers: { cookie: sessionA } }),
      await gw.app.inject({ method: 'GET', url: `/console/jobs/scrape/${jobId}/progress.json`, headers: { cookie: sessionA } }),
      await gw.app.inject({ method: 'GET', url: '/console/jobs', headers: { cookie: sessionA } }),
    ];
    for (const r of reads) assert.equal(r.statusCode, 200, r.body.slice(0, 300));
    return reads.map((r) => r.body).join('\n');
  }

  before(async () => {
    gw = await withEnv({ CONSOLE_SIGNUP: 'open' }, () => startGateway({ env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8' } }));
    const a = await signUp('tenant-a@example.org');
    const b = await signUp('tenant-b@example.org');
    sessionA = a.session;
    for (const [key, accountId] of [[KEY_A, a.accountId], [KEY_B, b.accountId]] as const) {
      const made = await createKey({ log: gw.log, now: () => new Date() }, 'team', 'test', key, accountId);
      await gw.waiter.waitFor(made.seq!);
    }
  });

  after(async () => { await gw?.close(); });

  test('served from the cache of B\'s job: A sees its own id only', async () => {
    const b = await api('POST', '/api/v1/scrape', KEY_B, { url: 'http://127.0.0.1:9/shared' });
    assert.equal(b.statusCode, 202, b.body);
    const bId = b.json().id as string;
    await completeB(bId);
    const cacheKey = ((await gw.log.history('scrape', bId))[0]!.data as { cacheKey: string }).cacheKey;

    const a = await api('POST', '/api/v1/scrape', KEY_A, { url: 'http://127.0.0.1:9/shared' });
    assert.equal(a.statusCode, 200, a.body);
    assert.equal(a.json().fromCache, true);
    assert.equal(a.json().markdown, '# Shared page', 'the content is served');
    const aId = a.json().id as string;
    assert.notEqual(aId, bId);
    // The log keeps the source for the services: the test's premise.
    assert.ok(JSON.stringify(await gw.log.history('scrape', aId)).includes(bId));

    const seen = `${a.body}\n${await everythingA(aId)}`;
    assert.ok(seen.includes(aId));
    assert.ok(!seen.includes(bId), 'B\'s job id is not shown to A');
    assert.ok(!seen.includes(cacheKey), 'the shared cache key is not shown');
    assert.ok(!seen.includes('sourceJobId') && !seen.includes('sourcePart'));
    const events = (await api('GET', `/api/v1/scrape/${aId}/events`, KEY_A)).json().events;
    assert.deepEqual(events.map((e: { event: string }) => e.event), ['page_served_from_cache']);
    assert.deepEqual(events[0].data.result, { size: events[0].data.result.size, contentType: 'application/json' }, 'the payload reference keeps size and type, not the name');
  });

  test('sharing the load of B\'s running scrape: A\'s events do not name B\'s job', async () => {
    const b = await api('POST', '/api/v1/scrape', KEY_B, { url: 'http://127.0.0.1:9/running' });
    assert.equal(b.statusCode, 202);
    const bId = b.json().id as string;
    const a = await api('POST', '/api/v1/scrape', KEY_A, { url: 'http://127.0.0.1:9/running' });
    assert.equal(a.statusCode, 202);
    const aId = a.json().id as string;
    const [shared] = await gw.log.history('scrape', aId);
    assert.equal(shared!.event, 'page_shared');
    // The share follower records B's fetch as A's own, with B's stored payloads by reference.
    const now = new Date();
    const raw = await gw.payloads.putText(`scrape/${bId}/${shared!.part}/raw.html`, '<p>x</p>', 'text/html; charset=utf-8');
    const { seq } = await gw.log.append(makeEvent('page_fetched', { kind: 'scrape', id: aId, part: shared!.part }, {
      finalUrl: 'http://127.0.0.1:9/running', statusCode: 200, rawHtml: raw, timings: { queueWaitMs: 5, fetchMs: 0, renderMs: 0, screenshotMs: 0 }, fetchedAt: now.toISOString(),
    }, { eventId: newId(), now }) as AnyEvent, { once: true });
    await gw.waiter.waitFor(seq);
    const seen = await everythingA(aId);
    assert.ok(seen.includes(aId));
    assert.ok(!seen.includes(bId), 'B\'s job id is not shown to A');
  });
});
