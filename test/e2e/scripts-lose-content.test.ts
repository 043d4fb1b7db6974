// Pages whose served HTML holds the content but whose scripts, running in Chromium, lose it
// (docs/api.md "Scripts that lose the content", docs/architecture.md "Pages whose scripts
// misbehave"): the result is the content the server sent, and `metadata.domSnapshot` says
// which earlier DOM it was read from; content served only in <noscript> is read even when
// short. A real app shell (nothing served but, at most, a notice asking for JavaScript)
// still fails PAGE_EMPTY, and a page whose scripts add the content keeps the render.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { scrapeToEnd } from '../support/scrape-job.js';

const POSTS = [1, 2, 3, 4].map((n) => `<article class="topic-post"><p class="author">member${n}</p><p>Post ${n}: ${'pair the zigbee coordinator first, then add the door sensors one at a time. '.repeat(4)}</p></article>`).join('');
const TOPIC = `<h1>Where should a smart home start?</h1>${POSTS}`;
/** A notice a script puts over the page while it is parsed: more than a line, not the content. */
const NOTICE = `<div id="app"><p>${'This site works best with the latest version of your browser. '.repeat(4)}</p></div>`;
const page = (title: string, body: string): string => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

const ROUTES: Record<string, string> = {
  // Discourse's shape: a splash, the topic in <noscript> for readers without scripts, and a
  // boot script (here one that fails half-way) that removes the <noscript> view.
  '/splash': page('Where should a smart home start? - Forum', `<section id="d-splash"><div class="preloader-image"></div></section>`
    + `<noscript data-path="/t/1"><div id="main-outlet" role="main">${TOPIC}</div></noscript><section id="main"></section>`
    + `<script>document.querySelectorAll('noscript').forEach((n) => n.remove()); throw new Error('assets did not load');</script>`),
  // The body replaced while the page is parsed (before DOMContentLoaded) by a notice.
  '/replaced-while-parsed': page('Replaced', `<main>${TOPIC}</main><script>document.body.innerHTML = ${JSON.stringify(NOTICE)};</script>`),
  // The body cleared once the page has loaded (a client re-render whose API calls failed).
  '/cleared-after-load': page('Cleared', `<main>${TOPIC}</main><script>addEventListener('load', () => setTimeout(() => { document.body.innerHTML = '<div id="root"></div>'; }, 20));</script>`),
  // A short topic served only in <noscript> under a splash whose app never boots.
  '/short-topic': page('Does the coordinator need a hub? - Forum', `<section id="d-splash"><div class="preloader-image"></div></section>`
    + `<noscript><div id="main-outlet" role="main"><h1>Does the coordinator need a hub?</h1><p>My USB coordinator drops off after a day. Does it need a powered hub?</p>`
    + `<p>Yes: use a short extension cable and a powered hub, away from the USB 3 ports. Mine has run for months since.</p></div>`
    + `<p>Powered by Discourse, best viewed with JavaScript enabled</p></noscript><script src="/assets/missing-app.js"></script>`),
  // An app shell whose <noscript> only asks for JavaScript, at length.
  '/shell-with-notice': page('Plan your trip', `<noscript><h2>JavaScript is required</h2><p>This website requires JavaScript to work properly. Please enable JavaScript in your browser settings and reload the page.</p>`
    + `<p>If you need help, see our guide to enabling JavaScript in Chrome, Firefox, Safari and Edge. Without JavaScript, our trip planner cannot load.</p></noscript><div id="root"></div><script src="/missing-bundle.js"></script>`),
  // A real app shell: nothing served, nothing rendered (its bundle is missing).
  '/app-shell': page('App', `<div id="root"></div><script src="/missing-bundle.js"></script>`),
  // A page whose scripts add the content: the render is the content.
  '/rendered': page('Rendered', `<div id="root">Loading…</div><script>setTimeout(() => { document.getElementById('root').innerHTML = ${JSON.stringify(`<main>${TOPIC}</main>`)}; }, 20);</script>`),
};

describe('pages whose scripts lose the content the server sent (engine browser)', () => {
  let site: TestSite;
  let system: TrawlSystem;

  before(async () => {
    site = await startSite(ROUTES);
    system = await startSystem();
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  const scrape = (path: string): Promise<any> => scrapeToEnd(system, { url: site.url(path), formats: ['markdown'], onlyMainContent: true, engine: 'browser' });
  const assertTopic = (job: any): void => {
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.equal(job.metadata.pageOutcome, 'ok', JSON.stringify(job.metadata.pageOutcomeEvidence));
    for (let n = 1; n <= 4; n++) assert.match(job.markdown, new RegExp(`Post ${n}: pair the zigbee coordinator`), `post ${n} is in the markdown`);
  };

  test('a splash page whose script removed the <noscript> topic: the topic as served, metadata.domSnapshot "served"', async () => {
    const job = await scrape('/splash');
    assertTopic(job);
    assert.equal(job.metadata.domSnapshot, 'served');
  });

  test('a body replaced by a notice while the page is parsed: the content as served, not the notice', async () => {
    const job = await scrape('/replaced-while-parsed');
    assertTopic(job);
    assert.doesNotMatch(job.markdown, /latest version of your browser/);
    assert.equal(job.metadata.domSnapshot, 'served');
  });

  test('a body cleared after load: the DOM at DOMContentLoaded, metadata.domSnapshot "domcontentloaded"', async () => {
    const job = await scrape('/cleared-after-load');
    assertTopic(job);
    assert.equal(job.metadata.domSnapshot, 'domcontentloaded');
  });

  test('a real app shell is still empty: PAGE_EMPTY with its evidence', async () => {
    const job = await scrape('/app-shell');
    assert.equal(job.status, 'FAILED', JSON.stringify(job));
    assert.equal(job.error.code, 'PAGE_EMPTY');
    assert.ok(job.error.evidence.includes('spa: element #root'), job.error.evidence.join(' · '));
  });

  test('a short topic served only in <noscript> under a splash: the topic, not its title alone', async () => {
    const job = await scrape('/short-topic');
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job.error));
    assert.equal(job.metadata.pageOutcome, 'ok');
    assert.match(job.markdown, /Does it need a powered hub\?/);
    assert.match(job.markdown, /use a short extension cable and a powered hub/);
  });

  test('an app shell whose <noscript> only asks for JavaScript is empty: PAGE_EMPTY, saying so', async () => {
    const job = await scrape('/shell-with-notice');
    assert.equal(job.status, 'FAILED', JSON.stringify(job));
    assert.equal(job.error.code, 'PAGE_EMPTY');
    assert.ok(job.error.evidence.some((e: string) => e.startsWith('<noscript> only asks for JavaScript')), job.error.evidence.join(' · '));
  });

  test('a page whose scripts add the content keeps the render', async () => {
    const job = await scrape('/rendered');
    assertTopic(job);
    assert.doesNotMatch(job.markdown, /Loading…/);
    assert.equal(job.metadata.domSnapshot, undefined);
  });
});
