// card-page.ts: a page made of cards is a listing or a collection (a shop's category page)
// though it declares nothing, or declares og:type=article as shops and news homes do on
// every page; an article with cards beside its prose stays an article.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

// The hand rules' answer (no page-type classifier): these pages are too small to be like the
// pages it learned from, and page-type-model.test.ts tests where its answer is taken.
function pageType(html: string, url = 'https://shop.example/c/boots'): string | undefined {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: [] as never[] }) }, { pageTypeModel: null }).metadata.pageType;
}

const ogArticle = '<head><meta property="og:type" content="article"></head>';
// Product tiles: a per-item class (the template's id) beside the shared one, a price marked by class.
const tiles = (n: number): string =>
  Array.from({ length: n }, (_, i) => `<li class="tile tile-${i}"><a href="/p/${i}">Trail boot, model ${i}</a><span class="product-price">$${100 + i}.00</span></li>`).join('');
const teasers = (n: number): string =>
  Array.from({ length: n }, (_, i) => `<article class="teaser"><h3><a href="/story/${i}">Story number ${i} in the river</a></h3><span>By a reporter, a line about it.</span></article>`).join('');
const prose = (n: number): string =>
  Array.from({ length: n }, (_, i) => `<p>Paragraph ${i} of the review, long enough to be prose: it goes on about the boots with a sentence or two more, as reviews do on every page, with one more clause.</p>`).join('');
const intro = '<p>Boots for every trail, tested by our staff.</p><p>Free returns on every pair, and a long intro paragraph that stays under prose length.</p>';

describe('a page made of cards', () => {
  test('given og:type=article and priced tiles that hold most of the text, when typed, then it is a collection', () => {
    assert.equal(pageType(`<html>${ogArticle}<body><h1>Hiking boots</h1>${intro}<ul class="grid">${tiles(12)}</ul></body></html>`), 'collection');
  });

  test('given og:type=article and story teasers without prices, when typed, then it is a listing', () => {
    assert.equal(pageType(`<html>${ogArticle}<body><h1>Science</h1><div class="river">${teasers(10)}</div></body></html>`, 'https://news.example/'), 'listing');
  });

  test('given a page that declares nothing and priced tiles with an intro of prose under the share, when typed, then it is a collection', () => {
    assert.equal(pageType(`<html><body><h1>Hiking boots</h1>${prose(1)}<ul class="grid">${tiles(40)}</ul></body></html>`), 'collection');
  });

  test('given an article (og:type=article) with prose and a strip of priced tiles, when typed, then it stays an article', () => {
    assert.equal(pageType(`<html>${ogArticle}<body><h1>The best boots</h1>${prose(6)}<ul class="grid">${tiles(8)}</ul></body></html>`), 'article');
  });

  test('given fewer than six cards, when typed, then it is no card page', () => {
    assert.equal(pageType(`<html>${ogArticle}<body><h1>Boots</h1><ul class="grid">${tiles(5)}</ul></body></html>`), 'article');
  });

  test('given the cards in the site chrome (a mega menu), when typed, then they do not count', () => {
    assert.equal(pageType(`<html>${ogArticle}<body><nav><ul class="menu">${tiles(12)}</ul></nav><h1>Boots</h1>${prose(1)}<p>A short line.</p></body></html>`), 'article');
  });

  test('given a grid of bare links (a category menu the page does not mark as navigation), when typed, then it is no card page', () => {
    const links = Array.from({ length: 12 }, (_, i) => `<div class="navigation"><a href="/c/${i}">Living rooms and gardens, part ${i}</a></div>`).join('');
    assert.equal(pageType(`<html>${ogArticle}<body><h1>A home story</h1><div class="menu">${links}</div><p>A short caption.</p></body></html>`), 'article');
  });

  test('given the cards spread over several short runs (sidebars of recent posts and comments), when typed, then it is no card page', () => {
    const half = (cls: string): string => `<ul class="${cls}">${Array.from({ length: 6 }, (_, i) => `<li class="item"><a href="/${cls}/${i}">Entry ${i} of the ${cls}</a> with a line of its own text</li>`).join('')}</ul>`;
    assert.equal(pageType(`<html>${ogArticle}<body><h1>Getting organised</h1><p>A short intro.</p>${half('recent')}${half('comments')}${half('popular')}</body></html>`), 'article');
  });
});
