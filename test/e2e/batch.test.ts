// Batch scrapes through the whole system (gateway, frontier's batch worker, fetcher with
// Chromium, transformer, projector, webhook-dispatcher) against pages served on 127.0.0.1:
// mixed success and failure in request order, duplicates scraped once, formats applied to
// every page, screenshots, cancel, the signed batch.completed webhook, the list, bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { startSite, type TestSite } from '../support/site.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';

const page = (title: string, links: string[] = []): string => `<!doctype html><html><head><title>${title}</title>
<meta name="description" content="About ${title}"></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>${title}</h1><p>This is the page called ${title}. It has a paragraph long enough for a readability
algorithm to keep it as the main content of the page, with a few more words for good measure.</p></article></main>
</body></html>`;

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('batch scrape end to end', () => {
  let site: TestSite;
  let hooks: WebhookReceiver;
  let system: TrawlSystem;
  let deadUrl: string;

  before(async () => {
    site = await startSite({
      '/one': page('One', ['/two', 'https://example.com/out']),
      '/two': page('Two'),
      '/three': page('Three'),
    });
    for (let i = 0; i < 8; i++) site.route(`/slow/${i}`, { body: page(`Slow ${i}`), delayMs: 2000 });
    const dead = await startSite();
    deadUrl = dead.url('/gone');
    await dead.close(); // its port now refuses connections
    hooks = await startWebhookReceiver(['/done', '/cancelled']);
    // These tests count page loads at the server; under the default engine auto a page being
    // verified is loaded twice (GET and render). Engines are tested in engine.test.ts.
    system = await startSystem({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '300,300', BATCH_ENGINE: 'browser' } });
  });
  after(async () => {
    await system?.stop();
    await Promise.all([site?.close(), hooks?.close()]);
  });

  async function submit(body: Record<string, unknown>): Promise<string> {
    const created = await system.api('POST', '/api/v1/batch/scrape', body);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.equal(created.body.status, 'PENDING');
    return created.body.id;
  }
  const finished = (id: string): Promise<any> => system.poll(`/api/v1/batch/scrape/${id}`, (b: any) => FINAL.has(b.status), 60_000);

  test('mixed success and failure, in request order, duplicates once, formats on every page, signed batch.completed', async () => {
    const secret = (await system.api('GET', '/api/v1/webhooks/secret')).body.secret;
    const created = await system.api('POST', '/api/v1/batch/scrape', {
      urls: [site.url('/one'), deadUrl, site.url('/two'), `${site.url('/one')}#again`, site.url('/one/'), site.url('/three')],
      formats: ['markdown', 'html', 'links'],
      webhookUrl: hooks.url('/done'),
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.deepEqual(Object.keys(created.body).sort(), ['id', 'status']);
    const { id } = created.body;
    // Readable at once (read-your-writes), every page listed.
    const early = await system.api('GET', `/api/v1/batch/scrape/${id}`);
    assert.equal(early.status, 200);
    assert.equal(early.body.totalUrls, 4);
    assert.equal(early.body.data.length, 4);

    const job = await finished(id);
    assert.equal(job.status, 'COMPLETED');
    assert.deepEqual([job.totalUrls, job.completedUrls, job.failedUrls], [4, 3, 1]);
    for (const k of ['createdAt', 'startedAt', 'completedAt']) assert.match(job[k], ISO, k);
    assert.deepEqual(job.data.map((d: any) => d.url), [site.url('/one'), deadUrl, site.url('/two'), site.url('/three')]);
    assert.deepEqual(job.data.map((d: any) => d.status), ['COMPLETED', 'FAILED', 'COMPLETED', 'COMPLETED']);
    assert.equal(site.hits.get('/one'), 1, 'a URL given three times is loaded once');
    for (const entry of job.data.filter((d: any) => d.status === 'COMPLETED')) {
      const title = entry.metadata.title as string;
      assert.match(entry.markdown, new RegExp(`This is the page called ${title}`));
      assert.match(entry.html, /<p>/);
      assert.ok(Array.isArray(entry.links));
      assert.equal(entry.metadata.description, `About ${title}`);
      assert.equal(entry.rawHtml, undefined, 'rawHtml was not asked for');
      assert.equal(entry.error, undefined);
    }
    assert.deepEqual(job.data[0].links, [site.url('/two'), 'https://example.com/out']);
    const failedEntry = job.data[1];
    assert.equal(failedEntry.error.code, 'NETWORK_ERROR');
    assert.equal(failedEntry.markdown, undefined);

    await until(() => (hooks.received.get('/done')?.length ?? 0) > 0, { timeoutMs: 30_000 });
    const [hook] = hooks.received.get('/done')!;
    const payload = new Webhook(secret).verify(hook!.body, hook!.headers) as any;
    assert.equal(payload.event, 'batch.completed');
    assert.deepEqual(payload.data, { id, status: 'COMPLETED', totalUrls: 4, completedUrls: 3, failedUrls: 1 });
    assert.match(payload.timestamp, ISO);
    assert.equal(hook!.headers['webhook-id'], `msg_${id}`);
  });

  test('rawHtml and screenshot formats apply to every page; screenshots are served with the same key', async () => {
    const id = await submit({ urls: [site.url('/two'), site.url('/three')], formats: ['rawHtml', 'screenshot'], onlyMainContent: false });
    const job = await finished(id);
    assert.equal(job.status, 'COMPLETED');
    for (const [i, entry] of job.data.entries()) {
      assert.match(entry.rawHtml, /<title>/);
      assert.equal(entry.markdown, undefined);
      assert.equal(entry.screenshot.url, `${system.baseUrl}/api/v1/batch/scrape/${id}/pages/${i}/screenshot`);
      assert.equal(entry.screenshot.format, 'png');
      const image = await fetch(entry.screenshot.url, { headers: { authorization: `Bearer ${system.apiKey}` } });
      assert.equal(image.status, 200);
      assert.equal(image.headers.get('content-type'), 'image/png');
      assert.equal((await image.arrayBuffer()).byteLength, entry.screenshot.fileSize);
    }
    const foreign = await fetch(job.data[0].screenshot.url, { headers: { authorization: `Bearer ${OTHER_API_KEY}` } });
    assert.equal(foreign.status, 404);
    assert.equal((await system.api('GET', `/api/v1/batch/scrape/${id}/pages/7/screenshot`)).status, 404);
  });

  test('ignoreInvalidUrls scrapes the valid URLs and lists the others', async () => {
    const created = await system.api('POST', '/api/v1/batch/scrape', {
      urls: ['not a url', site.url('/three'), 'http://10.0.0.1/x'], ignoreInvalidUrls: true,
    });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    assert.deepEqual(created.body.invalidUrls, ['not a url', 'http://10.0.0.1/x']);
    const job = await finished(created.body.id);
    assert.deepEqual([job.status, job.totalUrls, job.completedUrls], ['COMPLETED', 1, 1]);
    assert.deepEqual(job.data.map((d: any) => d.url), [site.url('/three')]);
  });

  test('a batch whose every page fails is FAILED', async () => {
    const job = await finished(await submit({ urls: [deadUrl] }));
    assert.deepEqual([job.status, job.failedUrls, job.error.message], ['FAILED', 1, 'all 1 pages failed']);
    assert.equal(job.data[0].error.code, 'NETWORK_ERROR');
  });

  test('cancel: no page is loaded after the cancel, the rest are CANCELLED, batch.cancelled is sent', async () => {
    const urls = Array.from({ length: 8 }, (_, i) => site.url(`/slow/${i}`));
    const id = await submit({ urls, webhookUrl: hooks.url('/cancelled') });
    await system.poll(`/api/v1/batch/scrape/${id}`, (b: any) => b.data.some((d: any) => d.status === 'PROCESSING'), 30_000, { stepMs: 250 });
    const cancelled = await system.api('DELETE', `/api/v1/batch/scrape/${id}`);
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.deepEqual(cancelled.body, { id, status: 'CANCELLED' });
    const atCancel = (await system.api('GET', `/api/v1/batch/scrape/${id}`)).body;
    assert.equal(atCancel.status, 'CANCELLED');
    assert.match(atCancel.completedAt, ISO);
    assert.ok(atCancel.data.every((d: any) => d.status === 'COMPLETED' || d.status === 'FAILED' || d.status === 'CANCELLED'));
    assert.equal(atCancel.data.filter((d: any) => d.status === 'COMPLETED').length, atCancel.completedUrls);
    // Pages in flight at the cancel finish in the fetcher; nothing new starts.
    const slowHits = (): number => urls.reduce((n, _, i) => n + (site.hits.get(`/slow/${i}`) ?? 0), 0);
    await new Promise((r) => setTimeout(r, 3000));
    const hitsAfter = slowHits();
    assert.ok(hitsAfter <= 4, `at most the 4 pages in flight were loaded (${hitsAfter})`);
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(slowHits(), hitsAfter, 'nothing is loaded after the cancel');
    const later = (await system.api('GET', `/api/v1/batch/scrape/${id}`)).body;
    assert.deepEqual(later.data.map((d: any) => d.status), atCancel.data.map((d: any) => d.status), 'results after the cancel do not count');
    assert.equal(later.completedUrls, atCancel.completedUrls);
    const again = await system.api('DELETE', `/api/v1/batch/scrape/${id}`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'JOB_ALREADY_FINISHED');
    await until(() => (hooks.received.get('/cancelled')?.length ?? 0) > 0, { timeoutMs: 30_000 });
    const payload = JSON.parse(hooks.received.get('/cancelled')![0]!.body);
    assert.deepEqual([payload.event, payload.data.status, payload.data.totalUrls], ['batch.cancelled', 'CANCELLED', 8]);
  });

  test('finished, unknown and foreign batches: 409 on cancel, 404 otherwise', async () => {
    const [first] = (await system.api('GET', '/api/v1/batch/scrape?limit=100')).body.filter((b: any) => b.status === 'COMPLETED');
    const res = await system.api('DELETE', `/api/v1/batch/scrape/${first.id}`);
    assert.equal(res.status, 409);
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal((await system.api('GET', '/api/v1/batch/scrape/nope')).status, 404);
    assert.equal((await system.api('DELETE', '/api/v1/batch/scrape/nope')).status, 404);
    const foreign = await system.api('GET', `/api/v1/batch/scrape/${first.id}`, undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, 'NOT_FOUND');
  });

  test('the batch list: the caller\'s batches, newest first, with limit and offset', async () => {
    const all = await system.api('GET', '/api/v1/batch/scrape?limit=100');
    assert.equal(all.status, 200);
    assert.equal(all.body.length, 5);
    for (const item of all.body) {
      assert.deepEqual(Object.keys(item).filter((k) => k !== 'completedAt').sort(), ['completedUrls', 'createdAt', 'failedUrls', 'id', 'status', 'totalUrls']);
    }
    const created = all.body.map((i: any) => i.createdAt);
    assert.deepEqual(created, [...created].sort().reverse());
    const page = await system.api('GET', '/api/v1/batch/scrape?limit=2&offset=1');
    assert.deepEqual(page.body.map((i: any) => i.id), all.body.slice(1, 3).map((i: any) => i.id));
    const other = await system.api('GET', '/api/v1/batch/scrape', undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.deepEqual(other.body, []);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      assert.equal((await system.api('GET', `/api/v1/batch/scrape?${q}`)).status, 400, q);
    }
    assert.equal((await system.api('GET', `/api/v1/batch/scrape/${all.body[0].id}?cursor=abc`)).status, 400);
  });

  test('bad input for every field is an RFC 7807 400 naming the field', async () => {
    const ok = site.url('/one');
    const cases: [Record<string, unknown> | string, string, RegExp][] = [
      [{}, 'VALIDATION_ERROR', /urls is required/],
      [{ urls: [] }, 'VALIDATION_ERROR', /urls must NOT have fewer than 1 items/],
      [{ urls: Array.from({ length: 101 }, (_, i) => `${ok}?n=${i}`) }, 'VALIDATION_ERROR', /urls must NOT have more than 100 items/],
      [{ urls: ok }, 'VALIDATION_ERROR', /urls must be of type array/],
      [{ urls: [42] }, 'VALIDATION_ERROR', /urls\.0 must be of type string/],
      [{ urls: [''] }, 'VALIDATION_ERROR', /urls\.0/],
      [{ urls: [ok, 'not a url'] }, 'INVALID_URL', /urls\.1: "not a url" is not a valid URL/],
      [{ urls: [ok, 'ftp://example.com/'] }, 'INVALID_URL', /urls\.1: only http and https/],
      [{ urls: [ok, ok, 'http://10.0.0.1/'] }, 'URL_NOT_ALLOWED', /urls\.2: .*blocked/],
      [{ urls: ['nope'], ignoreInvalidUrls: true }, 'INVALID_URL', /urls\.0/],
      [{ urls: [ok], ignoreInvalidUrls: 'yes' }, 'VALIDATION_ERROR', /ignoreInvalidUrls/],
      [{ urls: [ok], formats: ['pdf'] }, 'VALIDATION_ERROR', /formats/],
      [{ urls: [ok], formats: [] }, 'VALIDATION_ERROR', /formats/],
      [{ urls: [ok], onlyMainContent: 'no' }, 'VALIDATION_ERROR', /onlyMainContent/],
      [{ urls: [ok], includeTags: ['div['] }, 'VALIDATION_ERROR', /includeTags\.0/],
      [{ urls: [ok], viewport: { width: 50 } }, 'VALIDATION_ERROR', /viewport\.width/],
      [{ urls: [ok], timeout: '5000' }, 'VALIDATION_ERROR', /timeout/],
      [{ urls: [ok], timeout: 500 }, 'VALIDATION_ERROR', /timeout/],
      [{ urls: [ok], waitFor: -1 }, 'VALIDATION_ERROR', /waitFor/],
      [{ urls: [ok], device: 'watch' }, 'VALIDATION_ERROR', /device/],
      [{ urls: [ok], actions: [{ type: 'dance' }] }, 'VALIDATION_ERROR', /actions\.0\.type/],
      [{ urls: [ok], screenshotOptions: { quality: 0 } }, 'VALIDATION_ERROR', /screenshotOptions\.quality/],
      [{ urls: [ok], webhookUrl: 'nope' }, 'INVALID_URL', /webhookUrl/],
      [{ urls: [ok], webhookUrl: 'http://10.0.0.1/hook' }, 'URL_NOT_ALLOWED', /blocked/],
      [{ urls: [ok], url: ok }, 'VALIDATION_ERROR', /url is not a known field/],
      ['{"urls": [', 'VALIDATION_ERROR', /JSON|body/i],
    ];
    for (const [body, code, detail] of cases) {
      const res = await system.api('POST', '/api/v1/batch/scrape', body);
      const label = JSON.stringify(body).slice(0, 120);
      assert.equal(res.status, 400, `${label}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code, label);
      assert.match(res.body.detail, detail, label);
      assert.equal(res.body.status, 400);
      assert.ok(res.body.type.endsWith(`/${code}`), label);
      assert.ok(res.body.title && res.body.requestId, label);
    }
    assert.equal((await system.api('GET', '/api/v1/batch/scrape?limit=100')).body.length, 5, 'no batch was created');
  });
});
