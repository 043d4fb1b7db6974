// The scrape options of the spec through the whole system (the fetcher's own integration
// tests cover each option in depth): every format at once, screenshots by URL and base64,
// actions with intermediate screenshots, tag filters, device and headers, and the failure
// codes a user sees for selectors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { OTHER_API_KEY, startSystem, type TrawlSystem } from '../support/system.js';

const PAGE = `<!doctype html><html lang="en"><head><title>Options page</title>
<meta property="og:description" content="Described by Open Graph"></head>
<body style="margin:0">
<nav id="nav">Navigation <a href="/nav-link">nav</a></nav>
<main id="main"><h1>Heading</h1>
<p>Main text with a <a href="/a">first link</a>, a <a href="/b#frag">second</a> and the <a href="/a">first again</a>.</p>
<table><tr><th>Col A</th><th>Col B</th></tr><tr><td>1</td><td>2</td></tr></table>
<div id="ad" class="ad">Advertisement</div>
<input id="q"><button id="more" onclick="document.getElementById('extra').textContent='Clicked content'">More</button>
<p id="extra"></p>
<script>document.title = document.title; window.addEventListener('DOMContentLoaded', () => {
  setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; d.textContent = 'Late arrival'; document.body.appendChild(d); }, 300);
});</script>
</main>
<div style="height:2000px"></div>
</body></html>`;

const done = (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED';

describe('scrape options end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  before(async () => {
    site = await startSite({ '/page': PAGE, '/ua': (req, res) => { res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title>${req.headers['user-agent']}</title></head><body><p>${req.headers['x-trawl-test'] ?? 'none'}</p></body></html>`); } });
    system = await startSystem({ env: { TRAWL_SERVICES: 'projector,fetcher,transformer,gateway' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  async function scrape(body: object): Promise<any> {
    const created = await system.api('POST', '/api/v1/scrape', body);
    assert.equal(created.status, 202, JSON.stringify(created.body));
    return system.poll(`/api/v1/scrape/${created.body.id}`, done);
  }

  test('all formats at once, with a screenshot served by URL to the same key only', async () => {
    const job = await scrape({ url: site.url('/page'), formats: ['markdown', 'html', 'rawHtml', 'links', 'screenshot'], excludeTags: ['.ad'], waitFor: '#late' });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.match(job.markdown, /\| Col A \| Col B \|/);
    assert.doesNotMatch(job.markdown, /Advertisement/);
    assert.match(job.html, /<table/);
    assert.doesNotMatch(job.html, /Advertisement/);
    assert.match(job.rawHtml, /Late arrival/, 'rawHtml is the DOM after scripts');
    assert.deepEqual(job.links.filter((l: string) => l.startsWith(site.origin)), [site.url('/nav-link'), site.url('/a'), site.url('/b')]);
    assert.equal(job.metadata.description, 'Described by Open Graph');
    const shot = job.screenshot;
    assert.deepEqual([shot.width, shot.height, shot.format], [1280, 800, 'png']);
    assert.ok(shot.fileSize > 1000);
    assert.ok(Date.parse(shot.expiresAt) > Date.now());
    assert.equal(shot.url, `${system.baseUrl}/api/v1/scrape/${job.id}/screenshot`);
    const image = await fetch(shot.url, { headers: { authorization: `Bearer ${system.apiKey}` } });
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    const bytes = Buffer.from(await image.arrayBuffer());
    assert.equal(bytes.length, shot.fileSize);
    assert.equal(bytes.subarray(1, 4).toString(), 'PNG');
    assert.equal((await fetch(shot.url, { headers: { authorization: `Bearer ${OTHER_API_KEY}` } })).status, 404);
    assert.equal((await fetch(shot.url)).status, 401);
  });

  test('base64 screenshots, jpeg, a viewport and actions with intermediate screenshots', async () => {
    const job = await scrape({
      url: site.url('/page'),
      formats: ['markdown', 'screenshot'],
      // The click's effect is a 15-character line at the end of <main>, which main-content
      // extraction rightly treats as a scrap: look for it in the whole page.
      onlyMainContent: false,
      viewport: { width: 800, height: 600 },
      screenshotOptions: { format: 'jpeg', quality: 50, response: 'base64' },
      actions: [
        { type: 'type', selector: '#q', text: 'hello' },
        { type: 'click', selector: '#more' },
        { type: 'screenshot' },
        { type: 'scroll', direction: 'down', amount: 500 },
        { type: 'wait', milliseconds: 50 },
        { type: 'press', key: 'End' },
        { type: 'screenshot' },
      ],
    });
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.match(job.markdown, /Clicked content/, 'the click ran before the capture');
    assert.match(job.screenshot.data, /^data:image\/jpeg;base64,\/9j\//);
    assert.equal(job.screenshot.url, undefined);
    assert.deepEqual([job.screenshot.width, job.screenshot.height], [800, 600]);
    assert.equal(job.actions.screenshots.length, 2);
    for (const s of job.actions.screenshots) assert.match(s.data, /^data:image\/jpeg;base64,/);
  });

  test('headers reach the page server; the mobile device sends a mobile user agent', async () => {
    const job = await scrape({ url: site.url('/ua'), device: 'mobile', headers: { 'X-Trawl-Test': 'sent' }, onlyMainContent: false });
    assert.equal(job.status, 'COMPLETED');
    assert.match(job.metadata.title, /Mobile/);
    assert.doesNotMatch(job.metadata.title, /Headless/);
    assert.match(job.markdown, /sent/);
  });

  test('a selector that never appears fails with SELECTOR_NOT_FOUND, naming the action', async () => {
    const wait = await scrape({ url: site.url('/page'), waitFor: '#never', timeout: 2000 });
    assert.equal(wait.status, 'FAILED');
    assert.equal(wait.error.code, 'SELECTOR_NOT_FOUND');
    const action = await scrape({ url: site.url('/page'), timeout: 3000, actions: [{ type: 'wait', milliseconds: 10 }, { type: 'click', selector: '#missing' }] });
    assert.equal(action.status, 'FAILED');
    assert.equal(action.error.code, 'SELECTOR_NOT_FOUND');
    assert.match(action.error.message, /action 1 \(click\)/);
    const clip = await scrape({ url: site.url('/page'), formats: ['screenshot'], screenshotOptions: { clip: '#nothing' }, timeout: 3000 });
    assert.equal(clip.error.code, 'SELECTOR_NOT_FOUND');
  });

  test('includeTags keeps only the selected elements', async () => {
    const job = await scrape({ url: site.url('/page'), includeTags: ['table'], onlyMainContent: false });
    assert.equal(job.status, 'COMPLETED');
    assert.match(job.markdown, /Col A/);
    assert.doesNotMatch(job.markdown, /Main text/);
  });
});
