// Tenant isolation over every read path: key B asks for key A's scrape (result and
// screenshots), crawl, batch (pages and their screenshots) and every job's events, by id
// and by wildcard; lists are scoped; cancels are refused. Then the probe's hostile /events
// ids: each is a 404 at once, and a burst of them does not make good requests fail.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

let system: TrawlSystem;
let site: TestSite;
const ids: { scrape: string; crawl: string; batch: string } = { scrape: '', crawl: '', batch: '' };
const asB = { authorization: `Bearer ${OTHER_API_KEY}` };

const page = (title: string) => `<html><head><title>${title}</title></head><body><h1>${title}</h1>
  <p>Tenant A's private page about ${title}, long enough to be the main content of the page.</p><a href="/b">next</a></body></html>`;

before(async () => {
  site = await startSite({ '/a': page('Alpha secret'), '/b': page('Bravo secret') });
  system = await startSystem({ env: { RATE_LIMITS: 'off' } });
  const done = (b: any) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(b.status);
  const scrape = await system.api('POST', '/api/v1/scrape', { url: site.url('/a'), formats: ['markdown', 'screenshot'], actions: [{ type: 'screenshot' }] });
  const crawl = await system.api('POST', '/api/v1/crawl', { url: site.url('/a'), limit: 2 });
  const batch = await system.api('POST', '/api/v1/batch/scrape', { urls: [site.url('/a'), site.url('/b')], formats: ['markdown', 'screenshot'] });
  Object.assign(ids, { scrape: scrape.body.id, crawl: crawl.body.id, batch: batch.body.id });
  assert.equal((await system.poll(`/api/v1/scrape/${ids.scrape}`, done, 90_000)).status, 'COMPLETED');
  assert.equal((await system.poll(`/api/v1/crawl/${ids.crawl}`, done, 90_000)).status, 'COMPLETED');
  assert.equal((await system.poll(`/api/v1/batch/scrape/${ids.batch}`, done, 90_000)).status, 'COMPLETED');
});

after(async () => {
  await system?.stop();
  await site?.close();
});

describe('tenant isolation', () => {
  test("key A reads its own jobs on every path (the paths below are real)", async () => {
    for (const path of [`/api/v1/scrape/${ids.scrape}`, `/api/v1/scrape/${ids.scrape}/screenshot`, `/api/v1/scrape/${ids.scrape}/screenshots/0`,
      `/api/v1/scrape/${ids.scrape}/events`, `/api/v1/crawl/${ids.crawl}`, `/api/v1/crawl/${ids.crawl}/events`,
      `/api/v1/batch/scrape/${ids.batch}`, `/api/v1/batch/scrape/${ids.batch}/events`, `/api/v1/batch/scrape/${ids.batch}/pages/0/screenshot`]) {
      assert.equal((await system.api('GET', path)).status, 200, path);
    }
  });

  test("key B gets 404 for every one of key A's read paths, and cannot cancel A's jobs", async () => {
    for (const path of [`/api/v1/scrape/${ids.scrape}`, `/api/v1/scrape/${ids.scrape}/screenshot`, `/api/v1/scrape/${ids.scrape}/screenshots/0`,
      `/api/v1/scrape/${ids.scrape}/events`, `/api/v1/crawl/${ids.crawl}`, `/api/v1/crawl/${ids.crawl}/events`,
      `/api/v1/batch/scrape/${ids.batch}`, `/api/v1/batch/scrape/${ids.batch}/events`, `/api/v1/batch/scrape/${ids.batch}/pages/0/screenshot`,
      `/api/v1/batch/scrape/${ids.batch}/pages/1/screenshot`]) {
      const res = await system.api('GET', path, undefined, asB);
      assert.equal(res.status, 404, `${path}: ${res.status}`);
      assert.equal(res.body.code, 'NOT_FOUND');
    }
    for (const path of [`/api/v1/crawl/${ids.crawl}`, `/api/v1/batch/scrape/${ids.batch}`]) {
      assert.equal((await system.api('DELETE', path, undefined, asB)).status, 404, path);
    }
  });

  test("key B's lists do not show key A's jobs", async () => {
    for (const path of ['/api/v1/scrape', '/api/v1/crawl', '/api/v1/batch/scrape']) {
      const res = await system.api('GET', `${path}?limit=100`, undefined, asB);
      assert.equal(res.status, 200, path);
      assert.deepEqual(res.body, [], path);
    }
  });

  test('wildcards and subject syntax in an events id are 404 at once and never show anyone\'s events', async () => {
    // Key B has a job of its own, so a widened filter would have something of B's to match too.
    await system.api('POST', '/api/v1/scrape', { url: site.url('/b') }, asB);
    const hostile = ['*', '%2A', '*.*', '%2A.%2A', '>', '%3E', '%20', '..', '..%2F..%2Fhealthz', '%0d%0aX:%201', 'a.b', 'a%2Eb',
      `${ids.batch}.*`, `${ids.batch}.>`, `${ids.batch}%2E%3E`, `*.${ids.batch}`];
    for (const kind of ['scrape', 'crawl', 'batch/scrape', 'map']) {
      for (const id of hostile) {
        for (const key of [undefined, asB]) {
          const res = await system.api('GET', `/api/v1/${kind}/${id}/events?limit=1000`, undefined, key);
          assert.equal(res.status, 404, `${kind}/${id}/events: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
          assert.doesNotMatch(JSON.stringify(res.body), /Alpha|Bravo|page_fetched/);
        }
      }
    }
  });

  test('a burst of hostile ids does not make good requests fail', async () => {
    const burst = Array.from({ length: 300 }, (_, i) => system.api('GET', `/api/v1/batch/scrape/${['*', '%3E', 'a.b', '%20'][i % 4]}/events`));
    const good = await system.api('POST', '/api/v1/scrape', { url: site.url('/b?after-burst') });
    const answers = await Promise.all(burst);
    assert.ok(answers.every((a) => a.status === 404));
    assert.equal(good.status, 202, JSON.stringify(good.body));
    const job = await system.poll(`/api/v1/scrape/${good.body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED', 90_000);
    assert.equal(job.status, 'COMPLETED');
  });
});
