// Web components: content a script puts in an open shadow root is what the browser shows, so
// the captured HTML keeps it, as declarative shadow roots (`<template shadowrootmode>`) the
// transformer opens in place (services/transformer/src/shadow-roots.ts). outerHTML, which
// page.content() uses, drops every shadow root.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openDeclarativeShadowRoots } from '../../../services/transformer/src/shadow-roots.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

const paragraphs = Array.from({ length: 5 }, (_, i) => `<p>Shadow paragraph ${i} of the story, which only the component's shadow root holds.</p>`).join('');
const COMPONENTS = `<!doctype html><html lang="en" data-theme="a &quot;b&quot;"><head><title>Components</title></head><body>
<story-page><span slot="byline">By the light DOM</span></story-page>
<script>
customElements.define('story-body', class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: 'open' }).innerHTML = ${JSON.stringify(paragraphs)}; }
});
customElements.define('story-page', class extends HTMLElement {
  connectedCallback() {
    this.attachShadow({ mode: 'open' }).innerHTML = '<h1>The component story</h1><slot name="byline"></slot><story-body></story-body>';
  }
});
customElements.define('secret-box', class extends HTMLElement {
  connectedCallback() { this.attachShadow({ mode: 'closed' }).innerHTML = '<p>Closed root text</p>'; }
});
document.body.append(document.createElement('secret-box'));
</script></body></html>`;

let site: TestSite;
let capturer: PageCapturer;
before(async () => {
  site = await startSite({ '/components': COMPONENTS, '/plain': '<!doctype html><html><body><p>No components here.</p></body></html>' });
  capturer = await startCapturer();
});
after(async () => {
  await capturer.stop();
  await site.close();
});

test('open shadow roots, nested ones too, are kept as declarative shadow roots; the root element keeps its attributes', async () => {
  const { html } = await capturer.capture(site.url('/components'), opts(), ctx());
  assert.match(html, /^<!DOCTYPE html><html lang="en" data-theme="a &quot;b&quot;">/);
  assert.equal(html.match(/<template shadowrootmode="open">/g)?.length, 2, 'story-page and the story-body inside it');
  const opened = openDeclarativeShadowRoots(html);
  assert.match(opened, /<h1>The component story<\/h1>/);
  for (let i = 0; i < 5; i++) assert.ok(opened.includes(`Shadow paragraph ${i} of the story`), `paragraph ${i}`);
  assert.match(opened, /By the light DOM/);
  assert.match(html, /<secret-box><\/secret-box>/, 'a closed root is the page\'s own: not serialized');
});

test('a page without shadow roots is serialized as before', async () => {
  const { html } = await capturer.capture(site.url('/plain'), opts(), ctx());
  assert.equal(html, '<!DOCTYPE html><html><head></head><body><p>No components here.</p></body></html>');
});
