// The fetch engines through the whole system: a crawl of a site that mixes server-rendered
// and JavaScript-built pages gets every page's content under `auto` (static pages over
// HTTP once the host is verified, JS pages rendered); a host that turns dynamic mid-crawl
// goes back to the browser; engine http serves the served HTML without Chromium; browser
// options with engine http are a 400.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AUTO_POLICY_DEFAULTS, identicalAgreements } from '../../services/fetcher/src/engine/host-profile.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);
const PROSE = 'This paragraph is served by the server in the HTML itself, so a plain HTTP GET sees exactly what a browser shows. ';

const staticPage = (n: string, links: string[]): string => `<!doctype html><html><head><title>Static ${n}</title></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>Static ${n}</h1><p>${PROSE.repeat(3)}</p><p>Unique static content ${n}.</p></article></main></body></html>`;

/** Content built in the browser: an empty app root filled by a script (React-style). */
const appPage = (n: string, links: string[]): string => `<!doctype html><html><head><title>App ${n}</title></head><body>
<div id="root"></div>
<script>
  const links = ${JSON.stringify(links)}.map((l) => '<a href="' + l + '">' + l + '</a>').join(' ');
  document.getElementById('root').innerHTML = '<nav>' + links + '</nav><main><article><h1>App ${n}</h1><p>${PROSE.repeat(3)}</p><p>Unique app content ${n}.</p></article></main>';
</script></body></html>`;

/** A page whose server HTML looks complete, but a script adds a paragraph (no CSR marker). */
const hydratedPage = (n: string, links: string[]): string => `<!doctype html><html><head><title>Page ${n}</title></head><body>
<nav>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</nav>
<main><article><h1>Page ${n}</h1><p>${PROSE.repeat(3)}</p><p class="later"></p></article></main>
<script src="/late.js"></script></body></html>`;
const LATE_JS = `document.querySelector('p.later').textContent = 'Added by script: ' + document.title + '.';`;

