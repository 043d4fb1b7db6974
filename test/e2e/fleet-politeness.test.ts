// Fleet politeness through the whole system: a crawled host that answers 429 with
// Retry-After slows the crawl's next pages until then, the crawl's status says so and why
// while it lasts, and the crawl still completes.
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
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/'), limit: PAGES });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const id = created.body.id as string;
    let slowed: any;
    let final: any;
    for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
      const res = await system.api('GET', `/api/v1/crawl/${id}`);
      slowed ??= res.body.slowed;
      if (['COMPLETED', 'FAILED', 'CANCELLED'].includes(res.body.status)) { final = res.body; break; }
      await new Promise((r) => setTimeout(r, 150));
    }
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
