// Change tracking end to end (issue 13 item 3): scrapes of a page the test server changes
// between them, keys kept apart, cache hits that are no observation, and a crawl run twice
// over a small site with one page changed in between, then a batch over the same pages.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { scrapeToEnd, trackedCrawlByPath } from '../support/scrape-job.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

function article(title: string, sentences: string[], links: string[] = []): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<main><article><h1>${title}</h1>
${sentences.map((s) => `<p>${s} This sentence is here so that the paragraph is long enough to be kept as content by the extractor.</p>`).join('\n')}
${links.length ? `<ul>${links.map((l) => `<li><a href="${l}">Read about ${l}</a> in our documentation, which explains it in detail.</li>`).join('')}</ul>` : ''}
</article></main></body></html>`;
}

const PRICING_V1 = article('Pricing', ['The starter plan costs 9 euros per month.', 'The pro plan costs 29 euros per month.', 'Every plan includes support.']);
const PRICING_V2 = article('Pricing', ['The starter plan costs 12 euros per month.', 'The pro plan costs 29 euros per month.', 'Every plan includes support.']);

/** The page the killed fetcher held comes back after its ack wait: 5 s, not the default 15 s. */
const ENV = { FETCHER_ACK_WAIT_MS: '5000' };

describe('change tracking end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let third: any;

  before(async () => {
    site = await startSite({
      '/pricing': PRICING_V1,
      '/shared-url': PRICING_V1,
      '/cached': PRICING_V1,
      '/docs': article('Docs', ['Welcome to the documentation of the product.'], ['/docs/install', '/docs/usage']),
      '/docs/install': article('Install', ['Install the package with npm.']),
      '/docs/usage': article('Usage', ['Call the scrape endpoint with a URL.']),
      '/slow': { body: PRICING_V1, delayMs: 4000 },
    });
    system = await startSystem({ env: ENV });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  const scrape = (url: string, formats: string[], key?: string, extra: Record<string, unknown> = {}): Promise<any> =>
    scrapeToEnd(system, { url, formats, ...extra }, key);

  test('new, then same, then changed with a unified diff of the markdown, then removed when the page answers 404', async () => {
    const url = site.url('/pricing');
    const first = await scrape(url, ['markdown', 'changeTracking']);
    assert.equal(first.status, 'COMPLETED', JSON.stringify(first.error));
    assert.deepEqual(first.changeTracking, { observed: true, changeStatus: 'new', previousScrapeAt: null, statusCode: 200 });

    const second = await scrape(url, ['markdown', 'changeTracking']);
    assert.equal(site.hits.get('/pricing'), 2, 'a tracked scrape is a fresh load, never the cache');
    assert.equal(second.changeTracking.changeStatus, 'same');
    assert.equal(second.changeTracking.previousScrapeAt, first.completedAt);
    assert.equal(second.changeTracking.previousJobId, first.id);
    assert.equal(second.changeTracking.previousJobKind, 'scrape');
    assert.equal(second.changeTracking.diff, undefined);
    assert.equal(second.changeTracking.optionsChanged, false);

    site.route('/pricing', PRICING_V2);
    third = await scrape(url, ['changeTracking']);
    assert.equal(third.markdown, undefined, 'changeTracking compares the markdown but returns it only when asked');
    assert.equal(third.changeTracking.changeStatus, 'changed');
    assert.equal(third.changeTracking.previousJobId, second.id);
    const diff: string = third.changeTracking.diff;
    assert.match(diff, /^--- previous\t/m);
    assert.match(diff, /^\+\+\+ current\t/m);
    assert.match(diff, /^-The starter plan costs 9 euros per month\./m);
    assert.match(diff, /^\+The starter plan costs 12 euros per month\./m);
    assert.match(diff, /^ The pro plan costs 29 euros per month\./m, 'context lines around the change');
    assert.doesNotMatch(diff, /^[-+].*pro plan/m, 'unchanged lines are not reported as changed');

    site.route('/pricing', { status: 404, body: '<html><body><h1>Not found</h1><p>This page is gone.</p></body></html>' });
    const fourth = await scrape(url, ['markdown', 'changeTracking']);
    assert.equal(fourth.status, 'COMPLETED');
    assert.equal(fourth.changeTracking.changeStatus, 'removed');
    assert.equal(fourth.changeTracking.statusCode, 404);
    assert.equal(fourth.changeTracking.previousJobId, third.id);

    // Audit replay: page_completed names the observation it made.
    const history = await system.api('GET', `/api/v1/scrape/${third.id}/events`);
    const completed = history.body.events.find((e: any) => e.event === 'page_completed');
    assert.ok(Number.isInteger(completed.data.observationSeq), JSON.stringify(completed.data));
    assert.equal(history.body.events.some((e: any) => e.event === 'url_observed'), false, 'observations are not the job\'s events');

    // The URL's history for the key, from the log, paged.
    const changes = await system.api('GET', `/api/v1/changes?url=${encodeURIComponent(url)}&limit=3`);
    assert.equal(changes.status, 200, JSON.stringify(changes.body));
    assert.deepEqual(changes.body.observations.map((o: any) => [o.changeStatus, o.jobId, o.jobKind]),
      [['new', first.id, 'scrape'], ['same', second.id, 'scrape'], ['changed', third.id, 'scrape']]);
    assert.equal(changes.body.observations[2].observedAt, third.completedAt);
    const rest = await fetch(changes.body.next, { headers: { authorization: `Bearer ${system.apiKey}` } }).then((r) => r.json());
    assert.deepEqual(rest.observations.map((o: any) => [o.changeStatus, o.statusCode]), [['removed', 404]]);
    const foreign = await system.api('GET', `/api/v1/changes?url=${encodeURIComponent(url)}`, undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.deepEqual(foreign.body.observations, [], 'another key sees none of them');
    const bad = await system.api('GET', '/api/v1/changes?url=not%20a%20url');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_URL');
    const missing = await system.api('GET', '/api/v1/changes');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'VALIDATION_ERROR');
  });

  test('two keys tracking one URL are independent', async () => {
    const url = site.url('/shared-url');
    const mine = await scrape(url, ['markdown', 'changeTracking']);
    assert.equal(mine.changeTracking.changeStatus, 'new');
    const theirs = await scrape(url, ['markdown', 'changeTracking'], OTHER_API_KEY);
    assert.equal(theirs.status, 'COMPLETED');
    assert.equal(theirs.changeTracking.changeStatus, 'new', 'the other key has never seen it');
    assert.equal(theirs.changeTracking.previousScrapeAt, null);
    const mineAgain = await scrape(url, ['markdown', 'changeTracking']);
    assert.equal(mineAgain.changeTracking.changeStatus, 'same');
    assert.equal(mineAgain.changeTracking.previousJobId, mine.id, 'the other key\'s scrape is not this key\'s observation');
    // A tag is a history of its own, beside the URL's.
    const tagged = await scrape(url, ['changeTracking'], undefined, { changeTrackingOptions: { tag: 'weekly monitor' } });
    assert.equal(tagged.changeTracking.changeStatus, 'new');
    const taggedAgain = await scrape(url, ['changeTracking'], undefined, { changeTrackingOptions: { tag: 'weekly monitor' } });
    assert.equal(taggedAgain.changeTracking.previousJobId, tagged.id);
  });

  test('a cache hit is no observation: the next tracked scrape compares with the scrape that loaded the page', async () => {
    const url = site.url('/cached');
    const loaded = await scrape(url, ['markdown']);
    assert.equal(loaded.changeTracking, undefined, 'no report without the format');
    const hit = await system.api('POST', '/api/v1/scrape', { url, formats: ['markdown'] });
    assert.equal(hit.status, 200);
    assert.equal(hit.body.fromCache, true);

    site.route('/cached', PRICING_V2);
    const tracked = await scrape(url, ['markdown', 'changeTracking']);
    assert.equal(tracked.changeTracking.changeStatus, 'changed', 'compared with the page as loaded, not with a cache hit');
    assert.equal(tracked.changeTracking.previousJobId, loaded.id);
    assert.equal(tracked.changeTracking.previousScrapeAt, loaded.completedAt);
    assert.equal(tracked.changeTracking.optionsChanged, false, 'formats are not content options');
    assert.match(tracked.changeTracking.diff, /^\+The starter plan costs 12 euros/m);
  });

  test('a crawl run twice reports each page as same or changed; a batch over its pages continues the same history', async () => {
    const crawl = (): Promise<Map<string, any>> => trackedCrawlByPath(system, site.url('/docs'));
    const first = await crawl();
    assert.deepEqual([...first.keys()].sort(), ['/docs', '/docs/install', '/docs/usage']);
    for (const [path, page] of first) assert.equal(page.changeTracking.changeStatus, 'new', path);

    site.route('/docs/usage', article('Usage', ['Call the scrape endpoint with a URL and a list of formats.']));
    const second = await crawl();
    assert.equal(second.get('/docs')!.changeTracking.changeStatus, 'same');
    assert.equal(second.get('/docs/install')!.changeTracking.changeStatus, 'same');
    const usage = second.get('/docs/usage')!.changeTracking;
    assert.equal(usage.changeStatus, 'changed');
    assert.equal(usage.previousJobKind, 'crawl');
    assert.match(usage.diff, /^-Call the scrape endpoint with a URL\. /m);
    assert.match(usage.diff, /^\+Call the scrape endpoint with a URL and a list of formats\./m);

    const created = await system.api('POST', '/api/v1/batch/scrape', { urls: [site.url('/docs/install'), site.url('/docs/usage')], formats: ['changeTracking'] });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const batch = await system.poll(`/api/v1/batch/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status), 60_000);
    assert.equal(batch.status, 'COMPLETED');
    for (const page of batch.data) {
      assert.equal(page.changeTracking.changeStatus, 'same', page.url);
      assert.equal(page.changeTracking.previousJobKind, 'crawl');
      assert.equal(page.markdown, undefined);
    }
  });

  test('killed while a tracked page loads, restarted with the read models deleted: one observation, the same reports', async () => {
    const url = site.url('/slow');
    const before = await scrape(url, ['markdown']);
    const created = await system.api('POST', '/api/v1/scrape', { url, formats: ['changeTracking'] });
    await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => b.status === 'PROCESSING', 30_000, { stepMs: 250 });
    await system.kill();
    // The read models are rebuilt from the log, observations included.
    for (const f of fs.readdirSync(system.dataDir)) if (f.startsWith('read-models.sqlite')) fs.rmSync(path.join(system.dataDir, f));
    system = await startSystem({ dataDir: system.dataDir, port: system.port, env: ENV });
    const job = await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    assert.equal(job.changeTracking.changeStatus, 'same');
    assert.equal(job.changeTracking.previousJobId, before.id);
    const history = await system.api('GET', `/api/v1/changes?url=${encodeURIComponent(url)}`);
    assert.deepEqual(history.body.observations.map((o: any) => o.jobId), [before.id, created.body.id], 'observed once');
    const rebuilt = await system.api('GET', `/api/v1/scrape/${third.id}`);
    assert.deepEqual(rebuilt.body.changeTracking, third.changeTracking, 'the rebuilt read model holds the same report');
  });
});
