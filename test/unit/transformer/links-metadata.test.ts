import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidUrlError } from '../../../shared/src/domain/errors.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { transformPage, type TransformOutput } from '../../../services/transformer/src/index.js';

function run(html: string, url = 'https://example.com/blog/post?id=1', statusCode?: number): TransformOutput {
  return transformPage({ html, url, statusCode, options: normalizeScrapeOptions({ formats: ['links'] }) });
}

describe('links', () => {
  test('absolute http(s), page order, deduplicated, from the whole page', () => {
    const out = run(`<html><body>
      <nav><a href="/">Home</a><a href="/about">About</a></nav>
      <article><p>Read <a href="other">other</a> and <a href="https://ext.example.org/a?b=1">ext</a>
        and <a href="/about">About again</a> and <a href="/about#team">Team</a></p>
        <map><area href="/area-link" alt="area"></map></article>
      <footer><a href="//cdn.example.net/file.pdf">pdf</a><a href="HTTP://EXAMPLE.COM/Home">Case</a></footer>
    </body></html>`);
    assert.deepEqual(out.links, [
      'https://example.com/',
      'https://example.com/about',
      'https://example.com/blog/other',
      'https://ext.example.org/a?b=1',
      'https://example.com/area-link',
      'https://cdn.example.net/file.pdf',
      'http://example.com/Home',
    ]);
  });

  test('fragment-only, javascript:, mailto:, tel:, data: and empty hrefs are dropped', () => {
    const out = run(`<html><body><a href="#top">top</a><a href=" #x">x</a><a href="javascript:void(0)">js</a>
      <a href="mailto:a@example.com">mail</a><a href="tel:+123">tel</a><a href="data:text/html,hi">data</a>
      <a href="">empty</a><a>none</a><a href="ftp://example.com/f">ftp</a><a href="/ok">ok</a></body></html>`);
    assert.deepEqual(out.links, ['https://example.com/ok']);
  });

  test('a <base href> is the base for relative links', () => {
    const out = run('<html><head><base href="https://static.example.com/v2/"></head><body><a href="x">x</a><a href="/y">y</a></body></html>');
    assert.deepEqual(out.links, ['https://static.example.com/v2/x', 'https://static.example.com/y']);
  });

  test('links are computed whatever the content options (onlyMainContent, includeTags)', () => {
    const html = '<html><body><nav><a href="/nav">n</a></nav><main><p id="p">text <a href="/in">in</a></p></main></body></html>';
    const out = transformPage({
      html,
      url: 'https://example.com/',
      options: normalizeScrapeOptions({ formats: ['markdown'], includeTags: ['#p'] }),
    });
    assert.deepEqual(out.links, ['https://example.com/nav', 'https://example.com/in']);
  });
});

describe('metadata', () => {
  test('title and description from <title> and <meta name=description>, plus the cheap extras', () => {
    const out = run(
      `<!DOCTYPE html><html lang="en-GB" dir="ltr"><head>
        <title>  Post   title | Blog </title>
        <meta name="description" content="  A short   summary. ">
        <meta property="og:title" content="OG title"><meta property="og:description" content="OG description">
        <meta property="og:site_name" content="The Blog"><meta property="og:image" content="/img/cover.png">
        <meta property="og:type" content="article"><meta name="author" content="Ada">
        <meta property="article:published_time" content="2024-05-01T10:00:00Z">
        <meta name="keywords" content="a, b"><meta name="robots" content="index,follow">
        <link rel="canonical" href="/blog/post"><link rel="shortcut icon" href="/favicon.ico">
      </head><body><svg><title>icon</title></svg><p>x</p></body></html>`,
      'https://example.com/blog/post?id=1',
      200,
    );
    assert.deepEqual(out.metadata, {
      title: 'Post title | Blog',
      description: 'A short summary.',
      sourceUrl: 'https://example.com/blog/post?id=1',
      statusCode: 200,
      language: 'en-GB',
      canonicalUrl: 'https://example.com/blog/post',
      siteName: 'The Blog',
      ogTitle: 'OG title',
      ogDescription: 'OG description',
      image: 'https://example.com/img/cover.png',
      author: 'Ada',
      publishedTime: '2024-05-01T10:00:00Z',
      keywords: 'a, b',
      robots: 'index,follow',
      favicon: 'https://example.com/favicon.ico',
      type: 'article',
      dir: 'ltr',
      // A page of one short line is a page, not an empty shell (docs/api.md "Page outcome").
      pageOutcome: 'ok',
      pageOutcomeEvidence: ['status 200', 'text 2 chars'],
      pageType: 'article',
      // The Open Graph tags again, all of them, as metadata.structured (structured-data.test.ts).
      structured: {
        jsonLd: [],
        openGraph: {
          'og:title': 'OG title', 'og:description': 'OG description', 'og:site_name': 'The Blog', 'og:image': 'https://example.com/img/cover.png',
          'og:type': 'article', 'article:published_time': '2024-05-01T10:00:00Z',
        },
        twitter: {},
        microdata: [],
      },
    });
  });

  test('title and description fall back to og:title / og:description, then twitter:', () => {
    const og = run('<html><head><meta property="og:title" content="OG T"><meta property="og:description" content="OG D"></head><body></body></html>');
    assert.equal(og.metadata.title, 'OG T');
    assert.equal(og.metadata.description, 'OG D');
    const twitter = run('<html><head><meta name="twitter:title" content="TW T"><meta name="twitter:description" content="TW D"></head><body></body></html>');
    assert.equal(twitter.metadata.title, 'TW T');
    assert.equal(twitter.metadata.description, 'TW D');
  });

  test('a <title> that is only the site name gives way to og:title', () => {
    const out = run('<html><head><title> Example Magazine </title><meta property="og:site_name" content="Example Magazine"><meta property="og:title" content="The real headline"></head><body></body></html>');
    assert.equal(out.metadata.title, 'The real headline');
    assert.equal(out.metadata.siteName, 'Example Magazine');
  });

  test('no title anywhere: the first <h1>, else empty strings; no statusCode when unknown', () => {
    const h1 = run('<html><body><h1> Heading  one </h1></body></html>');
    assert.equal(h1.metadata.title, 'Heading one');
    const none = run('<p>fragment only</p>');
    assert.equal(none.metadata.title, '');
    assert.equal(none.metadata.description, '');
    assert.equal(none.metadata.statusCode, undefined);
    assert.equal(none.metadata.sourceUrl, 'https://example.com/blog/post?id=1');
  });

  test('language falls back to content-language and og:locale', () => {
    assert.equal(run('<html><head><meta http-equiv="content-language" content="de"></head><body></body></html>').metadata.language, 'de');
    assert.equal(run('<html><head><meta property="og:locale" content="pt_BR"></head><body></body></html>').metadata.language, 'pt-BR');
  });

  test('a page URL that is not absolute http(s) is an InvalidUrlError', () => {
    assert.throws(() => run('<p>x</p>', 'not a url'), InvalidUrlError);
    assert.throws(() => run('<p>x</p>', 'file:///etc/passwd'), InvalidUrlError);
  });
});
