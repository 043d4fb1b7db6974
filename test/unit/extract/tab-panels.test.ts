// Tab panels on a product page (clean.ts revealTabPanels): a shop shows one panel of its tab
// set (the description) and hides the others (specifications, care) with an inline style
// until a click. On a product page the hidden panels beside a shown one of their kind are
// content; elsewhere, and for a lone hidden element, hidden stays hidden.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const DESCRIPTION =
  'A hand-thrown stoneware mug with a matte glaze, made in small batches in our Leeds studio. Each one is a little different, ' +
  'and each is fired twice so that the glaze holds up to years of daily coffee.';

function page(head: string, extra = ''): string {
  return `<html><head><title>Stoneware mug | Shop</title>${head}</head><body><nav><a href="/">Home</a></nav>
    <main><h1>Stoneware mug</h1><p class="price">£24.00</p>
    <div class="tabs"><ul class="tab-list"><li>Description</li><li>Specifications</li><li>Care</li></ul>
      <div class="tab-pane active"><p>${DESCRIPTION}</p></div>
      <div class="tab-pane" style="display: none"><table><tr><td>Capacity</td><td>350 millilitres</td></tr><tr><td>Weight</td><td>410 grams</td></tr></table></div>
      <div class="tab-pane" style="display:none"><p>Rinse with warm water; the glaze keeps its colour in the dishwasher's top rack.</p></div>
    </div>${extra}</main></body></html>`;
}

function markdown(html: string, url = 'https://shop.example/products/stoneware-mug'): string {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown ?? '';
}

describe('tab panels on a product page', () => {
  test('given a product page with its specifications and care panels hidden beside the shown description, then every panel is kept', () => {
    const md = markdown(page('<meta property="og:type" content="product">', '<div class="modal" style="display:none"><p>Sign up for ten per cent off your first order today.</p></div>'));
    assert.match(md, /fired twice/);
    assert.match(md, /350 millilitres/);
    assert.match(md, /top rack/);
    // A lone hidden element (a pop-up) is no tab panel.
    assert.ok(!md.includes('ten per cent off'), md);
  });

  test('given the same tabs on a page that is no product, then the hidden panels stay hidden', () => {
    const md = markdown(page('<meta property="og:type" content="article">'), 'https://blog.example/2026/05/mugs');
    assert.match(md, /fired twice/);
    assert.ok(!md.includes('350 millilitres'), md);
  });
});
