// A documentation page that declares no kind and whose path says nothing (docs-page.ts): by
// a docs tool's generator, a docs host, a link to its own source file, or a manual's
// structure (code blocks, a previous/next pager, no publication date); and the articles and
// wiki pages that must stay what they are.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const typeOf = (html: string, url = 'https://example.org/library/json.html'): string | undefined =>
  extractPage({ html, url, options: normalizeScrapeOptions({ formats: [] as never[] }) }).metadata.pageType;

const prose = '<p>This module converts values to and from their text form, and keeps the order of the keys as they were written in the source.</p>';
const page = (head: string, body: string): string => `<html><head>${head}</head><body><main><h1>json: encoder and decoder</h1>${prose}${body}</main></body></html>`;
const generator = (name: string): string => `<meta name="generator" content="${name}">`;
const codeBlocks = (n: number): string => Array.from({ length: n }, (_, i) => `<pre><code>import json\nvalue_${i} = json.loads(text)</code></pre><p>Call <code>loads</code> with <code>text</code>, <code>strict</code>, <code>hook</code>, <code>pairs</code> and <code>cls</code>.</p>`).join('');
const pager = '<nav><a rel="prev" href="/library/csv.html">csv</a><a rel="next" href="/library/xml.html">xml</a></nav>';

describe('documentation by what the site says of itself', () => {
  test('given a docs tool\'s generator tag, then documentation; a CMS\'s tag says nothing', () => {
    for (const name of ['Docusaurus v3.5.2', 'mkdocs-1.6.1, mkdocs-material-9.5', 'Sphinx 7.2', 'GitBook (aa87699)', 'VitePress v1.3', 'rustdoc', 'Docutils 0.18.1', 'bookdown 0.37']) {
      assert.equal(typeOf(page(generator(name), ''), 'https://example.org/some/page'), 'documentation', name);
    }
    assert.equal(typeOf(page(generator('WordPress 6.8'), ''), 'https://example.org/some/page'), 'article');
  });

  test('given a docs host (docs., doc., readthedocs.io, gitbook.io, docs.rs), then documentation; learn. or developers. alone is not', () => {
    for (const url of ['https://docs.python.org/3/library/json.html', 'https://doc.rust-lang.org/book/ch04-01.html', 'https://requests.readthedocs.io/en/latest/user/advanced/', 'https://guide.gitbook.io/intro', 'https://docs.rs/tokio/latest/tokio/']) {
      assert.equal(typeOf(page('', ''), url), 'documentation', url);
    }
    assert.equal(typeOf(page('', ''), 'https://learn.example.edu/programs/skin-care'), 'article');
    assert.equal(typeOf(page('', ''), 'https://developers.example.org/story/25/12/19/grads'), 'article');
  });

  test('given an "Edit this page" link to the page\'s source file or Sphinx\'s _sources copy, then documentation', () => {
    assert.equal(typeOf(page('', '<a href="https://github.com/acme/site/edit/main/docs/json.md">Edit this page</a>')), 'documentation');
    assert.equal(typeOf(page('', '<a href="../_sources/library/json.rst.txt">Show source</a>')), 'documentation');
    // A link to a repository's code is no page source.
    assert.equal(typeOf(page('', '<a href="https://github.com/acme/lib/blob/main/src/json.ts">the code</a>')), 'article');
  });
});

describe('documentation by structure', () => {
  test('given code blocks and a previous/next pager and no date, then documentation', () => {
    assert.equal(typeOf(page('', codeBlocks(4) + pager)), 'documentation');
    assert.equal(typeOf(page('', codeBlocks(4) + '<div><a href="/a">Previous</a> <a href="/c">Next chapter</a></div>')), 'documentation');
  });

  test('given a blog post with code and a pager but a publication date, or code without a pager, then it stays an article', () => {
    assert.equal(typeOf(page('', `<time datetime="2025-12-15">15 December 2025</time>${codeBlocks(4)}${pager}`)), 'article');
    assert.equal(typeOf(page('', codeBlocks(4))), 'article');
    assert.equal(typeOf(page('', codeBlocks(1) + pager)), 'article');
  });

  test('given a wiki page, then documentation when it holds code (a software wiki) and not when it holds none (an encyclopedia)', () => {
    assert.equal(typeOf(page(generator('MediaWiki 1.45.1'), codeBlocks(2)), 'https://wiki.example.org/title/Systemd'), 'documentation');
    assert.equal(typeOf(page(generator('MediaWiki 1.46.0-wmf'), ''), 'https://encyclopedia.example.org/wiki/Lathe'), 'article');
  });

  test('what the page declares comes first: a NewsArticle or a forum engine keeps its kind', () => {
    const news = '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"x"}</script>';
    assert.equal(typeOf(page(news, codeBlocks(4) + pager), 'https://docs.example.org/news/1'), 'article');
    assert.equal(typeOf(page(generator('Discourse 3.2'), codeBlocks(4) + pager), 'https://docs.example.org/t/help/12'), 'forum');
  });
});
