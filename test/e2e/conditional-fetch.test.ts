// Conditional fetches end to end (issue 27 item 1): pages whose server gives ETag or
// Last-Modified are asked for again with If-None-Match / If-Modified-Since; a 304 is
// completed from the key's stored observation (no body came, so no transform and no
// render), marked notModified; `conditional: false` turns it off; a changed page is a full
// load with its diff. The test server counts requests and answers 304 itself.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { scrapeToEnd, trackedCrawlByPath } from '../support/scrape-job.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

function article(title: string, sentences: string[], links: string[] = []): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<main><article><h1>${title}</h1>
${sentences.map((s) => `<p>${s} This sentence is here so that the paragraph is long enough to be kept as content by the extractor.</p>`).join('\n')}
${links.length ? `<ul>${links.map((l) => `<li><a href="${l}">Read about ${l}</a> in our documentation, which explains it in detail.</li>`).join('')}</ul>` : ''}
</article></main></body></html>`;
}

/** A page with validators; `lie` keeps answering 304 to the old validator after the body changed (proves the stored content is served). */
interface Versioned { body: string; etag?: string; lastModified?: string; lie?: boolean }

describe('conditional fetches end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  const pages = new Map<string, Versioned>();
  const answers: { path: string; status: number; ifNoneMatch?: string; ifModifiedSince?: string }[] = [];

  const serve = (path: string) => (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const page = pages.get(path)!;
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const matches = (page.etag !== undefined && inm === page.etag) || (page.etag === undefined && page.lastModified !== undefined && ims === page.lastModified);
    const status = matches || (page.lie && (inm || ims)) ? 304 : 200;
    answers.push({ path, status, ...(typeof inm === 'string' ? { ifNoneMatch: inm } : {}), ...(typeof ims === 'string' ? { ifModifiedSince: ims } : {}) });
    const validators = { ...(page.etag ? { etag: page.etag } : {}), ...(page.lastModified ? { 'last-modified': page.lastModified } : {}) };
    if (status === 304) res.writeHead(304, validators).end();
    else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...validators }).end(page.body);
  };
  const put = (path: string, page: Versioned): void => {
    pages.set(path, page);
    site.route(path, serve(path));
  };
  const answersFor = (path: string) => answers.filter((a) => a.path === path);

  before(async () => {
    site = await startSite();
    put('/pricing', { body: article('Pricing', ['The starter plan costs 9 euros per month.', 'The pro plan costs 29 euros.']), etag: '"p1"' });
    put('/dated', { body: article('Dated', ['This page says when it last changed, and nothing else.']), lastModified: 'Wed, 01 Jan 2025 00:00:00 GMT' });
    put('/site', { body: article('Site', ['The home page of a small site.'], ['/site/a', '/site/b']), etag: '"s1"' });
    put('/site/a', { body: article('Page A', ['The first page of the small site.']), etag: '"a1"' });
    put('/site/b', { body: article('Page B', ['The second page of the small site.']), etag: '"b1"' });
    // One agreeing verification makes the test host static (HTTP) under auto; no drift checks.
    system = await startSystem({ env: { ENGINE_AUTO_AGREEMENTS: '1', ENGINE_AUTO_RECHECK_EVERY: '10000' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  const scrape = (url: string, extra: Record<string, unknown> = {}, key?: string): Promise<any> =>
    scrapeToEnd(system, { url, formats: ['markdown', 'changeTracking'], engine: 'http', ...extra }, key);

  test('ETag: the second fetch is conditional, the 304 is the stored observation marked notModified; off per request; a change is a full load', async () => {
    const url = site.url('/pricing');
    const first = await scrape(url);
    assert.equal(first.status, 'COMPLETED', JSON.stringify(first.error));
    assert.equal(first.changeTracking.changeStatus, 'new');
    assert.equal(first.metadata.notModified, undefined);
    assert.deepEqual(answersFor('/pricing').map((a) => [a.status, a.ifNoneMatch]), [[200, undefined]]);

    // The server now sends another body but still says 304: what comes back is the stored page.
    put('/pricing', { ...pages.get('/pricing')!, body: article('Pricing', ['A body the server never sends with a 200.']), lie: true });
    const second = await scrape(url);
    assert.equal(second.status, 'COMPLETED', JSON.stringify(second.error));
    assert.deepEqual(answersFor('/pricing').map((a) => [a.status, a.ifNoneMatch]), [[200, undefined], [304, '"p1"']]);
    assert.equal(second.markdown, first.markdown, 'the stored observation\'s markdown');
    assert.equal(second.metadata.notModified, true);
    assert.equal(second.metadata.title, first.metadata.title);
    assert.equal(second.metadata.engine, 'http');
    assert.equal(second.timings.renderMs, 0);
    assert.equal(second.timings.transformMs, 0, 'no transform');
    assert.equal(second.changeTracking.changeStatus, 'same');
    assert.equal(second.changeTracking.notModified, true);
    assert.equal(second.changeTracking.previousJobId, first.id);

    // The chain goes on from the 304's own observation.
    const third = await scrape(url, { formats: ['changeTracking'] });
    assert.equal(third.changeTracking.previousJobId, second.id);
    assert.equal(third.changeTracking.notModified, true);
    assert.equal(third.markdown, undefined, 'only the formats asked');

    // No copy: each 304's page_completed names the first page's stored result (the third's
    // through the second's), with the formats asked of it and its own change report.
    const completedOf = async (id: string): Promise<any> =>
      (await system.api('GET', `/api/v1/scrape/${id}/events`)).body.events.find((e: any) => e.event === 'page_completed').data;
    const [made, reused, reusedAgain] = [await completedOf(first.id), await completedOf(second.id), await completedOf(third.id)];
    assert.equal(made.reusedResult, undefined, 'the first load stored its result');
    assert.equal(reused.reusedResult?.storedAt, made.completedAt, JSON.stringify(reused));
    assert.deepEqual(reused.reusedResult.formats, ['markdown']);
    assert.equal(reused.reusedResult.changeTracking.changeStatus, 'same');
    assert.equal(reusedAgain.reusedResult?.storedAt, made.completedAt, 'a chain of 304s still names the first result');
    assert.deepEqual(reusedAgain.reusedResult.formats, []);
    assert.equal(reusedAgain.result.size, made.result.size);

    // Off per request: a full load without validators, which sees what the server really sends now.
    const full = await scrape(url, { conditional: false });
    const last = answersFor('/pricing').at(-1)!;
    assert.deepEqual([last.status, last.ifNoneMatch], [200, undefined]);
    assert.equal(full.metadata.notModified, undefined);
    assert.equal(full.changeTracking.changeStatus, 'changed');
    assert.match(full.changeTracking.diff, /^\+A body the server never sends with a 200\./m);

    // A real change: a new ETag, a 200 with the new page and its diff.
    put('/pricing', { body: article('Pricing', ['The starter plan costs 12 euros per month.', 'The pro plan costs 29 euros.']), etag: '"p2"' });
    const changed = await scrape(url);
    assert.deepEqual(answersFor('/pricing').slice(-1).map((a) => [a.status, a.ifNoneMatch]), [[200, '"p1"']],
      'the stored validator no longer matches: the server sends the page');
    assert.equal(changed.changeTracking.changeStatus, 'changed');
    assert.match(changed.changeTracking.diff, /^\+The starter plan costs 12 euros per month\./m);

    // Another key has its own observations: its first fetch is never conditional.
    const theirs = await scrape(url, {}, OTHER_API_KEY);
    assert.equal(theirs.status, 'COMPLETED');
    assert.equal(answersFor('/pricing').at(-1)!.ifNoneMatch, undefined);
    assert.equal(theirs.changeTracking.changeStatus, 'new');
  });

  test('Last-Modified alone: If-Modified-Since; other options are a full load', async () => {
    const url = site.url('/dated');
    const first = await scrape(url);
    assert.equal(first.status, 'COMPLETED', JSON.stringify(first.error));
    const second = await scrape(url);
    assert.deepEqual(answersFor('/dated').map((a) => [a.status, a.ifModifiedSince]),
      [[200, undefined], [304, 'Wed, 01 Jan 2025 00:00:00 GMT']]);
    assert.equal(second.metadata.notModified, true);
    assert.equal(second.markdown, first.markdown);
    // Options that shape the content differently, or formats the stored result lacks: a full load.
    await scrape(url, { onlyMainContent: false });
    await scrape(url, { formats: ['markdown', 'html'] });
    assert.deepEqual(answersFor('/dated').slice(2).map((a) => [a.status, a.ifModifiedSince]), [[200, undefined], [200, undefined]]);
  });

  test('a crawl run again under auto: every page answers 304 and completes without a transform', async () => {
    const crawl = (): Promise<Map<string, any>> => trackedCrawlByPath(system, site.url('/site'));
    const first = await crawl();
    assert.deepEqual([...first.keys()].sort(), ['/site', '/site/a', '/site/b']);
    const before = answers.length;
    const second = await crawl();
    const again = answers.slice(before).filter((a) => pages.has(a.path) && a.path.startsWith('/site'));
    // The first crawl's pages may have been rendered to verify the new host (no validators
    // then); those served over HTTP carry validators and answer 304 now.
    const conditional = again.filter((a) => a.ifNoneMatch);
    assert.ok(conditional.length >= 1, JSON.stringify(again));
    for (const a of conditional) assert.equal(a.status, 304);
    for (const [path, page] of second) {
      assert.equal(page.changeTracking.changeStatus, 'same', path);
      assert.equal(page.markdown, first.get(path)!.markdown, path);
      const asked = again.find((a) => a.path === path);
      if (asked?.ifNoneMatch) assert.equal(page.metadata.notModified, true, path);
    }
    // A third run: by now every page was last observed over HTTP or from a 304.
    const beforeThird = answers.length;
    const third = await crawl();
    const thirdAnswers = answers.slice(beforeThird).filter((a) => pages.has(a.path) && a.path.startsWith('/site'));
    assert.deepEqual(thirdAnswers.map((a) => a.status), thirdAnswers.map(() => 304), JSON.stringify(thirdAnswers));
    for (const [path, page] of third) {
      assert.equal(page.metadata.notModified, true, path);
      // Its content is the one stored by the first crawl (read from the second's page), its report its own.
      assert.equal(page.markdown, first.get(path)!.markdown, path);
      assert.equal(page.changeTracking.changeStatus, 'same', path);
      assert.notEqual(page.changeTracking.previousJobId, second.get(path)!.changeTracking.previousJobId, `${path}: compared with the second crawl, not a copy of its report`);
    }
  });
});
