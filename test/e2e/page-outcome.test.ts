// Page outcomes through the real service (docs/api.md "Page outcome"): pages from the
// hand-written corpus (test/fixtures/page-outcome) served by a local site with the status
// and headers their vendors send, scraped in Chromium. A Cloudflare-style challenge fails
// with PAGE_CHALLENGE and its evidence and is not charged to the quota; an article about
// CAPTCHAs completes `ok`; acceptOutcomes takes the challenge as content; a soft 404 in a
// crawl counts under failedUrls; the consent option's record (metadata.consent) says what it
// did to a Usercentrics v3 dialog with only "accept" and "settings", that a page had none, and
// that an accept-only banner could not be refused.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startSite, type Route, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { scrapeToEnd } from '../support/scrape-job.js';
import { loadCorpus, type CorpusPage } from '../support/outcome-corpus.js';
import { NO_DIALOG, ONETRUST_ACCEPT_ONLY, usercentricsV3Page } from '../support/consent-layers.js';

/** Serves a corpus page as its vendor does: its status and headers (Set-Cookie as several headers). */
function served(page: CorpusPage): Route {
  return (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.html);
  };
}

/** Pages behind the bot wall: more than a crawl can have asked for before its third verdict. */
const WALLED_PAGES = 16;
/** Unfinished pages of a crawl (2 × CRAWL_MAX_IN_FLIGHT 4), plus the 2 the first two refusals free. */
const MOST_ASKED = 10;

