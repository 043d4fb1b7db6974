// Docs sections named after their heading, and links and words inside sentences. A docs
// generator gives each section (or its heading) an id spelled from the heading's text, so a
// section about cookies, review comments or authorization carries an id that reads like a
// widget's name (heading-anchor.ts); a cross-reference link named after the plugin that made
// it ("autorefs") sits between the words of a sentence (running-text.ts); a word set as
// <a><code><span>cookies</span></code></a> is part of its sentence, not a line of its own
// (prune.ts isLine). Hand-made pages through extractPage with onlyMainContent, as the service runs it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { isHeadingAnchor } from '../../../packages/extract/src/heading-anchor.js';
import { isLinkInRunningText } from '../../../packages/extract/src/running-text.js';

const PROSE = [
  'The framework reads the request once and hands it to the view function, which returns the response that is sent back.',
  'Each route is registered with a decorator; the rule may hold variable parts that are passed to the function as arguments.',
  'Templates are rendered with the context given by the view, and autoescaping is on for every file that ends in html.',
  'The development server reloads the code when a file changes, which is convenient but not meant for production use.',
  'Configuration values are read from the environment first and from the settings file second, in that order of precedence.',
  'Blueprints group routes, templates and static files, so that a large application can be split into smaller parts.',
];
const p = (i: number): string => `<p>${PROSE[i % PROSE.length]}</p>`;

function markdown(body: string): string {
  const html = `<!DOCTYPE html><html><head><title>Quickstart — Flask</title></head><body>
    <nav class="sidebar"><a href="/a">Install</a><a href="/b">Tutorial</a><a href="/c">API</a></nav>
    <div class="body" role="main"><section id="quickstart"><h1>Quickstart</h1>${p(0)}${p(1)}${body}${p(4)}${p(5)}</section></div></body></html>`;
  return extractPage({ html, url: 'https://docs.example.com/quickstart/', options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown ?? '';
}

describe('docs sections whose id is their heading\'s anchor', () => {
  test('given sections titled "Cookies", "Respond to review comments" and "About authorization", when extracted, then each section stays with its text', () => {
    const md = markdown(
      `<section id="cookies"><h2>Cookies<a class="headerlink" href="#cookies">¶</a></h2><p>Cookies set by the view are sent with the response; read them from the request object, and sign them when they hold anything the user must not change.</p></section>` +
        `<section id="respond-to-review-comments"><h2>Respond to review comments<a class="headerlink" href="#respond-to-review-comments">¶</a></h2><p>Reviewers will ask for changes in their replies; answer every point, even when the answer is that you disagree and why.</p>${p(2)}</section>` +
        `<h2 id="about-authentication-and-authorization">About authentication and authorization<a href="#about-authentication-and-authorization">#</a></h2><p>Authentication checks who a user is; authorization checks what that user may do.</p>${p(3)}`,
    );
    assert.match(md, /^## Cookies¶?$/m, md);
    assert.ok(md.includes('sign them when they hold anything'), md);
    assert.match(md, /^## Respond to review comments¶?$/m, md);
    assert.ok(md.includes('answer every point'), md);
    assert.match(md, /^## About authentication and authorization#?$/m, md);
    assert.ok(md.includes('what that user may do'), md);
  });

  test('given such sections, when the html format is asked for, then they keep their ids (taken off for Readability only)', () => {
    const html = `<!DOCTYPE html><html><head><title>Guide</title></head><body><main><h1>Guide</h1>${p(0)}${p(1)}<section id="respond-to-review-comments"><h2>Respond to review comments</h2>${p(2)}${p(3)}</section>${p(4)}</main></body></html>`;
    const out = extractPage({ html, url: 'https://docs.example.com/guide', options: normalizeScrapeOptions({ formats: ['html'], onlyMainContent: true }) }).html ?? '';
    assert.ok(out.includes('id="respond-to-review-comments"'), out);
  });

  test('given a widget whose id is no heading anchor, when extracted, then it still goes by its name', () => {
    const md = markdown(`<div id="cookie-notice"><p>This site uses cookies to remember your settings. <a href="/privacy">Privacy policy</a></p></div>`);
    assert.ok(!md.includes('remember your settings'), md);
    assert.ok(md.includes(PROSE[5]!), md);
  });

  test('isHeadingAnchor: the id spells its own heading (or the heading that opens the element), nothing else', () => {
    const body = parseDocument(
      '<section id="cookies"><h2>Cookies¶</h2></section><h3 id="related-links">Related links</h3><div id="comments"><h2>Leave a reply</h2></div><div id="cookies2"><p>Cookies</p></div>',
    ).body;
    const [section, heading, comments, plain] = [...body.querySelectorAll('[id]')];
    assert.equal(isHeadingAnchor(section!, 'cookies'), true);
    assert.equal(isHeadingAnchor(heading!, 'related-links'), true);
    assert.equal(isHeadingAnchor(comments!, 'comments'), false);
    assert.equal(isHeadingAnchor(plain!, 'cookies2'), false);
  });
});

describe('links and words inside sentences', () => {
  test('given a cross-reference link named "autorefs" inside a sentence, when extracted, then the sentence keeps its word', () => {
    const md = markdown(`<p>To do so, the <a class="autorefs autorefs-internal" href="/api/fields/#Field"><code>Field()</code></a> function is used a lot, and behaves the same way as the standard library.</p>`);
    assert.ok(md.includes('the [`Field()`](https://docs.example.com/api/fields/#Field) function is used a lot'), md);
  });

  test('given a code word "cookies" inside a link inside a sentence, when extracted, then the word stays', () => {
    const md = markdown(`<p>To access cookies you can use the <a class="reference internal" href="/api/#Request.cookies"><code class="xref py"><span class="pre">cookies</span></code></a> attribute of the request.</p>`);
    assert.ok(md.includes('use the [`cookies`](https://docs.example.com/api/#Request.cookies) attribute of the request'), md);
  });

  test('isLinkInRunningText: a link between words, not a link alone in its block', () => {
    const body = parseDocument('<p>See <a class="author">Ann</a> for more.</p><div class="byline"><a class="author">Bob</a></div>').body;
    const [inSentence, alone] = [...body.querySelectorAll('a')];
    assert.equal(isLinkInRunningText(inSentence!), true);
    assert.equal(isLinkInRunningText(alone!), false);
  });
});
