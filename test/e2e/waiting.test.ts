// Waiting for jobs the cheap way, on the whole system (`npm start`): a POST /scrape with
// waitMs answers with the finished result; a free key (10 requests per minute, 2 jobs at
// once) waits for its two running jobs with long-polls and stays far under its limit while
// they finish; a gateway that stops answers the waits it holds instead of cutting them off.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { OTHER_API_KEY, startSystem, TEST_API_KEY, type TrawlSystem } from '../support/system.js';

const FREE_KEY = 'free_key_waiting_0123456789';
const FINAL = new Set(['COMPLETED', 'FAILED']);
const page = (title: string) => `<html><head><title>${title}</title></head><body><article><h1>${title}</h1><p>A page about ${title.toLowerCase()}, long enough to be the main content of this small test page.</p></article></body></html>`;

describe('waiting for jobs (waitMs)', () => {
  let site: TestSite;
  let system: TrawlSystem;

  before(async () => {
    site = await startSite({
      '/quick': page('Quick'),
      '/slow-a': { body: page('Slow A'), delayMs: 5_000 },
      '/slow-b': { body: page('Slow B'), delayMs: 11_000 },
      '/slower': { body: page('Slower'), delayMs: 25_000 },
    });
    system = await startSystem({
      env: { TRAWL_SERVICES: 'projector,fetcher,transformer,gateway', BOOTSTRAP_API_KEYS: `${TEST_API_KEY}:team,${OTHER_API_KEY}:team,${FREE_KEY}:free` },
    });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  test('POST /scrape with waitMs answers 200 with the finished job: the body GET gives', async () => {
    const res = await system.api('POST', '/api/v1/scrape', { url: site.url('/quick'), waitMs: 60_000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'COMPLETED', JSON.stringify(res.body));
    assert.match(res.body.markdown, /# Quick/);
    assert.equal(res.body.metadata.title, 'Quick');
    assert.deepEqual(res.body, (await system.api('GET', `/api/v1/scrape/${res.body.id}`)).body);
  });

  test('a free key waiting for its two running jobs with waitMs stays under its 10 requests per minute', async () => {
    const free = { authorization: `Bearer ${FREE_KEY}` };
    let requests = 0;
    const call = async (method: string, path: string, body?: unknown) => {
      requests++;
      const res = await system.api(method, path, body, free);
      assert.ok(res.status === 200 || res.status === 202, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };
    const started = Date.now();
    const ids = await Promise.all(['/slow-a', '/slow-b'].map(async (p) => (await call('POST', '/api/v1/scrape', { url: site.url(p) })).body.id as string));
    // One request per job and per 8 s at most, however long the job takes.
    const finished = await Promise.all(ids.map(async (id) => {
      for (;;) {
        const res = await call('GET', `/api/v1/scrape/${id}?waitMs=8000`);
        if (FINAL.has(res.body.status)) return res;
      }
    }));
    const elapsedMs = Date.now() - started;
    assert.deepEqual(finished.map((r) => r.body.status), ['COMPLETED', 'COMPLETED'], JSON.stringify(finished.map((r) => r.body.error)));
    assert.match(finished[1]!.body.markdown, /Slow B/);
    assert.ok(elapsedMs >= 11_000, `the jobs ran ${elapsedMs} ms`);
    // Polling once a second would have taken more than 11 requests; waiting took 2 POSTs and a few GETs.
    assert.ok(requests < 10, `${requests} requests`);
    const last = finished[1]!.headers;
    assert.equal(last.get('x-ratelimit-limit'), '10');
    assert.ok(Number(last.get('x-ratelimit-remaining')) >= 0);
  });

  test('a gateway that stops answers the waits it holds with the current state', async () => {
    const created = await system.api('POST', '/api/v1/scrape', { url: site.url('/slower') });
    assert.equal(created.status, 202);
    const started = Date.now();
    const waiting = system.api('GET', `/api/v1/scrape/${created.body.id}?waitMs=60000`);
    await new Promise((r) => setTimeout(r, 1_000));
    const stopping = system.stop();
    const res = await waiting;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(['PENDING', 'PROCESSING'].includes(res.body.status), res.body.status);
    assert.ok(Date.now() - started < 20_000, `answered after ${Date.now() - started} ms`);
    await stopping;
  });
});
