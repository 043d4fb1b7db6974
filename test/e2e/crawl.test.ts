// Crawls through the whole system (gateway, frontier, fetcher with Chromium, transformer,
// projector, webhook-dispatcher) against a site with a known link graph: exact page sets
// for depth, limit and each glob form, duplicates, external links, cancel, signed
// webhooks with retries, a failing start page, the crawl list and bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startSite, type TestSite } from '../support/site.js';
import { DEPTH1, DEPTH2, DEPTH3, linkGraph } from '../support/link-graph.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

const page = (title: string, links: string[]): string => `<!doctype html><html><head><title>${title}</title>
<meta name="description" content="About ${title}"></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>${title}</h1><p>This is the page called ${title}. It has a paragraph long enough for a readability
algorithm to keep it as the main content of the page, with a few more words for good measure.</p></article></main>
</body></html>`;

/** Same-site link graph (paths); EXT is replaced by the external site's origin. */
const GRAPH = linkGraph('EXT');

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const sorted = (xs: string[]): string[] => [...xs].sort();


async function graphSite(ext: TestSite, routes: Parameters<typeof startSite>[0] = {}): Promise<TestSite> {
  const s = await startSite(routes);
  for (const [path, links] of Object.entries(GRAPH)) {
    s.route(path, page(`Page ${path}`, links.map((l) => l.replace('EXT', ext.origin))));
  }
  return s;
}

