// The SDK against the real system (supervisor, NATS, Chromium) and a site served here:
// scrape waiting by long-poll, typed errors, crawl iteration with cancel, a batch yielding
// pages as they complete, map, jobs and events, 429s retried by their Retry-After (a free
// key), a real webhook delivery verified, and the SDK's routes and fields against the live
// /openapi.json (the drift test).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  InvalidRequestError, JobFailedError, RateLimitError, ROUTES, Trawl, verifyWebhook, WebhookVerificationError, type JobEvent, type RetryInfo,
} from '../../clients/sdk/index.js';
import { Document } from '@langchain/core/documents';
import { TrawlLoader } from '../../clients/langchain/loader.js';
import { BATCH_PAGE_FIELDS, CRAWL_PAGE_FIELDS } from '../../clients/sdk/routes.js';
import type { TestSite } from '../support/site.js';
import type { TrawlSystem } from '../support/system.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { FREE_API_KEY, startClientSite, startClientSystem } from './helpers.js';

describe('@trawl/sdk against the running system', () => {
  let site: TestSite;
  let hooks: WebhookReceiver;
  let system: TrawlSystem;
  let trawl: Trawl;

  before(async () => {
    site = await startClientSite();
    hooks = await startWebhookReceiver(['/hook']);
    system = await startClientSystem();
    trawl = new Trawl({ apiUrl: system.baseUrl, apiKey: system.apiKey });
  });
  after(async () => {
    await system?.stop();
    await Promise.all([site?.close(), hooks?.close()]);
  });

  test('scrape waits for the page by default; {wait: false} returns the job; waitForScrape finishes it', async () => {
    const page = await trawl.scrape(site.url('/a'), { formats: ['markdown', 'links'] });
    assert.equal(page.status, 'COMPLETED');
    assert.match(page.markdown!, /This is the page called Page A/);
    assert.deepEqual(page.links, [site.url('/')]);
    assert.equal(page.metadata?.title, 'Page A');

    const created = await trawl.scrape(site.url('/b'), { wait: false, onlyMainContent: false });
    assert.ok(created.status === 'PENDING' || created.status === 'PROCESSING', JSON.stringify(created));
    const done = await trawl.waitForScrape(created.id);
    assert.equal(done.status, 'COMPLETED');
    assert.match(done.markdown!, /Page B/);
  });

  test('a failed page is a JobFailedError with its code; a bad request an InvalidRequestError with status and requestId', async () => {
    const failed = await trawl.scrape(site.url('/c'), { waitFor: '#never', timeout: 1000 }).then(() => undefined, (e: unknown) => e);
    assert.ok(failed instanceof JobFailedError, String(failed));
    assert.equal(failed.code, 'SELECTOR_NOT_FOUND');
    assert.equal(failed.status, 400);
    assert.equal((failed.job as { status: string }).status, 'FAILED');

    const bad = await trawl.scrape('notaurl').then(() => undefined, (e: unknown) => e);
    assert.ok(bad instanceof InvalidRequestError, String(bad));
    assert.equal(bad.code, 'INVALID_URL');
    assert.equal(bad.status, 400);
    assert.match(bad.requestId ?? '', /.{8,}/);
    const typo = await trawl.scrape(site.url('/a'), { onlyMainContnet: true } as never).then(() => undefined, (e: unknown) => e);
    assert.ok(typo instanceof InvalidRequestError && typo.code === 'VALIDATION_ERROR', String(typo));
  });

  test('crawl: done() gives every page; the handle iterates over them', async () => {
    const crawl = await trawl.crawl(site.url('/'), { maxDepth: 2 });
    const job = await crawl.done();
    assert.equal(job.status, 'COMPLETED');
    assert.deepEqual(job.data.map((p) => new URL(p.url).pathname).sort(), ['/', '/a', '/b', '/c']);
    const iterated = [];
    for await (const p of crawl) iterated.push(p.url);
    assert.deepEqual(iterated, job.data.map((p) => p.url));
  });

  test('crawl pages stream: the first pages arrive while the crawl still runs, then every page once, in requested order', async () => {
    const crawl = await trawl.crawl(site.url('/slow'), { limit: 13 });
    const seen: { url: string; statusThen: string }[] = [];
    for await (const p of crawl.pages({ progressIntervalMs: 300 })) {
      seen.push({ url: p.url, statusThen: seen.length === 0 ? (await crawl.status()).status : '' });
    }
    const final = await crawl.done();
    assert.equal(final.status, 'COMPLETED');
    assert.equal(seen[0]!.url, site.url('/slow'));
    assert.ok(['PENDING', 'PROCESSING'].includes(seen[0]!.statusThen), `the hub came while the crawl ran (it was ${seen[0]!.statusThen})`);
    assert.deepEqual(seen.map((s) => s.url), final.data.map((p) => p.url), 'the same pages as done(), in the same order, each once');
    assert.equal(seen.length, 13);
    // The raw API: a running crawl's GET has the pages so far and a `next` cursor.
    const running = await trawl.crawl(site.url('/slow'), { limit: 13 });
    await new Promise((r) => setTimeout(r, 800));
    const view = await running.status();
    if (view.status === 'PROCESSING') {
      assert.ok(view.next, 'a running crawl always has next');
      assert.ok(Array.isArray(view.data));
    }
    await running.cancel();
  });

  test('crawl iteration with cancel: progress while it runs, cancel, the pages done before the cancel', async () => {
    const crawl = await trawl.crawl(site.url('/slow'), { limit: 13 });
    const progress: number[] = [];
    let cancelled: Promise<unknown> | undefined;
    const pages = [];
    for await (const p of crawl.pages({
      progressIntervalMs: 300,
      onProgress: (v) => {
        progress.push(v.completedUrls);
        if (!cancelled && v.completedUrls >= 2) cancelled = crawl.cancel();
      },
    })) pages.push(p);
    assert.deepEqual(await cancelled, { id: crawl.id, status: 'CANCELLED' });
    const final = await crawl.status();
    assert.equal(final.status, 'CANCELLED');
    assert.ok(progress.length >= 3, `progress was seen while running: ${progress}`);
    assert.ok(pages.length >= 2 && pages.length < 13, `${pages.length} pages`);
    assert.equal(pages.length, final.completedUrls);
    assert.equal(new Set(pages.map((p) => p.url)).size, pages.length);
    // Cancelling again is not an error: the finished job's status comes back.
    assert.equal((await crawl.cancel()).status, 'CANCELLED');
  });

  test('batchScrape yields each page as it completes, before slower ones have answered', async () => {
    let slowAnswered = false;
    site.route('/batch-slow', (_req, res) => setTimeout(() => { slowAnswered = true; res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Slow</title></head><body><p>slow page</p></body></html>'); }, 5000));
    const batch = await trawl.batchScrape([site.url('/batch-slow'), site.url('/c'), 'nope'], { ignoreInvalidUrls: true });
    assert.deepEqual(batch.invalidUrls, ['nope']);
    const order: { url: string; slowAnswered: boolean }[] = [];
    for await (const p of batch.pages({ progressIntervalMs: 300, onProgress: () => {} })) order.push({ url: p.url, slowAnswered });
    assert.deepEqual(order.map((o) => new URL(o.url).pathname).sort(), ['/batch-slow', '/c']);
    assert.deepEqual(order[0], { url: site.url('/c'), slowAnswered: false }, 'the fast page came first, while the slow one was loading');
    const job = await batch.done();
    assert.equal(job.status, 'COMPLETED');
    assert.equal(job.data.length, 2);
  });

  test('map, jobs.list of every kind, events of a job found without its kind', async () => {
    const map = await trawl.map(site.url('/'));
    for (const p of ['/a', '/b', '/c']) assert.ok(map.links.includes(site.url(p)), JSON.stringify(map));
    assert.equal(map.count, map.links.length);
    assert.deepEqual((await trawl.map(site.url('/'), { search: 'c' })).links, [site.url('/c')]);

    const jobs = await trawl.jobs.list({ limit: 50 });
    assert.deepEqual([...new Set(jobs.map((j) => j.kind))].sort(), ['batch', 'crawl', 'scrape']);
    for (let i = 1; i < jobs.length; i++) assert.ok(jobs[i - 1]!.createdAt >= jobs[i]!.createdAt, 'newest first');
    const page = await trawl.jobs.list({ limit: 3, offset: 2 });
    assert.deepEqual(page.map((j) => j.id), jobs.slice(2, 5).map((j) => j.id), 'merged lists page like one list');
    const crawls = await trawl.jobs.list({ kind: 'crawl' });
    assert.ok(crawls.length >= 2 && crawls.every((j) => j.kind === 'crawl'));

    const events: JobEvent[] = [];
    for await (const e of trawl.events(crawls.at(-1)!.id)) events.push(e);
    assert.equal(events[0]?.event, 'crawl_requested');
    assert.ok(events.some((e) => e.event === 'page_completed'));
    assert.ok(events.every((e, i) => i === 0 || e.seq > events[i - 1]!.seq));
  });

  test('a real webhook delivery verifies with the key\'s secret; a tampered one does not', async () => {
    const crawl = await trawl.crawl(site.url('/c'), { webhookUrl: hooks.url('/hook') });
    await crawl.done();
    const deadline = Date.now() + 30_000;
    while (!hooks.received.get('/hook')?.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const delivery = hooks.received.get('/hook')?.[0];
    assert.ok(delivery, 'the webhook was delivered');
    const { secret } = await trawl.webhooks.secret();
    const payload = verifyWebhook(delivery.body, delivery.headers, secret);
    assert.equal(payload.event, 'crawl.completed');
    assert.equal(payload.data.id, crawl.id);
    assert.equal(payload.data.completedUrls, 1);
    assert.throws(() => verifyWebhook(delivery.body.replace('"completedUrls":1', '"completedUrls":9'), delivery.headers, secret), WebhookVerificationError);
    assert.throws(() => verifyWebhook(delivery.body, delivery.headers, `whsec_${Buffer.from('another secret').toString('base64')}`), WebhookVerificationError);
    assert.throws(() => verifyWebhook(delivery.body, new Headers(), secret), (e: unknown) => e instanceof WebhookVerificationError && e.code === 'INVALID_SIGNATURE');
  });

  test('TrawlLoader (LangChain): a Document per page with its metadata, for scrape, crawl and batch', async () => {
    const options = { apiUrl: system.baseUrl, apiKey: system.apiKey };
    const [one] = await new TrawlLoader({ ...options, url: site.url('/a') }).load();
    assert.ok(one instanceof Document);
    assert.match(one.pageContent, /This is the page called Page A/);
    assert.equal(one.metadata.source, site.url('/a'));
    assert.equal(one.metadata.title, 'Page A');

    const crawled = await new TrawlLoader({ ...options, mode: 'crawl', url: site.url('/'), params: { maxDepth: 1 } }).load();
    assert.deepEqual(crawled.map((d) => new URL(d.metadata.source).pathname).sort(), ['/', '/a', '/b', '/c']);
    assert.deepEqual(crawled.find((d) => d.metadata.title === 'Home')?.metadata.depth, 0);

    site.route('/gone', { body: '<html><body>gone</body></html>', status: 404 });
    const batch = await new TrawlLoader({ client: trawl, mode: 'batch', urls: [site.url('/b'), site.url('/gone')] }).load();
    assert.deepEqual(batch.map((d) => d.metadata.source), [site.url('/b')], 'the 404 page is left out');
  });

  test('429s are retried after their Retry-After (a free key: 2 concurrent jobs, 10 requests a minute)', async () => {
    const retries: RetryInfo[] = [];
    const free = new Trawl({ apiUrl: system.baseUrl, apiKey: FREE_API_KEY, onRetry: (r) => retries.push(r) });
    // Two slow jobs fill the plan's two slots; the third scrape is refused (429, Retry-After: 1)
    // until one of them ends, and the SDK waits and submits again.
    await free.scrape(site.url('/slow/0'), { wait: false });
    await free.scrape(site.url('/slow/1'), { wait: false });
    const third = await free.scrape(site.url('/b'), { formats: ['links'] });
    assert.equal(third.status, 'COMPLETED');
    assert.ok(retries.length >= 1, 'the third scrape was retried');
    assert.ok(retries.every((r) => r.error.code === 'RATE_LIMITED' && r.error.retryAfter === 1 && r.delayMs >= 1000));

    // The requests per minute: without retries the 429 reaches the caller, typed.
    const impatient = new Trawl({ apiUrl: system.baseUrl, apiKey: FREE_API_KEY, maxRetries: 0 });
    let limited: unknown;
    for (let i = 0; i < 25 && !limited; i++) limited = await impatient.jobs.list({ kind: 'scrape' }).then(() => undefined, (e: unknown) => e);
    assert.ok(limited instanceof RateLimitError, String(limited));
    assert.equal(limited.status, 429);
    assert.ok(limited.retryAfter! >= 0 && limited.retryAfter! <= 60);
    assert.ok(limited.requestId);
    // With retries (the default) the SDK waits out that Retry-After before asking again. The
    // wait (up to the rest of the minute) is cut short here by the call's signal, the moment
    // the SDK says how long it will wait: the first part of this test saw a waited retry succeed.
    retries.length = 0;
    const stop = new AbortController();
    const patient = new Trawl({ apiUrl: system.baseUrl, apiKey: FREE_API_KEY, onRetry: (r) => { retries.push(r); stop.abort(new Error('retry seen')); } });
    await assert.rejects(patient.getScrape(third.id, { signal: stop.signal }), /retry seen/);
    assert.equal(retries[0]?.error.code, 'RATE_LIMITED');
    assert.ok(retries[0]!.delayMs >= retries[0]!.error.retryAfter! * 1000, `waits ${retries[0]!.delayMs} ms for Retry-After ${retries[0]!.error.retryAfter}`);
  });

  test('changes(): a URL\'s observations for the key, across pages of the answer', async () => {
    const tracked = await trawl.scrape(site.url('/a'), { formats: ['changeTracking'] });
    assert.ok(tracked.changeTracking?.observed);
    const seen = [];
    for await (const o of trawl.changes(site.url('/a'))) seen.push(o);
    assert.ok(seen.length >= 2, 'the earlier scrapes of /a and this one');
    assert.equal(seen.at(-1)!.jobId, tracked.id);
    assert.equal(seen.at(-1)!.changeStatus, tracked.changeTracking!.changeStatus);
  });

  test('the SDK\'s routes, parameters and fields match the live /openapi.json', async () => {
    const doc = await (await fetch(`${system.baseUrl}/openapi.json`)).json() as OpenApi;
    const problems: string[] = [];
    const names = (xs: Iterable<string>): string => [...xs].sort().join(',');
    const resolve = (s: Schema | undefined): Schema | undefined => s?.$ref ? doc.components?.schemas?.[s.$ref.split('/').at(-1)!] : s;
    const props = (s: Schema | undefined): string[] => Object.keys(resolve(s)?.properties ?? {});
    const covered = new Set<string>();
    for (const [name, route] of Object.entries(ROUTES)) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()];
      covered.add(`${route.method} ${route.path}`);
      if (!op) { problems.push(`${name}: ${route.method} ${route.path} is not in the API`); continue; }
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      if (names(query) !== names('query' in route ? route.query : [])) problems.push(`${name}: query ${names(query)} ≠ SDK ${names('query' in route ? route.query : [])}`);
      const body = props(op.requestBody?.content?.['application/json']?.schema);
      if (names(body) !== names('body' in route ? route.body : [])) problems.push(`${name}: body ${names(body)} ≠ SDK ${names('body' in route ? route.body : [])}`);
      const answer = resolve(op.responses?.[String(route.ok)]?.content?.['application/json']?.schema);
      const fields = props(answer?.type === 'array' ? answer.items : answer);
      if (names(fields) !== names(route.fields)) problems.push(`${name}: ${route.ok} fields ${names(fields)} ≠ SDK ${names(route.fields)}`);
      if (name === 'getCrawl' || name === 'getBatch') {
        const itemFields = props(resolve(answer?.properties?.['data'])?.items);
        const sdk = name === 'getCrawl' ? CRAWL_PAGE_FIELDS : BATCH_PAGE_FIELDS;
        if (names(itemFields) !== names(sdk)) problems.push(`${name}: page fields ${names(itemFields)} ≠ SDK ${names(sdk)}`);
      }
    }
    // Every API route is in the SDK, except the image and document downloads (their URLs are in the results).
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const key = `${method.toUpperCase()} ${path}`;
        if (path.startsWith('/api/v1/') && !covered.has(key) && !/screenshot|\/document$/.test(path)) problems.push(`${key} is not in the SDK`);
      }
    }
    assert.deepEqual(problems, []);
  });
});

interface Schema { $ref?: string; type?: string; properties?: Record<string, Schema>; items?: Schema }
interface OpenApi {
  paths: Record<string, Record<string, {
    parameters?: { in: string; name: string }[];
    requestBody?: { content?: Record<string, { schema?: Schema }> };
    responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  }>>;
  components?: { schemas?: Record<string, Schema> };
}
