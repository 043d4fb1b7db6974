// No empty result for a page with content: when the main-content pass comes back empty or
// tiny, the fallbacks return the page's readable text (transform.ts nonEmpty), and a
// <noscript> inside another no longer swallows the rest of the page (clean.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const POSTS = [
  'We upgraded the agent last night and since then it stops a few seconds after it starts, on two different servers.',
  'Same here on Windows Server 2022: the event log shows an access violation in the collector right after the upgrade.',
  'Rolling back to the previous release fixed it for us; the maintainers said a patch is coming in the next nightly build.',
  'The nightly build from Tuesday has the fix: both of our servers have been running it for a day now without a single crash.',
  'Thanks, confirmed on our side as well. Marking this thread as solved so that others find the answer quickly next time.',
];
const THREAD = `<h1>Agents crash after the upgrade</h1>${POSTS.map((p, i) => `<div class="post"><span class="author">user${i}</span><p>${p}</p></div>`).join('')}`;

function run(html: string, onlyMainContent = true) {
  return extractPage({ html, url: 'https://forum.example.com/t/1', options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent }) });
}

describe('no empty result for a page with content', () => {
  test('a tag manager <noscript> inside another does not swallow the page', () => {
    // As Chromium serializes <noscript><noscript>..</noscript></noscript> with scripts on:
    // the outer one's content is raw text up to the first </noscript>, the second is dropped.
    const html = `<html><head><title>Agents crash</title></head><body><noscript>
      <!-- tag manager --><noscript><iframe src="https://gtm.example.com/ns.html"></iframe></noscript>
      <main>${THREAD}</main></body></html>`;
    for (const only of [true, false]) {
      const md = run(html, only).markdown!;
      for (const post of POSTS) assert.ok(md.includes(post), `post lost (onlyMainContent ${only}):\n${md}`);
    }
  });

  test("a forum's crawler view in <noscript> is the content when the page shows nothing else", () => {
    const html = `<html><head><title>Agents crash - Community</title></head><body><div id="app"></div>
      <noscript data-path="/t/1"><header><a href="/">Community</a></header><div id="main-outlet" role="main">${THREAD}</div></noscript></body></html>`;
    const out = run(html);
    for (const post of POSTS) assert.ok(out.markdown!.includes(post), out.markdown);
    assert.ok(out.metadata.extractionFallbacks?.some((f) => f.startsWith('empty main content:')), JSON.stringify(out.metadata.extractionFallbacks));
  });

  test('an anti-flicker wrapper hidden by an inline style until scripts run is the content', () => {
    const html = `<html><head><title>Agents crash</title></head><body><div style="visibility:hidden;min-height:100vh"><main>${THREAD}</main></div></body></html>`;
    const md = run(html).markdown!;
    for (const post of POSTS) assert.ok(md.includes(post), md);
  });

  test('a page that hides only a few lines keeps them hidden', () => {
    const md = run('<html><body><div><p>Visible line</p><p hidden>secret</p></div></body></html>').markdown!;
    assert.ok(md.includes('Visible line'), md);
    assert.ok(!md.includes('secret'), md);
  });

  test('a script-built thread whose HTML holds only its title gets its description (the longest of description and og:description)', () => {
    const og = `${POSTS[0]} ${POSTS[1]}`;
    const html = `<html><head><title>Agents crash - Community</title><meta name="generator" content="Discourse 3.2"><meta name="description" content="${POSTS[0]!.slice(0, 60)}…"><meta property="og:description" content="${og}"></head>
      <body><div id="top"><a href="/">Community</a></div><section id="main"></section></body></html>`;
    const out = run(html);
    assert.ok(out.markdown!.includes(og), out.markdown);
    assert.equal(out.metadata.pageType, 'forum');
    assert.ok(out.metadata.extractionFallbacks?.includes('empty main content: page description'), JSON.stringify(out.metadata.extractionFallbacks));
  });

  test('an empty shop or company page (a bot wall, a script-built app) stays empty: its description is a blurb, not content', () => {
    const html = `<html><head><meta property="og:description" content="${POSTS[0]} ${POSTS[1]}"></head><body><div id="app"></div></body></html>`;
    const out = extractPage({ html, url: 'https://shop.example.com/item/1', options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) });
    assert.notEqual(out.metadata.pageType, 'forum');
    assert.ok(!out.markdown!.includes(POSTS[0]!), out.markdown);
  });

  test('a page with content of its own does not get its description added', () => {
    const out = run(`<html><head><meta property="og:description" content="A summary written for link previews only."></head><body><main>${THREAD}</main></body></html>`);
    assert.ok(!out.markdown!.includes('A summary written for link previews only.'), out.markdown);
  });
});