describe('fetch engines end to end', () => {
  let mixed: TestSite;
  let turning: TestSite;
  let system: TrawlSystem;

  before(async () => {
    // Mixed site: a hub linking 12 static and 6 app pages; each page links to the next ones.
    const statics = Array.from({ length: 12 }, (_, i) => `/s/${i}`);
    const apps = Array.from({ length: 6 }, (_, i) => `/app/${i}`);
    mixed = await startSite({ '/': staticPage('hub', [...statics, ...apps]) });
    statics.forEach((p, i) => mixed.route(p, staticPage(String(i), [statics[(i + 1) % statics.length]!, apps[i % apps.length]!])));
    apps.forEach((p, i) => mixed.route(p, appPage(String(i), [statics[i]!])));
    mixed.route('/plain.txt', { body: 'just text', contentType: 'text/plain' });
    mixed.route('/pixel.svg', { body: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text y="9">svg text</text></svg>', contentType: 'image/svg+xml' });

    turning = await startSite({ '/late.js': { body: LATE_JS, contentType: 'text/javascript' } });
    system = await startSystem({ env: { ENGINE_AUTO_RECHECK_EVERY: '3', CRAWL_MAX_IN_FLIGHT: '2' } });
  });
  after(async () => {
    await system?.stop();
    await Promise.all([mixed?.close(), turning?.close()]);
  });

  async function crawl(body: Record<string, unknown>): Promise<any> {
    const created = await system.api('POST', '/api/v1/crawl', body);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    return { id: created.body.id, job: await system.poll(`/api/v1/crawl/${created.body.id}`, (b: any) => FINAL.has(b.status), 180_000) };
  }

  async function fetchedEvents(kind: string, id: string): Promise<any[]> {
    return (await jobEvents(kind, id)).filter((e) => e.event === 'page_fetched');
  }

  async function jobEvents(kind: string, id: string): Promise<any[]> {
    const out: any[] = [];
    let after = 0;
    for (;;) {
      const res = await system.api('GET', `/api/v1/${kind}/${id}/events?after=${after}&limit=1000`);
      assert.equal(res.status, 200);
      out.push(...res.body.events);
      if (!res.body.next) break;
      after = res.body.events.at(-1).seq;
    }
    return out;
  }

  test('auto crawl of a mixed site: every page right, static pages over HTTP once verified, app pages rendered', async () => {
    const { id, job } = await crawl({ url: mixed.url('/'), limit: 50, maxDepth: 3 });
    assert.equal(job.status, 'COMPLETED');
    assert.equal(job.data.length, 19, 'hub + 12 static + 6 app pages');
    for (const page of job.data) {
      const path = new URL(page.url).pathname;
      const n = path.split('/').pop();
      if (path.startsWith('/app/')) {
        assert.match(page.markdown, new RegExp(`Unique app content ${n}\\.`), `${path} has its script-built content`);
        assert.equal(page.metadata.engine, 'browser', `${path} was rendered`);
      } else if (path.startsWith('/s/')) {
        assert.match(page.markdown, new RegExp(`Unique static content ${n}\\.`), path);
      }
    }
    const events = await fetchedEvents('crawl', id);
    assert.equal(events.length, 19);
    for (const e of events) {
      assert.equal(e.data.engine.requested, 'auto', 'crawl pages default to auto');
      assert.equal(e.data.timings.engine, undefined, 'the engine used is recorded once, in engine.used');
      assert.ok(['browser', 'http'].includes(e.data.engine.used));
      assert.equal(typeof e.data.engine.reason, 'string');
    }
    const isApp = (e: any): boolean => new URL(e.data.finalUrl).pathname.startsWith('/app/');
    const verified = events.filter((e) => e.data.engine.verification && !isApp(e));
    // K = 3 (the default); the static pages are identical both ways, so K - 1 verifications teach the host.
    assert.ok(verified.length >= identicalAgreements(AUTO_POLICY_DEFAULTS), 'the host was verified before HTTP was trusted');
    assert.ok(verified.every((e) => e.data.engine.verification.agreed), JSON.stringify(verified.map((e) => e.data.engine)));
    // Markers are hints: the first app page was verified, and its disagreement taught the host that the marker matters.
    const appChecks = events.filter((e) => e.data.engine.verification && isApp(e));
    assert.ok(appChecks.length >= 1 && appChecks.every((e) => !e.data.engine.verification.agreed), JSON.stringify(appChecks.map((e) => e.data.engine)));
    const overHttp = events.filter((e) => e.data.engine.used === 'http');
    assert.ok(overHttp.length >= 5, `static pages were served over HTTP (${overHttp.length})`);
    assert.ok(overHttp.every((e) => /verified static/.test(e.data.engine.reason)));
    const apps = events.filter((e) => e.part && /client-side rendering markers .*empty app root #root/.test(e.data.engine.reason));
    assert.ok(apps.length >= 1, 'app pages went to the browser for their markers');
    // One request per page: verified and rendered pages were given the GET's response.
    for (const page of job.data) {
      const path = new URL(page.url).pathname;
      assert.equal(mixed.hits.get(path), 1, `${path} was requested once (${page.metadata.engine})`);
    }
  });

  test('a host that turns dynamic mid-crawl goes back to the browser', async () => {
    const paths = Array.from({ length: 30 }, (_, i) => `/p/${i}`);
    // The site turns dynamic once it has answered 8 page requests (about a quarter of the
    // crawl): a static host's drift checks double their interval after each agreeing one
    // (1 page in 3, 6, 12, 24 here), so a later flip could fall past the crawl's last check.
    let served = 0;
    let flippedAt = 0;
    const serve = (i: number) => (_req: unknown, res: import('node:http').ServerResponse) => {
      const dynamic = ++served > 8;
      if (dynamic && !flippedAt) flippedAt = Date.now();
      const links = [paths[(i + 1) % paths.length]!, paths[(i + 2) % paths.length]!];
      const body = dynamic ? hydratedPage(String(i), links) : staticPage(String(i), links);
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 60);
    };
    turning.route('/', staticPage('start', paths));
    paths.forEach((p, i) => turning.route(p, serve(i)));

    const created = await system.api('POST', '/api/v1/crawl', { url: turning.url('/'), limit: 31, maxDepth: 10, scrapeOptions: { formats: ['markdown'] } });
    assert.equal(created.status, 202);
    const id = created.body.id;
    const job = await system.poll(`/api/v1/crawl/${id}`, (b: any) => FINAL.has(b.status), 180_000);
    assert.equal(job.status, 'COMPLETED');
    assert.equal(job.data.length, 31);

    const all = await jobEvents('crawl', id);
    const events = all.filter((e) => e.event === 'page_fetched');
    const disagreement = events.find((e) => e.data.engine.verification && !e.data.engine.verification.agreed);
    assert.ok(disagreement, `a check saw the difference: ${JSON.stringify(events.map((e) => e.data.engine.reason))}`);
    // Pages whose attempt started after the disagreement was known: a page already loading
    // over HTTP when the check answered was decided before it, and may finish after it.
    const startedAt = new Map(all.filter((e) => e.event === 'page_started').map((e) => [e.part, e.seq]));
    const later = events.filter((e) => (startedAt.get(e.part) ?? e.seq) > disagreement.seq);
    assert.ok(later.length > 0, 'pages were fetched after the host turned');
    for (const e of later) assert.equal(e.data.engine.used, 'browser', `after the disagreement: ${e.data.engine.reason}`);
    assert.ok(later.some((e) => /host renders with JavaScript/.test(e.data.engine.reason)), 'the host profile sent pages to the browser');
    // Every page fetched after the disagreement has the script's paragraph.
    const byPart = new Map(job.data.map((d: any) => [new URL(d.url).pathname, d]));
    const laterPaths = new Set(later.map((e) => new URL(e.data.finalUrl).pathname));
    for (const path of laterPaths) {
      assert.match((byPart.get(path) as any).markdown, /Added by script: Page \d+\./, `${path} (after the flip at ${flippedAt})`);
    }
  });

  test('engine http: the served HTML, no browser; non-HTML fails with a clear error', async () => {
    const created = await system.api('POST', '/api/v1/scrape', { url: mixed.url('/app/0'), engine: 'http', formats: ['markdown', 'rawHtml'] });
    assert.equal(created.status, 202, JSON.stringify(created.body));
    const job = await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status));
    assert.equal(job.status, 'COMPLETED');
    assert.equal(job.metadata.engine, 'http');
    assert.equal(job.timings.engine, 'http');
    assert.match(job.rawHtml, /<div id="root"><\/div>/, 'rawHtml is the served HTML, scripts not run');
    assert.doesNotMatch(job.markdown ?? '', /Unique app content/);

    const image = await system.api('POST', '/api/v1/scrape', { url: mixed.url('/pixel.svg'), engine: 'http' });
    const failed = await system.poll(`/api/v1/scrape/${image.body.id}`, (b: any) => FINAL.has(b.status));
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.error.code, 'NETWORK_ERROR');
    assert.match(failed.error.message, /image\/svg\+xml: the http engine reads only HTML/);
  });

  test('a scrape defaults to the browser; auto renders a non-HTML page and serves a text document over HTTP', async () => {
    const created = await system.api('POST', '/api/v1/scrape', { url: mixed.url('/s/1') });
    const job = await system.poll(`/api/v1/scrape/${created.body.id}`, (b: any) => FINAL.has(b.status));
    assert.equal(job.metadata.engine, 'browser');
    const events = await fetchedEvents('scrape', created.body.id);
    assert.deepEqual([events[0].data.engine.requested, events[0].data.engine.reason], ['browser', 'engine browser']);

    const image = await system.api('POST', '/api/v1/scrape', { url: mixed.url('/pixel.svg'), engine: 'auto' });
    const rendered = await system.poll(`/api/v1/scrape/${image.body.id}`, (b: any) => FINAL.has(b.status));
    assert.equal(rendered.status, 'COMPLETED');
    assert.equal(rendered.metadata.engine, 'browser');
    const [fetched] = await fetchedEvents('scrape', image.body.id);
    assert.match(fetched.data.engine.reason, /HTTP fetch not-html/);

    // Text is a document (docs/api.md "Documents"): passed through, over HTTP, no browser.
    const text = await system.api('POST', '/api/v1/scrape', { url: mixed.url('/plain.txt'), engine: 'auto' });
    const done = await system.poll(`/api/v1/scrape/${text.body.id}`, (b: any) => FINAL.has(b.status));
    assert.equal(done.status, 'COMPLETED');
    assert.equal(done.markdown, 'just text');
    const [textFetched] = await fetchedEvents('scrape', text.body.id);
    assert.deepEqual([textFetched.data.engine.used, textFetched.data.engine.reason], ['http', 'document']);
  });

  test('engine http with options that need a browser is a 400 naming them', async () => {
    const cases: [string, Record<string, unknown>, RegExp, string][] = [
      ['/api/v1/scrape', { url: mixed.url('/'), engine: 'http', formats: ['markdown', 'screenshot'] }, /screenshot format/, 'engine'],
      ['/api/v1/scrape', { url: mixed.url('/'), engine: 'http', actions: [{ type: 'wait', milliseconds: 10 }], waitFor: 100 }, /actions, waitFor need one/, 'engine'],
      ['/api/v1/scrape', { url: mixed.url('/'), engine: 'http', darkMode: true }, /darkMode needs one/, 'engine'],
      ['/api/v1/crawl', { url: mixed.url('/'), scrapeOptions: { engine: 'http', viewport: { width: 500 } } }, /viewport needs one/, 'scrapeOptions.engine'],
      ['/api/v1/batch/scrape', { urls: [mixed.url('/')], engine: 'http', formats: ['screenshot'] }, /screenshot format/, 'engine'],
    ];
    for (const [path, body, message] of cases) {
      const res = await system.api('POST', path, body);
      assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.match(res.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.match(res.body.detail, /engine "http" fetches without a browser/);
      assert.match(res.body.detail, message);
    }
    const bad = await system.api('POST', '/api/v1/scrape', { url: mixed.url('/'), engine: 'fast' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.detail, /engine/);
  });

  test('the OpenAPI document has the engine option on scrape, crawl scrapeOptions and batch', async () => {
    const doc = await (await fetch(`${system.baseUrl}/openapi.json`)).json() as any;
    const body = (path: string) => doc.paths[path].post.requestBody.content['application/json'].schema;
    for (const schema of [body('/api/v1/scrape'), body('/api/v1/crawl').properties.scrapeOptions, body('/api/v1/batch/scrape')]) {
      assert.deepEqual(schema.properties.engine.enum, ['browser', 'http', 'auto']);
      assert.match(schema.properties.engine.description, /auto for crawl and batch pages/);
    }
  });
});
