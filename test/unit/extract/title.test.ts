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