describe('page outcome end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  const corpus = loadCorpus();
  const page = (file: string): CorpusPage => corpus.find((p) => p.file === file)!;

  before(async () => {
    site = await startSite({
      '/challenge': served(page('challenge/cloudflare-just-a-moment.html')),
      '/captchas-article': served(page('ok/article-about-captchas.html')),
      '/crawl': `<html><head><title>Crawl start</title></head><body><main><h1>Crawl start</h1><p>${'A page with enough words to be an ordinary page. '.repeat(20)}</p>
        <a href="/crawl/article">article</a> <a href="/crawl/gone">gone</a></main></body></html>`,
      '/crawl/article': served(page('ok/cookie-recipe.html')),
      '/crawl/gone': served(page('soft-404/wordpress-oops.html')),
      '/consent-settings': usercentricsV3Page({ denyOnFirstLayer: false, preTicked: ['marketing'] }),
      '/consent-none': NO_DIALOG,
      '/consent-accept-only': ONETRUST_ACCEPT_ONLY,
      // A site whose every page but the first is a challenge.
      '/walled': `<html><head><title>Walled start</title></head><body><main><h1>Walled start</h1><p>${'An ordinary start page that links to pages behind a bot wall. '.repeat(20)}</p>
        ${Array.from({ length: WALLED_PAGES }, (_, i) => `<a href="/walled/${i}">page ${i}</a>`).join(' ')}</main></body></html>`,
    });
    for (let i = 0; i < WALLED_PAGES; i++) site.route(`/walled/${i}`, served(page('challenge/cloudflare-just-a-moment.html')));
    system = await startSystem();
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  const pagesUsed = async (): Promise<number> => {
    const key = await system.api('GET', '/api/v1/key');
    assert.equal(key.status, 200, JSON.stringify(key.body));
    return key.body.pagesUsed;
  };

  test('a Cloudflare challenge fails with PAGE_CHALLENGE and its evidence, and is not charged', async () => {
    const before = await pagesUsed();
    const job = await scrapeToEnd(system, { url: site.url('/challenge') });
    assert.equal(job.status, 'FAILED', JSON.stringify(job));
    assert.equal(job.error.code, 'PAGE_CHALLENGE');
    assert.equal(job.error.pageOutcome, 'challenge');
    assert.ok(job.error.evidence.includes('header cf-mitigated: challenge'), job.error.evidence.join(' · '));
    assert.ok(job.error.evidence.includes('status 403'), job.error.evidence.join(' · '));
    assert.match(job.error.message, /bot check/);
    assert.equal(job.markdown, undefined);
    assert.equal(await system.poll('/api/v1/key', (k: any) => k.pagesUsed === before && k.runningJobs === 0).then((k: any) => k.pagesUsed), before);
  });

  test('an article about CAPTCHAs completes ok', async () => {
    const job = await scrapeToEnd(system, { url: site.url('/captchas-article') });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.equal(job.metadata.pageOutcome, 'ok');
    assert.ok(job.metadata.pageOutcomeEvidence.includes('status 200'));
    assert.match(job.markdown, /history of the CAPTCHA|I'm not a robot/);
  });

  test('acceptOutcomes takes the challenge as content, with the outcome shown', async () => {
    const job = await scrapeToEnd(system, { url: site.url('/challenge'), acceptOutcomes: ['challenge'] });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.equal(job.metadata.pageOutcome, 'challenge');
    assert.ok(job.metadata.pageOutcomeEvidence.includes('header cf-mitigated: challenge'));
    assert.match(job.markdown, /review the security of your connection/);
  });

  test('consent: the settings layer is walked to reject, and the record is on the result and on page_fetched', async () => {
    const job = await scrapeToEnd(system, { url: site.url('/consent-settings'), consent: 'reject', formats: ['markdown', 'rawHtml'] });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    const record = { requested: 'reject', result: 'rejected', platform: 'usercentrics', via: 'settings' };
    assert.deepEqual(job.metadata.consent, record);
    assert.match(job.markdown, /Behind the wall/);
    assert.match(job.rawHtml, /data-consent="saved:essential"/);
    const events = await system.api('GET', `/api/v1/scrape/${job.id}/events?limit=100`);
    assert.deepEqual(events.body.events.find((e: any) => e.event === 'page_fetched')?.data.consent, record);

    const none = await scrapeToEnd(system, { url: site.url('/consent-none'), consent: 'reject' });
    assert.equal(none.status, 'COMPLETED', JSON.stringify(none.error));
    assert.deepEqual(none.metadata.consent, { requested: 'reject', result: 'none-found' });
    const without = await scrapeToEnd(system, { url: site.url('/consent-none') });
    assert.equal(without.metadata.consent, undefined);

    // A banner with nothing to reject with: captured as it is (a consent wall), and the record says why.
    const stuck = await scrapeToEnd(system, { url: site.url('/consent-accept-only'), consent: 'reject' });
    assert.equal(stuck.status, 'COMPLETED', JSON.stringify(stuck.error));
    assert.equal(stuck.metadata.pageOutcome, 'consent-wall');
    assert.deepEqual({ result: stuck.metadata.consent?.result, platform: stuck.metadata.consent?.platform }, { result: 'not-possible', platform: 'onetrust' });
    assert.match(stuck.metadata.consent?.reason ?? '', /no reject button/);
  });

  test('acceptOutcomes is validated: an unknown outcome is a 400 problem', async () => {
    const res = await system.api('POST', '/api/v1/scrape', { url: site.url('/challenge'), acceptOutcomes: ['captcha'] });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.code, 'VALIDATION_ERROR');
    assert.match(JSON.stringify(res.body), /acceptOutcomes/);
  });

  test('a soft 404 in a crawl counts under failedUrls, like HTTP 404', async () => {
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/crawl'), maxDepth: 1 });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(b.status), 120_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    assert.deepEqual([job.totalUrls, job.completedUrls, job.failedUrls], [3, 2, 1]);
    const gone = job.data.find((p: any) => p.url === site.url('/crawl/gone'));
    assert.equal(gone?.metadata?.pageOutcome, 'soft-404', JSON.stringify(job.data.map((p: any) => [p.url, p.metadata?.pageOutcome])));
  });

  test('a host answering challenges: the crawl stops asking it after 3 in a row and says so', async () => {
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/walled'), maxDepth: 1 });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => ['COMPLETED', 'FAILED', 'CANCELLED'].includes(b.status), 120_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    // Blocked once 3 refusals in a row are folded in. A crawl keeps up to twice
    // CRAWL_MAX_IN_FLIGHT pages unfinished (loading, or fetched and waiting for the
    // transformer's verdict), so up to 8 may be asked before the first verdict, and the pages
    // answering in the batch that holds the third refusal count too.
    assert.deepEqual(job.blockedHosts?.map((b: any) => b.host), [new URL(site.origin).host], JSON.stringify(job));
    const refusals = job.blockedHosts[0].refusals as number;
    assert.ok(refusals >= 3 && refusals <= MOST_ASKED, `refusals ${refusals}: ${JSON.stringify(job)}`);
    assert.deepEqual([job.totalUrls, job.completedUrls, job.failedUrls], [WALLED_PAGES + 1, 1, WALLED_PAGES]);
    // Pages queued when the host was blocked were never asked for: at most the 8 unfinished
    // pages and the 2 that the first two verdicts made room for.
    // (Distinct pages: under the crawl's default engine auto a page may be loaded twice, GET and render.)
    const asked = Array.from({ length: WALLED_PAGES }, (_, i) => site.hits.get(`/walled/${i}`) ?? 0).filter((n) => n > 0).length;
    assert.ok(asked <= MOST_ASKED, `asked for ${asked} of the ${WALLED_PAGES} walled pages`);
  });
});
