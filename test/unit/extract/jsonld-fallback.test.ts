// Metadata from JSON-LD (beside <meta> and OpenGraph), and a transform that never fails on
// odd markup: the table-row crash of the dev set, and the candidate fallback chain.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { firstWorking } from '../../../packages/extract/src/extract-page.js';
import { extractPage } from '../../../packages/extract/src/index.js';

function transform(html: string) {
  return extractPage({ html, url: 'https://news.example.com/a/1', options: normalizeScrapeOptions({ formats: ['markdown'] }) });
}

const LD = {
  '@context': 'https://schema.org',
  '@graph': [
    { '@type': 'WebSite', name: 'Example News' },
    {
      '@type': ['NewsArticle'],
      headline: 'Harbour bridge opens',
      description: 'The bridge opened on Monday.',
      datePublished: '2024-05-06T08:00:00+02:00',
      dateModified: '2024-05-07T10:00:00+02:00',
      inLanguage: 'de-DE',
      author: [{ '@type': 'Person', name: 'Jane Doe' }, { '@type': 'Person', name: 'Max Muster' }, 'https://example.com/staff/x'],
      mainEntityOfPage: { '@id': 'https://news.example.com/harbour-bridge' },
    },
  ],
};

describe('metadata from JSON-LD', () => {
  test('fills author, dates, language, canonical URL and site name when <meta> lacks them; title and description keep the spec meaning', () => {
    const html = `<html><head><title>Harbour bridge opens | Example</title><meta name="description" content="From the meta tag">
      <script type="application/ld+json">${JSON.stringify(LD)}</script><script type="application/ld+json">{ broken json</script>
      </head><body><p>Text</p></body></html>`;
    const { metadata } = transform(html);
    assert.equal(metadata.title, 'Harbour bridge opens | Example');
    assert.equal(metadata.description, 'From the meta tag');
    assert.equal(metadata.author, 'Jane Doe, Max Muster');
    assert.equal(metadata.publishedTime, '2024-05-06T08:00:00+02:00');
    assert.equal(metadata.modifiedTime, '2024-05-07T10:00:00+02:00');
    assert.equal(metadata.language, 'de-DE');
    assert.equal(metadata.canonicalUrl, 'https://news.example.com/harbour-bridge');
    assert.equal(metadata.siteName, 'Example News');
  });

  test('<meta>, OpenGraph and <link rel=canonical> win over JSON-LD', () => {
    const html = `<html lang="en"><head><title>T</title><meta name="author" content="Meta Author">
      <meta property="article:published_time" content="2020-01-01"><link rel="canonical" href="/canonical">
      <script type="application/ld+json">${JSON.stringify(LD)}</script></head><body><p>Text</p></body></html>`;
    const { metadata } = transform(html);
    assert.equal(metadata.author, 'Meta Author');
    assert.equal(metadata.publishedTime, '2020-01-01');
    assert.equal(metadata.language, 'en');
    assert.equal(metadata.canonicalUrl, 'https://news.example.com/canonical');
  });

  test('a page without <title>, meta or <h1> takes its title and description from JSON-LD', () => {
    const { metadata } = transform(`<html><head><script type="application/ld+json">${JSON.stringify(LD)}</script></head><body><p>x</p></body></html>`);
    assert.equal(metadata.title, 'Harbour bridge opens');
    assert.equal(metadata.description, 'The bridge opened on Monday.');
  });
});

describe('odd markup never fails a transform', () => {
  test('text written straight into a table row (dev-set page that crashed the gfm plugin) is kept before the table', () => {
    // The row gets its text node through the DOM: an HTML5 parser would foster-parent it itself,
    // linkedom (what the transform parses with) keeps it in the row, as in the crashing page.
    const rows = '<tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr>';
    const document = parseDocument(`<html><body><table><tbody>${rows}</tbody></table></body></html>`);
    const tr = document.querySelector('tr')!;
    tr.insertBefore(document.createTextNode('stray text'), tr.firstChild);
    const md = transform(document.documentElement.outerHTML).markdown!;
    assert.match(md, /stray text/);
    assert.match(md, /\| a +\| b +\|/);
  });

  test('a candidate that throws gives way to the next, and the failure is recorded', () => {
    const fallbacks: string[] = [];
    const value = firstWorking(
      [
        { name: 'first', run: () => { throw new TypeError('node.getAttribute is not a function'); } },
        { name: 'second', run: () => 'ok' },
      ],
      fallbacks,
    );
    assert.equal(value, 'ok');
    assert.deepEqual(fallbacks, ['first failed: node.getAttribute is not a function']);
  });

  test('a page whose extraction works records no fallback', () => {
    assert.equal(transform('<html><body><p>Plain</p></body></html>').metadata.extractionFallbacks, undefined);
  });
});

