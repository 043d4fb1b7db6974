// The markdown's first heading is the page's own headline, never "Title | Site": the
// page's <h1> when it has one, else the <title> without the site's name, which goes to
// metadata.siteName (og:site_name first, else the <title>'s suffix).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { splitTitle } from '../../../packages/extract/src/metadata.js';

const PROSE = [
  'This guide walks through installing the command line tool, creating a first project and running it on a local machine.',
  'Every step shows the command to type and what it prints, so that a mistake is easy to spot before moving on to the next one.',
  'When something fails, the troubleshooting section at the end lists the usual causes and how to check each of them quickly.',
].map((p) => `<p>${p}</p>`).join('');

function run(head: string, body: string) {
  const html = `<!DOCTYPE html><html><head>${head}</head><body><nav><a href="/a">Install</a> <a href="/b">Usage</a></nav>${body}</body></html>`;
  return extractPage({ html, url: 'https://docs.example.com/intro', options: normalizeScrapeOptions({ formats: ['markdown'] }) });
}

function firstHeading(md: string): string | undefined {
  return /^# (.*)$/m.exec(md)?.[1];
}

describe('the heading of the markdown', () => {
  test("a docs page keeps its own <h1> (\"Introduction\"), not Readability's title with the site's name", () => {
    const out = run('<title>Introduction | Acme</title>', `<main><h1>Introduction</h1>${PROSE}</main>`);
    assert.equal(firstHeading(out.markdown!), 'Introduction', out.markdown);
    assert.equal(out.metadata.siteName, 'Acme');
    assert.equal(out.metadata.title, 'Introduction | Acme', 'metadata.title stays the page <title>');
  });

  test('an <h1> outside the content container is still the heading', () => {
    const out = run('<title>Getting started · Acme Docs</title>', `<header class="page-head"><h1>Getting started</h1></header><main><article>${PROSE}</article></main>`);
    assert.equal(firstHeading(out.markdown!), 'Getting started', out.markdown);
    assert.equal(out.metadata.siteName, 'Acme Docs');
  });

  test('a page without an <h1> gets its <title> without the site name; og:site_name wins and splits a dash too', () => {
    const noH1 = run('<title>Release notes | Acme Docs</title>', `<main>${PROSE}</main>`);
    assert.equal(firstHeading(noH1.markdown!), 'Release notes', noH1.markdown);
    const og = run('<title>Setup - Acme</title><meta property="og:site_name" content="Acme">', `<main>${PROSE}</main>`);
    assert.equal(firstHeading(og.markdown!), 'Setup', og.markdown);
    assert.equal(og.metadata.siteName, 'Acme');
  });
});

describe("a site's logo set in an <h1>", () => {
  const blogUrl = 'https://blog.example.com/2024/05/plex-podcasts/';
  function blogPage(header: string, post: string) {
    const html = `<!DOCTYPE html><html><head><title>Example Blog » Archive » Adding podcasts to Plex</title></head><body>${header}<div class="post">${post}</div></body></html>`;
    return extractPage({ html, url: blogUrl, options: normalizeScrapeOptions({ formats: ['markdown'] }) });
  }
  const header = '<div id="sitename"><h1><a href="https://blog.example.com">Example Blog</a></h1><h2>The blog of relentless malfunctions, written on weekends by two friends!</h2></div>';

  test("given a logo <h1> linking home above a post, when extracted, then its tagline is no lead and the site's name is not the heading", () => {
    const out = blogPage(header, `<h2><a href="${blogUrl}">Adding podcasts to Plex</a></h2>${PROSE}`);
    assert.ok(!out.markdown!.includes('relentless malfunctions'), out.markdown);
    assert.notEqual(firstHeading(out.markdown!), 'Example Blog', out.markdown);
    assert.ok(out.markdown!.includes('troubleshooting section'), out.markdown);
  });

  test('given a logo <h1> with rel="home" and the headline\'s <h1>, when extracted, then the headline is the heading', () => {
    const html = `<!DOCTYPE html><html><head><title>How to keep your data safe - Tech News</title></head><body><header><h1><a href="" rel="home">Tech News</a></h1><h2>Tests of phones and cameras, and all the trends of digital life, explained every day by our independent editors.</h2></header><article><h1>How to keep your data safe</h1>${PROSE}</article></body></html>`;
    const out = extractPage({ html, url: 'https://technews.example.com/88130484/keep-data-safe/', options: normalizeScrapeOptions({ formats: ['markdown'] }) });
    assert.equal(firstHeading(out.markdown!), 'How to keep your data safe', out.markdown);
    assert.ok(!out.markdown!.includes('independent editors'), out.markdown);
  });

  test("given a headline <h1> that links to the post itself, when extracted, then it stays the heading and its lead is kept", () => {
    const lead = '<p class="standfirst">Podcasts live outside the music library, so Plex needs a small plugin and one setting to find them.</p>';
    const out = blogPage('', `<header><h1><a href="${blogUrl}">Adding podcasts to Plex</a></h1>${lead}</header><div class="body">${PROSE}</div>`);
    assert.equal(firstHeading(out.markdown!), 'Adding podcasts to Plex', out.markdown);
    assert.ok(out.markdown!.includes('needs a small plugin'), out.markdown);
  });
});

describe('splitTitle', () => {
  test('splits at the last unambiguous separator; a dash only with the site name known', () => {
    assert.deepEqual(splitTitle('Introduction | Acme'), { heading: 'Introduction', site: 'Acme' });
    assert.deepEqual(splitTitle('A | B | Acme'), { heading: 'A | B', site: 'Acme' });
    assert.deepEqual(splitTitle('Brexit - what happens next'), { heading: 'Brexit - what happens next' });
    assert.deepEqual(splitTitle('Acme — Pricing', 'Acme'), { heading: 'Pricing', site: 'Acme' });
    assert.deepEqual(splitTitle('Pricing - Acme', 'acme'), { heading: 'Pricing', site: 'Acme' });
    assert.deepEqual(splitTitle('Plain headline'), { heading: 'Plain headline' });
  });
});
