// Fleet politeness through the whole system: a crawled host that answers 429 with
// Retry-After slows the crawl's next pages until then, the crawl's status says so and why
// while it lasts, and the crawl still completes. A host whose robots.txt gives a
// Crawl-delay has its pages started that far apart by two fetcher processes together.
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

const PAGES = 12;
const RETRY_AFTER_S = 4;

describe('fleet politeness end to end', { timeout: 180_000 }, () => {
  let system: TrawlSystem;
  let site: TestSite;
  const startedAt = new Map<string, number>();
  let refusedAt = 0;

  before(async () => {
    const page = (links: string[]): string => `<html><body><main><h1>Page</h1><p>${'Some words on the page. '.repeat(20)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
    site = await startSite({ '/': page(Array.from({ length: PAGES - 1 }, (_, i) => `/p/${i}`)) });
    for (let i = 0; i < PAGES - 1; i++) {
      site.route(`/p/${i}`, (req: http.IncomingMessage, res: http.ServerResponse) => {
        startedAt.set(req.url!, Date.now());
        if (i === 0 && refusedAt === 0) {
          refusedAt = Date.now();
          res.writeHead(429, { 'retry-after': String(RETRY_AFTER_S), 'content-type': 'text/html' }).end('<html><body><h1>Too many requests</h1></body></html>');
          return;
        }
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page([])), 150);
      });
    }
    system = await startSystem({ env: { CRAWL_ENGINE: 'http', CRAWL_MAX_IN_FLIGHT: '2' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  test('a 429 with Retry-After holds the host\'s next pages back, and the status says why while it lasts', async () => {
    const { slowed, final } = await crawlWatchingSlowed(system, site.url('/'), PAGES);
    assert.equal(final?.status, 'COMPLETED', JSON.stringify(final).slice(0, 500));
    assert.ok(slowed, 'the status said the host was slowed');
    assert.equal(slowed.host, new URL(site.origin).host);
    assert.match(slowed.reason, new RegExp(`HTTP 429 with Retry-After ${RETRY_AFTER_S} s`));
    assert.equal(final.slowed, undefined, 'a finished crawl is not slowed');
    // No page of the host started within the Retry-After, but those already loading.
    const early = [...startedAt].filter(([, at]) => at > refusedAt + 50 && at < refusedAt + RETRY_AFTER_S * 1000 - 100);
    assert.deepEqual(early, [], 'pages started during the Retry-After');
  });
});

const DELAY_PAGES = 7;
const CRAWL_DELAY_S = 1;

describe('robots.txt Crawl-delay across two fetcher processes', { timeout: 180_000 }, () => {
  let system: TrawlSystem;
  let site: TestSite;
  const starts: number[] = [];

  before(async () => {
    const page = (links: string[]): string => `<html><body><main><h1>Page</h1><p>${'Some words on the page. '.repeat(20)}</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
    site = await startSite({
      '/robots.txt': { body: `User-agent: *\nCrawl-delay: ${CRAWL_DELAY_S}\nAllow: /\n`, contentType: 'text/plain' },
      '/': page(Array.from({ length: DELAY_PAGES - 1 }, (_, i) => `/p/${i}`)),
    });
    for (let i = 0; i < DELAY_PAGES - 1; i++) {
      site.route(`/p/${i}`, (_req: http.IncomingMessage, res: http.ServerResponse) => {
        starts.push(Date.now());
        setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(page([])), 50);
      });
    }
    // Two fetcher processes of two pages each: without the delay, four pages of the host
    // would start at once. One copy of each stream: nats-server 2.9.10 (Debian's) does not
    // serialize compare-and-set writes of a replicated stream (nats-io/nats-server#4320),
    // so two fetchers could both take the same start; docs/deploy.md names the version.
    system = await startSystem({
      args: ['--cluster', '--replicas', '1', '--scale', 'fetcher=2'],
      env: { CRAWL_ENGINE: 'http', CRAWL_MAX_IN_FLIGHT: '4', FETCHER_CONCURRENCY: '2', NATS_REPLICAS: '1' },
    });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  test('pages of the host start a Crawl-delay apart, and the status says why', async () => {
    const { slowed, final } = await crawlWatchingSlowed(system, site.url('/'), DELAY_PAGES);
    assert.equal(final?.status, 'COMPLETED', JSON.stringify(final).slice(0, 500));
    assert.equal(final.completedUrls, DELAY_PAGES);
    assert.equal(starts.length, DELAY_PAGES - 1);
    // Spaced by the fleet's pace; the site sees each start a little after its grant, so a
    // gap may look shorter by that jitter (without the delay the gaps are a few ms).
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    assert.ok(gaps.every((gap) => gap >= CRAWL_DELAY_S * 1000 - 250), `pages started closer than the Crawl-delay: ${gaps.join(', ')} ms`);
    assert.ok(slowed, 'the status said the host was slowed');
    assert.match(slowed.reason, /robots\.txt Crawl-delay: one page every 1 s/);
  });
});

/** Crawls `url` to its end, looking at its status every 150 ms; the first `slowed` seen and the final status. */
async function crawlWatchingSlowed(system: TrawlSystem, url: string, limit: number): Promise<{ slowed: any; final: any }> {
  const created = await system.api('POST', '/api/v1/crawl', { url, limit });
  assert.equal(created.status, 202, JSON.stringify(created.body));
  let slowed: any;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    const res = await system.api('GET', `/api/v1/crawl/${created.body.id}`);
    slowed ??= res.body.slowed;
    if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(res.body.status)) return { slowed, final: res.body };
    await new Promise((r) => setTimeout(r, 150));
  }
  return { slowed, final: undefined };
}
