// One scrape through every service, as a user does it: POST, poll, read the markdown.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { COHOSTED_SERVICES, SERVICES } from '../../scripts/services.js';
import { freePortRange } from '../support/nats-server.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Trawl test article</title>
<meta name="description" content="A page served by the test.">
</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article>
<h1>Deep sea trawling</h1>
<p>Trawling is a method of fishing that involves pulling a fishing net through the water behind one or more boats.
The net used for trawling is called a trawl. This paragraph is long enough for a readability algorithm to keep it.</p>
<p>Here is a <a href="/docs/nets">link to nets</a> and some more text so that the article has substance and is
clearly the main content of this page rather than boilerplate navigation or footer material.</p>
<h2>Kinds of trawls</h2>
<ul><li>Bottom trawls</li><li>Midwater trawls</li></ul>
</article></main>
<footer>Footer text that is not main content</footer>
</body></html>`;

describe('scrape end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let healthBase: number;

  before(async () => {
    site = await startSite({
      '/article': ARTICLE,
      '/slow': { body: '<html><body>late</body></html>', delayMs: 10_000 },
      '/cached': ARTICLE,
      '/shared': { body: ARTICLE, delayMs: 1500 },
    });
    healthBase = await freePortRange(SERVICES.length);
    system = await startSystem({ env: { HEALTH_PORT: String(healthBase) } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  test('a page served on 127.0.0.1 comes back as markdown with metadata and timings', async () => {
    const created = await system.api('POST', '/api/v1/scrape', { url: site.url('/article') });
    assert.equal(created.status, 202);
    assert.equal(created.body.status, 'PENDING');
    const seen = new Set<string>();
    const job = await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => {
      seen.add(b.status);
      return b.status === 'COMPLETED' || b.status === 'FAILED';
    });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.equal(job.fromCache, false);
    assert.match(job.markdown, /# Deep sea trawling/);
    assert.match(job.markdown, /Trawling is a method of fishing/);
    assert.match(job.markdown, /\[link to nets\]\(http:\/\/127\.0\.0\.1:\d+\/docs\/nets\)/);
    assert.doesNotMatch(job.markdown, /Footer text/);
    assert.equal(job.metadata.title, 'Trawl test article');
    assert.equal(job.metadata.description, 'A page served by the test.');
    for (const k of ['queueWaitMs', 'fetchMs', 'renderMs', 'transformMs', 'screenshotMs', 'totalMs']) {
      assert.ok(Number.isInteger(job.timings[k]) && job.timings[k] >= 0, `${k}=${job.timings[k]}`);
    }
    assert.ok(job.timings.totalMs >= job.timings.fetchMs);
    assert.ok(job.createdAt && job.completedAt);
    assert.equal(job.html, undefined, 'only the requested format is returned');
    // The history shows it, for this key only.
    const list = await system.api('GET', '/api/v1/scrape');
    assert.equal(list.body[0].id, created.body.id);
    assert.equal(list.body[0].status, 'COMPLETED');
    const others = await system.api('GET', '/api/v1/scrape', undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.equal(others.body.some((j: any) => j.id === created.body.id), false);
    // Audit replay: the job's whole history, in order, from the log itself.
    const history = await system.api('GET', `/api/v1/scrape/${created.body.id}/events`);
    assert.equal(history.status, 200);
    assert.deepEqual(history.body.events.map((e: any) => e.event), ['page_requested', 'page_started', 'page_fetched', 'page_completed']);
    assert.equal(history.body.events[0].data.url, site.url('/article'));
    const seqs = history.body.events.map((e: any) => e.seq);
    assert.deepEqual(seqs, [...seqs].sort((a: number, b: number) => a - b));
    const paged = await system.api('GET', `/api/v1/scrape/${created.body.id}/events?limit=2`);
    assert.equal(paged.body.events.length, 2);
    const rest = await fetch(paged.body.next, { headers: { authorization: `Bearer ${system.apiKey}` } }).then((r) => r.json());
    assert.deepEqual(rest.events.map((e: any) => e.event), ['page_fetched', 'page_completed']);
    const foreign = await system.api('GET', `/api/v1/scrape/${created.body.id}/events`, undefined, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.equal(foreign.status, 404);
  });

  test('onlyMainContent false keeps the whole body', async () => {
    const { body } = await system.api('POST', '/api/v1/scrape', { url: site.url('/article'), onlyMainContent: false });
    const job = await system.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED');
    assert.equal(job.status, 'COMPLETED');
    assert.match(job.markdown, /Footer text/);
  });

  test('failures end FAILED with a spec error code', async () => {
    const refused = await system.api('POST', '/api/v1/scrape', { url: 'http://127.0.0.1:1/nothing' });
    const timeout = await system.api('POST', '/api/v1/scrape', { url: site.url('/slow'), timeout: 1000 });
    const dns = await system.api('POST', '/api/v1/scrape', { url: 'http://no-such-host.invalid/' });
    const a = await system.poll(`/api/v1/scrape/${refused.body.id}`, (b: any) => b.status === 'FAILED' || b.status === 'COMPLETED');
    const b = await system.poll(`/api/v1/scrape/${timeout.body.id}`, (x: any) => x.status === 'FAILED' || x.status === 'COMPLETED');
    const c = await system.poll(`/api/v1/scrape/${dns.body.id}`, (x: any) => x.status === 'FAILED' || x.status === 'COMPLETED');
    assert.equal(a.status, 'FAILED');
    assert.equal(a.error.code, 'NETWORK_ERROR');
    assert.equal(b.status, 'FAILED');
    assert.equal(b.error.code, 'PAGE_TIMEOUT');
    assert.equal(c.error.code, 'NETWORK_ERROR');
    for (const job of [a, b, c]) assert.equal(typeof job.error.message, 'string');
  });

  test('an identical request is answered from the cache at once, without a browser load', async () => {
    const first = await system.api('POST', '/api/v1/scrape', { url: site.url('/cached'), formats: ['markdown', 'links'] });
    assert.equal(first.status, 202);
    const done = await system.poll(`/api/v1/scrape/${first.body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED');
    assert.equal(done.status, 'COMPLETED');
    const hits = site.hits.get('/cached');

    const again = await system.api('POST', '/api/v1/scrape', { url: site.url('/cached'), formats: ['links', 'markdown'], timeout: 60000 });
    assert.equal(again.status, 200);
    assert.equal(again.body.fromCache, true);
    assert.equal(again.body.status, undefined, 'the cache-hit response has no status field');
    assert.notEqual(again.body.id, first.body.id);
    assert.equal(again.body.url, site.url('/cached'));
    assert.equal(again.body.markdown, done.markdown);
    assert.deepEqual(again.body.links, done.links);
    assert.deepEqual(again.body.metadata, done.metadata);
    assert.equal(site.hits.get('/cached'), hits, 'no second page load');

    const job = (await system.api('GET', `/api/v1/scrape/${again.body.id}`)).body;
    assert.equal(job.status, 'COMPLETED');
    assert.equal(job.fromCache, true);
    assert.equal(job.markdown, done.markdown, 'GET of a cache hit shows the cached content');
    const listed = (await system.api('GET', '/api/v1/scrape?limit=5')).body.find((j: any) => j.id === again.body.id);
    assert.equal(listed.fromCache, true);

    // Another key shares the cache for a request without custom headers.
    const other = await system.api('POST', '/api/v1/scrape', { url: site.url('/cached'), formats: ['markdown', 'links'] }, { authorization: `Bearer ${OTHER_API_KEY}` });
    assert.equal(other.body.fromCache, true);
    // Options that change the result are a different cache entry.
    const different = await system.api('POST', '/api/v1/scrape', { url: site.url('/cached'), formats: ['markdown', 'links'], onlyMainContent: false });
    assert.equal(different.status, 202);
    const withHeaders = await system.api('POST', '/api/v1/scrape', { url: site.url('/cached'), formats: ['markdown', 'links'], headers: { 'x-variant': 'b' } });
    assert.equal(withHeaders.status, 202);
  });

  test('identical requests that arrive while the first runs share one browser load', async () => {
    const first = await system.api('POST', '/api/v1/scrape', { url: site.url('/shared') });
    const followers = await Promise.all([1, 2].map(() => system.api('POST', '/api/v1/scrape', { url: site.url('/shared') })));
    const ids = [first.body.id, ...followers.map((f) => f.body.id)];
    for (const f of followers) assert.equal(f.status, 202);
    const jobs = await Promise.all(ids.map((id) => system.poll(`/api/v1/scrape/${id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED')));
    for (const job of jobs) {
      assert.equal(job.status, 'COMPLETED');
      assert.equal(job.fromCache, false);
      assert.equal(job.markdown, jobs[0].markdown);
    }
    assert.equal(site.hits.get('/shared'), 1, 'one browser load for three requests');
  });

  test('every service serves Prometheus metrics on its HEALTH_PORT, labelled with its name (the service host: all its names)', async () => {
    // The light services share the service host's process and registry (scripts/service-host.ts).
    const label = (name: (typeof SERVICES)[number]): string => ((COHOSTED_SERVICES as readonly string[]).includes(name) ? COHOSTED_SERVICES.join('+') : name);
    // After the scrapes above: the pipeline's consumers have handled messages.
    const metricsOf = async (name: (typeof SERVICES)[number]): Promise<string> => {
      const res = await fetch(`http://127.0.0.1:${healthBase + SERVICES.indexOf(name)}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      return res.text();
    };
    /** The value of the sample `name` whose labels include `labels` (label order is free). */
    const sample = (text: string, name: string, labels: Record<string, string>): number => {
      for (const line of text.split('\n')) {
        const m = /^([a-z_:]+)\{(.*)\} (\S+)$/.exec(line);
        if (!m || m[1] !== name) continue;
        const have = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
        if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
      }
      return NaN;
    };
    for (const name of SERVICES) {
      const text = await metricsOf(name);
      assert.ok(sample(text, 'trawl_process_resident_memory_bytes', { service: label(name) }) > 0, name);
    }
    const fetcher = await metricsOf('fetcher');
    assert.ok(sample(fetcher, 'trawl_messages_handled_total', { consumer: 'fetcher-scrape', outcome: 'ack', service: 'fetcher' }) >= 3, fetcher.slice(0, 3000));
    assert.equal(sample(fetcher, 'trawl_browser_launches', { service: 'fetcher' }), 1);
    assert.ok(sample(fetcher, 'trawl_message_handle_seconds_count', { consumer: 'fetcher-scrape' }) >= 3);
    const transformer = await metricsOf('transformer');
    assert.ok(sample(transformer, 'trawl_messages_handled_total', { consumer: 'transformer', outcome: 'ack' }) >= 3);
    const projector = await metricsOf('projector');
    assert.ok(sample(projector, 'trawl_projector_applied_seq', { service: label('projector') }) > 0);
    assert.ok(sample(projector, 'trawl_projector_lag_events', { service: label('projector') }) >= 0);
    const gateway = await metricsOf('gateway');
    assert.ok(sample(gateway, 'trawl_http_requests_total', { method: 'POST', route: '/api/v1/scrape', status_code: '202' }) >= 1, gateway.slice(0, 3000));
    assert.ok(sample(gateway, 'trawl_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/scrape/:id' }) >= 1);
    // The other key's 404 above was counted by its code.
    assert.ok(sample(gateway, 'trawl_http_problems_total', { code: 'NOT_FOUND' }) >= 1);
    // The metrics are not on the public API port.
    assert.equal((await fetch(`${system.baseUrl}/metrics`)).status, 404);
  });
});
