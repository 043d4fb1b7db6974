// Recrawl end to end (issue 27 item 2): a finished crawl run again with POST
// /crawl/:id/recrawl; its report says per page new, same, changed or removed (no longer
// linked), unchanged pages come back as 304s from a server that counts its requests (completed
// in the fetcher: the log has no page_fetched for them), and bad requests are RFC 7807 problems.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { connect } from 'nats';
import type { StoredEvent } from '../../shared/src/domain/events/index.js';
import { EventLog } from '../../shared/src/infra/nats/event-log.js';
import { startSite, type TestSite } from '../support/site.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

function article(title: string, sentence: string, links: string[] = []): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<main><article><h1>${title}</h1>
<p>${sentence} This sentence is here so that the paragraph is long enough to be kept as content by the extractor.</p>
${links.length ? `<ul>${links.map((l) => `<li><a href="${l}">Read about ${l}</a> in our documentation, which explains it in detail.</li>`).join('')}</ul>` : ''}
</article></main></body></html>`;
}

describe('recrawl end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  const pages = new Map<string, { body: string; etag: string }>();
  const answers: { path: string; status: number }[] = [];
  /** The crawl ids of the first test: the crawl, its recrawl, and the all-304 recrawl of that. */
  let unchanged: { first: string; second: string; third: string } | undefined;

  const put = (path: string, body: string): void => {
    const version = (Number(pages.get(path)?.etag.slice(2, -1) ?? 0) + 1);
    pages.set(path, { body, etag: `"v${version}"` });
    site.route(path, (req: http.IncomingMessage, res: http.ServerResponse) => {
      const page = pages.get(path)!;
      const status = req.headers['if-none-match'] === page.etag ? 304 : 200;
      answers.push({ path, status });
      if (status === 304) res.writeHead(304, { etag: page.etag }).end();
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: page.etag }).end(page.body);
    });
  };

  before(async () => {
    site = await startSite();
    put('/r', article('Home', 'The home page.', ['/r/a', '/r/b', '/r/c']));
    put('/r/a', article('A', 'Page A never changes.'));
    put('/r/b', article('B', 'Page B says one thing.'));
    put('/r/c', article('C', 'Page C will lose its link.'));
    put('/r/d', article('D', 'Page D is linked later.'));
    // One agreeing verification makes the test host static (HTTP) under auto; no drift checks.
    system = await startSystem({ env: { ENGINE_AUTO_AGREEMENTS: '1', ENGINE_AUTO_RECHECK_EVERY: '10000' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  const finished = (id: string): Promise<any> => system.poll(`/api/v1/crawl/${id}`, (b: any) => FINAL.has(b.status), 120_000);
  async function recrawl(id: string, body: unknown = {}): Promise<{ id: string; report: any }> {
    const created = await system.api('POST', `/api/v1/crawl/${id}/recrawl`, body);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.equal(created.body.recrawlOf, id);
    const job = await finished(created.body.id);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    const report = await system.api('GET', `/api/v1/crawl/${created.body.id}/recrawl`);
    assert.equal(report.status, 200, JSON.stringify(report.body));
    return { id: created.body.id, report: report.body };
  }
  /** A crawl's events, read from the system's nats-server (its URL from the supervisor's banner). */
  async function crawlEvents(id: string): Promise<StoredEvent[]> {
    const url = /nats-server with JetStream at (\S+)/.exec(system.logs())?.[1];
    assert.ok(url, 'the nats-server URL in the banner');
    const nc = await connect({ servers: url });
    try {
      return await new EventLog(nc.jetstream(), await nc.jetstreamManager()).history('crawl', id);
    } finally {
      await nc.close();
    }
  }
  const statuses = (report: any): Record<string, string> =>
    Object.fromEntries(report.pages.map((p: any) => [new URL(p.url).pathname, p.reason ? `${p.status}:${p.reason}` : p.status]));

  test('new, same, changed and removed against the crawl it repeats; an unchanged recrawl is all 304s', async () => {
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/r'), limit: 10 });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const first = await finished(created.body.id);
    assert.equal(first.status, 'COMPLETED');
    assert.equal(first.data.length, 4);
    assert.equal(first.data[0].changeTracking, undefined, 'the first crawl did not ask for change tracking');

    put('/r', article('Home', 'The home page.', ['/r/a', '/r/b', '/r/d']));
    put('/r/b', article('B', 'Page B now says another thing.'));
    const second = await recrawl(created.body.id);
    assert.deepEqual(statuses(second.report), { '/r': 'changed', '/r/a': 'same', '/r/b': 'changed', '/r/d': 'new', '/r/c': 'removed:not-linked' });
    assert.equal(second.report.complete, true);
    assert.deepEqual(second.report.counts, { new: 1, same: 1, changed: 2, removed: 1, unchanged: 0, failed: 0 });
    // The pages loaded again (changed: the conditional GET got a 200; new) announced their start; the 304 did not.
    const secondEvents = await crawlEvents(second.id);
    const pathOf = new Map(secondEvents.flatMap((e) => (e.event === 'page_requested' ? [[e.part, new URL(e.data.url).pathname] as const] : [])));
    assert.deepEqual(secondEvents.filter((e) => e.event === 'page_started').map((e) => pathOf.get(e.part)).sort(), ['/r', '/r/b', '/r/d']);
    const secondJob = await finished(second.id);
    const b = secondJob.data.find((p: any) => p.url.endsWith('/r/b'));
    assert.match(b.changeTracking.diff, /^\+Page B now says another thing\./m, 'each page carries its diff');

    // Nothing changed since: a recrawl of the recrawl is every page the same, each a 304.
    const before = answers.length;
    const third = await recrawl(second.id);
    assert.deepEqual(statuses(third.report), { '/r': 'same', '/r/a': 'same', '/r/b': 'same', '/r/d': 'same' });
    const asked = answers.slice(before).filter((a) => pages.has(a.path));
    assert.deepEqual(asked.map((a) => a.status), asked.map(() => 304), JSON.stringify(asked));
    for (const page of third.report.pages) assert.equal(page.notModified, true, page.url);
    // Completed in the fetcher: no page_fetched, so the transformer's consumer got none of them.
    const events = await crawlEvents(third.id);
    assert.equal(events.filter((e) => e.event === 'page_completed').length, 4);
    assert.deepEqual(events.filter((e) => e.event === 'page_fetched').map((e) => e.part), [], 'no page of an unchanged recrawl goes to the transformer');
    assert.deepEqual(events.filter((e) => e.event === 'page_started').map((e) => e.part), [], 'nor announces its start');
    unchanged = { first: created.body.id, second: second.id, third: third.id };
  });

  test('an unchanged page\'s read model points at the page holding its content, answers with the full content, and is rebuilt so from the log', async () => {
    assert.ok(unchanged, 'the recrawls of the first test ran');
    const { second, third } = unchanged;
    const content = async (id: string): Promise<Record<string, string>> => {
      const job = await finished(id);
      return Object.fromEntries(job.data.map((p: any) => [new URL(p.url).pathname, p.markdown]));
    };
    const expected = await content(second);
    assert.equal(Object.keys(expected).length, 4);
    assert.ok(Object.values(expected).every((m) => typeof m === 'string' && m.length > 20), JSON.stringify(expected));
    assert.deepEqual(await content(third), expected, 'the full content through the API');
    const readModel = path.join(system.dataDir, 'read-models.sqlite');
    // Every page of the all-304 recrawl is a pointer, to a page of the recrawl that loaded the page last.
    const pointers = (): { repeats: string | null; hasMarkdown: number }[] => {
      const db = new DatabaseSync(readModel, { readOnly: true });
      try {
        return db.prepare("SELECT doc -> '$.repeats' AS repeats, json_type(doc, '$.markdown') IS NOT NULL AS hasMarkdown FROM crawl_pages WHERE crawl_id = ?").all(third) as never;
      } finally {
        db.close();
      }
    };
    const before = pointers();
    assert.equal(before.length, 4);
    for (const p of before) {
      assert.equal(p.hasMarkdown, 0, 'no copy of the content');
      assert.ok(p.repeats && [unchanged.first, second].includes(JSON.parse(p.repeats).crawlId), String(p.repeats));
    }
    // The read models rebuilt from the log: the same answer, the same pointers.
    await system.kill();
    for (const f of fs.readdirSync(system.dataDir)) if (f.startsWith('read-models.sqlite')) fs.rmSync(path.join(system.dataDir, f));
    system = await startSystem({ dataDir: system.dataDir, port: system.port, env: { ENGINE_AUTO_AGREEMENTS: '1', ENGINE_AUTO_RECHECK_EVERY: '10000' } });
    assert.deepEqual(await content(third), expected, 'the rebuilt read model answers with the full content');
    assert.deepEqual(pointers(), before);
  });

  test('sitemap lastmod: a page not newer than its last observation is skipped (unchangedUrls), unless revalidating', async () => {
    put('/s', article('Sitemapped', 'A site with a sitemap.', ['/s/a', '/s/b', '/s/old']));
    put('/s/a', article('SA', 'Page SA, old in the sitemap.'));
    put('/s/b', article('SB', 'Page SB, newer in the sitemap.'));
    put('/s/old', article('SO', 'Page SO will only be in the sitemap.'));
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/s'), limit: 10, includePaths: ['/s', '/s/**'] });
    const first = await finished(created.body.id);
    assert.equal(first.status, 'COMPLETED');
    assert.equal(first.data.length, 4);

    const entry = (path: string, lastmod?: string): string => `<url><loc>${site.url(path)}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`;
    site.route('/sitemap.xml', { contentType: 'application/xml', body: `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      ${entry('/s')}${entry('/s/a', '2001-01-01')}${entry('/s/b', '2999-01-01T00:00:00Z')}${entry('/s/old', '2001-01-01')}</urlset>` });
    put('/s', article('Sitemapped', 'A site with a sitemap.', ['/s/a', '/s/b']));
    const before = answers.length;
    const second = await recrawl(created.body.id);
    const asked = answers.slice(before).map((a) => a.path);
    assert.equal(asked.includes('/s/a'), false, `a page whose lastmod is old is not requested: ${asked.join(' ')}`);
    assert.deepEqual(second.report.unchangedUrls, [site.url('/s/a')]);
    assert.deepEqual(second.report.unlinkedUrls, [site.url('/s/old')], 'no longer linked but in the sitemap: not removed');
    assert.deepEqual(statuses(second.report), { '/s': 'changed', '/s/b': 'same' });
    assert.equal(second.report.counts.unchanged, 1);
    const skipped = (await finished(second.id)).data.find((p: any) => p.url === site.url('/s/a'));
    assert.equal(skipped.metadata.notModifiedBy, 'sitemap-lastmod');
    assert.equal(skipped.markdown, first.data.find((p: any) => p.url === site.url('/s/a')).markdown, 'the stored page');
    assert.equal(skipped.changeTracking.observed, false, 'a skip is no observation');

    const beforeRevalidate = answers.length;
    const third = await recrawl(created.body.id, { revalidate: true });
    assert.ok(answers.slice(beforeRevalidate).some((a) => a.path === '/s/a'), 'revalidate asks every page');
    assert.deepEqual(third.report.unchangedUrls, []);
    assert.equal(statuses(third.report)['/s/a'], 'same');
    assert.equal(statuses(third.report)['/s/old'], 'removed:not-linked', 'without the sitemap read, unlinked is removed');
  });

  test('problems: unknown, another key\'s, running or a crawl that is no recrawl, and a bad body', async () => {
    const missing = await system.api('POST', '/api/v1/crawl/nosuchcrawl0000/recrawl', {});
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'NOT_FOUND');
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
    const noBody = await system.api('POST', '/api/v1/crawl/nosuchcrawl0000/recrawl');
    assert.equal(noBody.status, 404, 'the body is optional: validation passes, the crawl is missing');

    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/r/a'), limit: 1 });
    const crawl = await finished(created.body.id);
    assert.equal(crawl.status, 'COMPLETED');
    const foreign = await system.api('POST', `/api/v1/crawl/${created.body.id}/recrawl`, {}, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.equal(foreign.status, 404, 'another key\'s crawl is not there');
    const bad = await system.api('POST', `/api/v1/crawl/${created.body.id}/recrawl`, { revalidate: 'yes' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
    const unknownField = await system.api('POST', `/api/v1/crawl/${created.body.id}/recrawl`, { limit: 5 });
    assert.equal(unknownField.status, 400);
    const notRecrawl = await system.api('GET', `/api/v1/crawl/${created.body.id}/recrawl`);
    assert.equal(notRecrawl.status, 404, 'a crawl that is no recrawl has no report');

    put('/slow', article('Slow', 'A slow page.'));
    site.route('/slow', (_req, res) => { setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(article('Slow', 'A slow page.')), 3000); });
    const running = await system.api('POST', '/api/v1/crawl', { url: site.url('/slow'), limit: 1 });
    const conflict = await system.api('POST', `/api/v1/crawl/${running.body.id}/recrawl`, {});
    assert.equal(conflict.status, 409, JSON.stringify(conflict.body));
    assert.equal(conflict.body.code, 'CONFLICT');
    await finished(running.body.id);
  });
});