describe('crawl end to end', () => {
  let site: TestSite;
  let ext: TestSite;
  let hooks: WebhookReceiver;
  let system: TrawlSystem;

  before(async () => {
    ext = await startSite({ '/x': page('External X', ['/y']), '/y': page('External Y', []) }, '127.0.0.2');
    site = await graphSite(ext);
    // A wide, slow part for the cancel test.
    site.route('/slow', page('Slow hub', Array.from({ length: 20 }, (_, i) => `/slow/${i}`)));
    for (let i = 0; i < 20; i++) site.route(`/slow/${i}`, { body: page(`Slow ${i}`, []), delayMs: 1500 });
    hooks = await startWebhookReceiver(['/done', '/flaky', '/failed', '/cancelled']);
    // These tests count page loads at the server; under the default engine auto a page being
    // verified is loaded twice (GET and render). Engines are tested in engine.test.ts.
    system = await startSystem({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300', CRAWL_ENGINE: 'browser' } });
  });
  after(async () => {
    await system?.stop();
    await Promise.all([site?.close(), ext?.close(), hooks?.close()]);
  });

  async function crawl(body: Record<string, unknown>): Promise<any> {
    const created = await system.api('POST', '/api/v1/crawl', body);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.deepEqual(Object.keys(created.body).sort(), ['id', 'status']);
    assert.equal(created.body.status, 'PENDING');
    return system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => FINAL.has(b.status), 120_000);
  }

  const paths = (job: any): string[] => job.data.map((d: any) => {
    const u = new URL(d.url);
    return u.origin === site.origin ? `${u.pathname}${u.search}` : `${u.origin}${u.pathname}`;
  });

  function assertConsistent(job: any): void {
    assert.equal(job.completedUrls, job.data.length, 'completedUrls matches data');
    assert.equal(new Set(job.data.map((d: any) => d.url)).size, job.data.length, 'no page twice');
    assert.ok(job.totalUrls >= job.completedUrls + job.failedUrls);
  }

  test('maxDepth 1: the start page (depth 0) and its direct links, with the spec fields', async () => {
    const before = new Map(site.hits);
    const job = await crawl({ url: site.url('/'), maxDepth: 1 });
    assert.equal(job.status, 'COMPLETED');
    assert.deepEqual(sorted(paths(job)), sorted(DEPTH1));
    assertConsistent(job);
    assert.deepEqual([job.totalUrls, job.completedUrls, job.failedUrls], [5, 5, 0]);
    for (const k of ['createdAt', 'startedAt', 'completedAt']) assert.match(job[k], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const home = job.data.find((d: any) => new URL(d.url).pathname === '/');
    assert.equal(home.depth, 0);
    assert.equal(home.metadata.title, 'Page /');
    assert.equal(home.metadata.description, 'About Page /');
    assert.match(home.markdown, /This is the page called Page \//);
    assert.ok(home.links.includes(site.url('/docs')));
    assert.ok(job.data.filter((d: any) => d.depth === 1).length === 4);
    // #fragment, trailing-slash and index variants of / and /a were never fetched.
    const delta = (p: string): number => (site.hits.get(p) ?? 0) - (before.get(p) ?? 0);
    assert.equal(delta('/a'), 1);
    assert.equal(delta('/'), 1);
    assert.equal(delta('/a/'), 0);
    assert.equal(delta('/index.html'), 0);
  });

  test('maxDepth 2', async () => {
    const job = await crawl({ url: site.url('/'), maxDepth: 2 });
    assert.deepEqual(sorted(paths(job)), sorted(DEPTH2));
    assertConsistent(job);
  });

  test('the default maxDepth 3, with *.pdf excluded at every depth', async () => {
    const job = await crawl({ url: site.url('/'), excludePaths: ['*.pdf'] });
    assert.deepEqual(sorted(paths(job)), sorted(DEPTH3.filter((p) => !p.endsWith('.pdf'))));
    assertConsistent(job);
  });

  test('limit: the first pages in discovery order, the start page included', async () => {
    const five = await crawl({ url: site.url('/'), maxDepth: 5, limit: 5 });
    assert.deepEqual(sorted(paths(five)), sorted(DEPTH1));
    assert.deepEqual([five.totalUrls, five.completedUrls], [5, 5]);
    const one = await crawl({ url: site.url('/'), limit: 1 });
    assert.deepEqual(paths(one), ['/']);
  });

  test('glob /docs/* : pages directly under /docs/', async () => {
    const job = await crawl({ url: site.url('/docs'), maxDepth: 5, includePaths: ['/docs/*'] });
    assert.deepEqual(sorted(paths(job)), sorted(['/docs', '/docs/intro', '/docs/guide', '/docs/intro.pdf']));
  });

  test('glob /docs/** : pages under /docs/ at any depth', async () => {
    const job = await crawl({ url: site.url('/docs'), maxDepth: 5, includePaths: ['/docs/**'] });
    assert.deepEqual(sorted(paths(job)), sorted(['/docs', '/docs/intro', '/docs/guide', '/docs/guide/install', '/docs/guide/install/linux', '/docs/intro.pdf']));
  });

  test('glob *.pdf : any PDF (here: the one linked from the start page)', async () => {
    const job = await crawl({ url: site.url('/'), maxDepth: 5, includePaths: ['*.pdf'] });
    assert.deepEqual(sorted(paths(job)), sorted(['/', '/files/report.pdf']));
  });

  test('glob /blog/2024-* : paths beginning /blog/2024-', async () => {
    const job = await crawl({ url: site.url('/blog'), maxDepth: 5, includePaths: ['/blog/2024-*'] });
    assert.deepEqual(sorted(paths(job)), sorted(['/blog', '/blog/2024-launch', '/blog/2024-roadmap']));
  });

  test('globs combined, exclude winning over include', async () => {
    const job = await crawl({
      url: site.url('/'), maxDepth: 5,
      includePaths: ['/docs', '/docs/**', '/blog', '/blog/**'], excludePaths: ['*.pdf', '/blog/2023-*', '/docs/guide/**'],
    });
    assert.deepEqual(sorted(paths(job)), sorted(['/', '/docs', '/docs/intro', '/docs/guide', '/blog', '/blog/2024-launch', '/blog/2024-roadmap']));
  });

  test('external links are followed only with allowExternalLinks', async () => {
    const job = await crawl({ url: site.url('/'), maxDepth: 1, allowExternalLinks: true });
    assert.deepEqual(sorted(paths(job)), sorted([...DEPTH1, `${ext.origin}/x`]));
  });

  test('robots.txt is honoured by default and ignored with ignoreRobots', async () => {
    // A site of its own: robots.txt is cached per origin by the frontier.
    const polite = await graphSite(ext, { '/robots.txt': { body: 'User-agent: *\nDisallow: /blog\n', contentType: 'text/plain' } });
    try {
      const kept = await crawl({ url: polite.url('/'), maxDepth: 1 });
      assert.deepEqual(sorted(kept.data.map((d: any) => new URL(d.url).pathname)), sorted(DEPTH1.filter((p) => p !== '/blog')));
      assert.equal(polite.hits.get('/blog') ?? 0, 0);
      const all = await crawl({ url: polite.url('/'), maxDepth: 1, ignoreRobots: true });
      assert.deepEqual(sorted(all.data.map((d: any) => new URL(d.url).pathname)), sorted(DEPTH1));
    } finally {
      await polite.close();
    }
  });

  test('a crawl.completed webhook with the spec payload, signed with the key\'s secret', async () => {
    const secret = await system.api('GET', '/api/v1/webhooks/secret');
    assert.equal(secret.status, 200);
    assert.match(secret.body.secret, /^whsec_/);
    const job = await crawl({ url: site.url('/'), maxDepth: 1, limit: 2, webhookUrl: hooks.url('/done') });
    const deadline = Date.now() + 30_000;
    while (!hooks.received.get('/done')?.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const [hook] = hooks.received.get('/done')!;
    const payload = new Webhook(secret.body.secret).verify(hook!.body, hook!.headers) as any;
    assert.deepEqual(Object.keys(payload).sort(), ['data', 'event', 'timestamp']);
    assert.deepEqual(payload.data, {
      id: job.id, status: 'COMPLETED', startUrl: site.url('/'), totalUrls: 2, completedUrls: 2, failedUrls: 0,
    });
    assert.equal(payload.event, 'crawl.completed');
    assert.match(payload.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(hook!.headers['webhook-id'], `msg_${job.id}`);
    assert.equal(hook!.headers['content-type'], 'application/json');
    // Another key's secret does not verify it.
    const other = await system.api('GET', '/api/v1/webhooks/secret', undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.notEqual(other.body.secret, secret.body.secret);
    assert.throws(() => new Webhook(other.body.secret).verify(hook!.body, hook!.headers));
  });

  test('a receiver failing twice gets the same signed webhook three times', async () => {
    hooks.failFirst.set('/flaky', 2);
    const secret = (await system.api('GET', '/api/v1/webhooks/secret')).body.secret;
    const job = await crawl({ url: site.url('/'), limit: 1, webhookUrl: hooks.url('/flaky') });
    const deadline = Date.now() + 30_000;
    while ((hooks.received.get('/flaky')?.length ?? 0) < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const got = hooks.received.get('/flaky')!;
    assert.equal(got.length, 3);
    assert.deepEqual(new Set(got.map((h) => h.headers['webhook-id'])), new Set([`msg_${job.id}`]));
    for (const h of got) assert.equal((new Webhook(secret).verify(h.body, h.headers) as any).data.id, job.id);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(hooks.received.get('/flaky')!.length, 3, 'no attempt after the successful one');
  });

  test('a crawl whose start page fails is FAILED and sends crawl.failed', async () => {
    const dead = await startSite();
    const url = dead.url('/');
    await dead.close();
    const job = await crawl({ url, webhookUrl: hooks.url('/failed') });
    assert.equal(job.status, 'FAILED');
    assert.deepEqual([job.totalUrls, job.completedUrls, job.failedUrls], [1, 0, 1]);
    assert.deepEqual(job.data, []);
    assert.match(job.error.message, /start page failed/);
    const deadline = Date.now() + 30_000;
    while (!hooks.received.get('/failed')?.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const payload = JSON.parse(hooks.received.get('/failed')![0]!.body);
    assert.deepEqual([payload.event, payload.data.status, payload.data.failedUrls], ['crawl.failed', 'FAILED', 1]);
  });

  test('cancel mid-crawl: scheduling stops, no page completes after the cancel', async () => {
    const created = await system.api('POST', '/api/v1/crawl', { url: site.url('/slow'), limit: 21, webhookUrl: hooks.url('/cancelled') });
    const id = created.body.id;
    await system.poll(`/api/v1/crawl/${id}`, (b: any) => b.status === 'PROCESSING' && b.completedUrls >= 1, 60_000, { stepMs: 250 });
    const cancelled = await system.api('DELETE', `/api/v1/crawl/${id}`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.deepEqual(cancelled.body, { id, status: 'CANCELLED' });
    const atCancel = (await system.api('GET', `/api/v1/crawl/${id}`)).body;
    assert.equal(atCancel.status, 'CANCELLED');
    assertConsistent(atCancel);
    // Let the pages that were in flight at the cancel finish in the fetcher.
    await new Promise((r) => setTimeout(r, 5000));
    const slowHits = (): number => Array.from({ length: 20 }, (_, i) => site.hits.get(`/slow/${i}`) ?? 0).reduce((a, b) => a + b, 0);
    const hitsAfter = slowHits();
    assert.ok(hitsAfter <= 4 + atCancel.completedUrls, `at most the in-flight pages were fetched (${hitsAfter})`);
    await new Promise((r) => setTimeout(r, 3000));
    assert.equal(slowHits(), hitsAfter, 'nothing is requested after the cancel');
    const later = (await system.api('GET', `/api/v1/crawl/${id}`)).body;
    assert.equal(later.status, 'CANCELLED');
    assert.equal(later.completedUrls, atCancel.completedUrls);
    assert.deepEqual(later.data.map((d: any) => d.url), atCancel.data.map((d: any) => d.url));
    assertConsistent(later);
    const again = await system.api('DELETE', `/api/v1/crawl/${id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'JOB_ALREADY_FINISHED');
    const payload = JSON.parse(hooks.received.get('/cancelled')![0]!.body);
    assert.deepEqual([payload.event, payload.data.status], ['crawl.cancelled', 'CANCELLED']);
  });

  test('cancelling a completed crawl is 409 JOB_ALREADY_FINISHED; unknown or foreign ids are 404', async () => {
    const job = await crawl({ url: site.url('/'), limit: 1 });
    const res = await system.api('DELETE', `/api/v1/crawl/${job.id}`);
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'JOB_ALREADY_FINISHED');
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal((await system.api('GET', '/api/v1/crawl/nope')).status, 404);
    assert.equal((await system.api('DELETE', '/api/v1/crawl/nope')).status, 404);
    const foreign = await system.api('GET', `/api/v1/crawl/${job.id}`, undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.equal(foreign.status, 404);
  });

  test('the crawl list: the caller\'s crawls, newest first, with limit and offset', async () => {
    const all = await system.api('GET', '/api/v1/crawl?limit=100');
    assert.equal(all.status, 200);
    assert.ok(all.body.length >= 10);
    for (const item of all.body) {
      assert.deepEqual(Object.keys(item).sort(), ['completedUrls', 'createdAt', 'failedUrls', 'id', 'startUrl', 'status', 'totalUrls']);
    }
    const created = all.body.map((i: any) => i.createdAt);
    assert.deepEqual(created, [...created].sort().reverse());
    const page = await system.api('GET', '/api/v1/crawl?limit=2&offset=1');
    assert.deepEqual(page.body.map((i: any) => i.id), all.body.slice(1, 3).map((i: any) => i.id));
    assert.equal((await system.api('GET', '/api/v1/crawl')).body.length, Math.min(20, all.body.length));
    const other = await system.api('GET', '/api/v1/crawl', undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.deepEqual(other.body, []);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      assert.equal((await system.api('GET', `/api/v1/crawl?${q}`)).status, 400, q);
    }
  });

  test('bad input for every field is an RFC 7807 400 naming the field', async () => {
    const url = site.url('/');
    const cases: [Record<string, unknown> | string, string, RegExp][] = [
      [{}, 'VALIDATION_ERROR', /url/],
      [{ url: 'not a url' }, 'INVALID_URL', /not a valid URL/],
      [{ url: 'ftp://example.com/' }, 'INVALID_URL', /http/],
      [{ url: 'http://10.0.0.1/' }, 'URL_NOT_ALLOWED', /blocked/],
      [{ url: 42 }, 'VALIDATION_ERROR', /url/],
      [{ url, maxDepth: 0 }, 'VALIDATION_ERROR', /maxDepth/],
      [{ url, maxDepth: 11 }, 'VALIDATION_ERROR', /maxDepth/],
      [{ url, maxDepth: 2.5 }, 'VALIDATION_ERROR', /maxDepth/],
      [{ url, maxDepth: '3' }, 'VALIDATION_ERROR', /maxDepth/],
      [{ url, limit: 0 }, 'VALIDATION_ERROR', /limit/],
      [{ url, limit: 1001 }, 'VALIDATION_ERROR', /limit/],
      [{ url, includePaths: '/docs/*' }, 'VALIDATION_ERROR', /includePaths/],
      [{ url, includePaths: [1] }, 'VALIDATION_ERROR', /includePaths/],
      [{ url, excludePaths: [''] }, 'VALIDATION_ERROR', /excludePaths/],
      [{ url, allowExternalLinks: 'yes' }, 'VALIDATION_ERROR', /allowExternalLinks/],
      [{ url, ignoreRobots: 1 }, 'VALIDATION_ERROR', /ignoreRobots/],
      [{ url, scrapeOptions: 'markdown' }, 'VALIDATION_ERROR', /scrapeOptions/],
      [{ url, scrapeOptions: { formats: ['pdf'] } }, 'VALIDATION_ERROR', /scrapeOptions\.formats/],
      [{ url, scrapeOptions: { viewport: { width: 50 } } }, 'VALIDATION_ERROR', /scrapeOptions\.viewport\.width/],
      [{ url, webhookUrl: 'nope' }, 'INVALID_URL', /webhookUrl|not a valid URL/],
      [{ url, webhookUrl: 'http://10.0.0.1/hook' }, 'URL_NOT_ALLOWED', /blocked/],
      [{ url, unknownField: true }, 'VALIDATION_ERROR', /unknownField/],
      ['{"url": ', 'VALIDATION_ERROR', /JSON|body/i],
    ];
    for (const [body, code, detail] of cases) {
      const res = await system.api('POST', '/api/v1/crawl', body);
      const label = JSON.stringify(body);
      assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code, label);
      assert.match(res.body.detail, detail, label);
      assert.equal(res.body.status, 400);
      assert.ok(res.body.type.endsWith(`/${code}`), label);
      assert.ok(res.body.title && res.body.requestId, label);
    }
  });
});
