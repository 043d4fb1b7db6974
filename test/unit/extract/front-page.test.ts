// front-page.ts: a site's front page is no article. Given a page whose declarations and
// structure say nothing but "article", when its URL is the site's root, then it gets the
// site-page layout ('service') that keeps its several sections.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { isFrontPage } from '../../../packages/extract/src/front-page.js';

function run(html: string, url: string) {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) });
}

// Sections of real prose: by its structure alone this reads as an article.
const section = (name: string): string =>
  `<section><h2>${name}</h2><p>${name} is where our team spends most of its week, working with clients from the first sketch to the launch, and staying with them for the years after it, as the service grows with their business and its customers.</p></section>`;
const page = `<html><head><meta property="og:type" content="website"><title>Acme studio</title></head><body><nav><a href="/">Home</a><a href="/work">Work</a></nav><main><h1>Acme studio</h1>${['Brand design', 'Web development', 'Hosting and care'].map(section).join('')}</main><footer><a href="/privacy">Privacy</a></footer></body></html>`;

describe('a site\'s front page', () => {
  test('given the root URL (with or without a tracking query), then it is a front page; a path under it is not', () => {
    assert.equal(isFrontPage('https://acme.example/'), true);
    assert.equal(isFrontPage('https://acme.example'), true);
    assert.equal(isFrontPage('https://acme.example/?srsltid=abc'), true);
    assert.equal(isFrontPage('https://acme.example/studio'), false);
    // A query key that names the content: a WordPress post served from the root.
    assert.equal(isFrontPage('https://blog.acme.example/?p=2895'), false);
    assert.equal(isFrontPage('not a url'), false);
  });

  test('given a front page whose structure reads as an article, then it is a service page with every section kept', () => {
    const out = run(page, 'https://acme.example/');
    assert.equal(out.metadata.pageType, 'service');
    for (const name of ['Brand design', 'Web development', 'Hosting and care']) assert.match(out.markdown ?? '', new RegExp(name));
  });

  test('given the same page under a path of its own, then it stays an article', () => {
    assert.equal(run(page, 'https://acme.example/studio/our-year').metadata.pageType, 'article');
  });

  test('given a front page that is a run of story cards, then it stays a listing', () => {
    const cards = Array.from({ length: 8 }, (_, i) => `<div class="card"><h3><a href="/story/${i}">Story number ${i}</a></h3><span>A short line about story ${i} and its news.</span></div>`).join('');
    assert.equal(run(`<html><body><h1>Acme news</h1><section>${cards}</section></body></html>`, 'https://news.acme.example/').metadata.pageType, 'listing');
  });
});
