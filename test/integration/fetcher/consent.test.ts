// The consent option against real Chromium (docs/api.md "Page outcome"): a page behind a
// OneTrust-style wall and one with Usercentrics' dialog in a shadow root, each with a script
// that does what the platform's SDK does on a click (records the choice, removes the dialog,
// shows the page). Reject is clicked by default choice; accept when asked; nothing without.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

const ARTICLE = '<main id="content" hidden><h1>The article</h1><p>Behind the wall.</p></main>';
const ONETRUST = `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk"><p>We value your privacy</p>
<button id="onetrust-reject-all-handler">Reject All</button><button id="onetrust-accept-btn-handler">Accept All Cookies</button></div></div>
<script>
  const answer = (choice) => { document.getElementById('onetrust-consent-sdk').remove(); content.hidden = false; document.body.dataset.consent = choice; };
  document.getElementById('onetrust-reject-all-handler').addEventListener('click', () => answer('rejected'));
  document.getElementById('onetrust-accept-btn-handler').addEventListener('click', () => answer('accepted'));
</script></body></html>`;
/** A server-rendered wall with its whole policy text (more than twice the article's): answering it takes most of the page's text away, on purpose. */
const POLICY = `<p>${'We and our 812 partners store and access information on your device for personalised ads and content, measurement and audience research. '.repeat(6)}</p>`;
const LONG_WALL = ONETRUST.replace('<p>We value your privacy</p>', `<p>We value your privacy</p>${POLICY}`)
  .replace('<p>Behind the wall.</p>', `<p>${'Behind the wall, the article itself. '.repeat(8)}</p>`);
const USERCENTRICS = `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}<div id="usercentrics-root"></div>
<script>
  const root = document.getElementById('usercentrics-root').attachShadow({ mode: 'open' });
  root.innerHTML = '<div><p>Datenschutz</p><button data-testid="uc-deny-all-button">Ablehnen</button><button data-testid="uc-accept-all-button">Alle akzeptieren</button></div>';
  const answer = (choice) => { document.getElementById('usercentrics-root').remove(); content.hidden = false; document.body.dataset.consent = choice; };
  root.querySelector('[data-testid="uc-deny-all-button"]').addEventListener('click', () => answer('rejected'));
  root.querySelector('[data-testid="uc-accept-all-button"]').addEventListener('click', () => answer('accepted'));
</script></body></html>`;

describe('consent option', () => {
  let site: TestSite;
  let capturer: PageCapturer;
  before(async () => {
    site = await startSite({ '/onetrust': ONETRUST, '/usercentrics': USERCENTRICS, '/long-wall': LONG_WALL });
    capturer = await startCapturer();
  });
  after(async () => {
    await capturer?.stop();
    await site?.close();
  });

  test('reject clicks OneTrust\'s reject button: the wall is gone and the article shows', async () => {
    const { html } = await capturer.capture(site.url('/onetrust'), opts({ consent: 'reject' }), ctx());
    assert.match(html, /data-consent="rejected"/);
    assert.doesNotMatch(html, /onetrust-banner-sdk/);
    assert.doesNotMatch(html, /<main id="content" hidden/);
  });

  test('accept clicks the accept button; without the option the wall stays', async () => {
    assert.match((await capturer.capture(site.url('/onetrust'), opts({ consent: 'accept' }), ctx())).html, /data-consent="accepted"/);
    const untouched = (await capturer.capture(site.url('/onetrust'), opts(), ctx())).html;
    assert.match(untouched, /onetrust-banner-sdk/);
    assert.doesNotMatch(untouched, /data-consent/);
  });

  test('a wall answered takes most of the text away on purpose: the page after the answer stands, not an earlier DOM', async () => {
    const result = await capturer.capture(site.url('/long-wall'), opts({ consent: 'reject' }), ctx());
    assert.match(result.html, /data-consent="rejected"/);
    assert.doesNotMatch(result.html, /812 partners/);
    assert.equal(result.domSnapshot, undefined);
  });

  test('Usercentrics\' buttons are found in its shadow root', async () => {
    assert.match((await capturer.capture(site.url('/usercentrics'), opts({ consent: 'reject' }), ctx())).html, /data-consent="rejected"/);
  });
});
