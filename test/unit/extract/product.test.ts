// The product layout (product.ts): a shop page whose description and specifications sit in
// tabs the rendered page does not show gets them from its JSON-LD Product, as text, once;
// its customer reviews (named so, or typed schema.org/Review) are not the product's content.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const DESCRIPTION = 'A hand-thrown stoneware mug with a matte glaze, made in small batches in our Leeds studio. Each one is a little different.';
const product = {
  '@context': 'https://schema.org',
  '@type': 'Product',
  name: 'Stoneware mug',
  description: `<p>${DESCRIPTION}</p>`,
  additionalProperty: [
    { '@type': 'PropertyValue', name: 'Capacity', value: '350 ml' },
    { '@type': 'PropertyValue', name: 'Dishwasher safe', value: 'Yes, top rack' },
    { '@type': 'PropertyValue', name: 'Weight', value: '410 g' },
  ],
};

function page(shown: string): string {
  return `<html><head><title>Stoneware mug | Shop</title><script type="application/ld+json">${JSON.stringify(product)}</script></head><body>
    <nav><a href="/">Home</a> <a href="/mugs">Mugs</a></nav>
    <main><h1>Stoneware mug</h1><p class="price">£24.00</p><button>Add to basket</button>${shown}
    <div role="tablist"><button>Description</button><button>Specifications</button></div></main></body></html>`;
}

function markdown(html: string): string {
  return extractPage({ html, url: 'https://shop.example/products/stoneware-mug', options: normalizeScrapeOptions({ formats: ['markdown'] }) }).markdown ?? '';
}

describe('the product layout', () => {
  test('a description and specifications hidden in tabs come from the JSON-LD Product', () => {
    const md = markdown(page(''));
    assert.ok(md.includes(DESCRIPTION), md);
    assert.ok(!md.includes('<p>'), 'the JSON-LD markup is not copied');
    for (const spec of ['Capacity', '350 ml', 'Dishwasher safe', 'Yes, top rack', '410 g']) assert.ok(md.includes(spec), `${spec} missing: ${md}`);
  });

  test('a description the page shows is not added twice', () => {
    const md = markdown(page(`<section><h2>About this mug</h2><p>${DESCRIPTION}</p><table><tr><td>Capacity</td><td>350 ml</td></tr><tr><td>Weight</td><td>410 g</td></tr><tr><td>Dishwasher safe</td><td>Yes, top rack</td></tr></table></section>`));
    assert.equal(md.split(DESCRIPTION).length - 1, 1, md);
    assert.equal(md.split('350 ml').length - 1, 1, md);
  });

  test('an article with the same JSON-LD-free markup gets nothing added', () => {
    const html = page('').replace(/<script[\s\S]*?<\/script>/, '');
    assert.ok(!markdown(html).includes(DESCRIPTION));
  });

  test('a block the page renders again word for word (a promotion per layout) is kept once; short labels repeat freely', () => {
    const promo = '<p>Join the club today to get a bonus card when you spend fifty pounds.</p>';
    const shown = `${promo}<dl><dt>Size</dt><dd>Yes</dd><dt>Colour</dt><dd>Yes</dd></dl><div class="sticky">${promo}</div><div class="mobile">${promo}</div>`;
    const md = markdown(page(shown));
    assert.equal(md.split('Join the club today').length - 1, 1, md);
    assert.equal(md.split('\n').filter((line) => line.trim() === 'Yes').length, 2, md);
  });

  const REVIEWS = ['Bought two of these for the office and they have held up to daily use for a year now, no chips at all.',
    'The glaze is lovely but it is smaller than I expected, so check the capacity before you order one of these.',
    'Keeps coffee warm for longer than my old mug did and the handle is comfortable to hold for a long time.']
    .map((text, i) => `<div class="review-item"><p>${text} I would happily buy another one for a friend or two.</p><span>Buyer ${i}</span><span>${i + 1} months ago</span></div>`).join('');
  const SHOWN = `<section><h2>About this mug</h2><p>${DESCRIPTION}</p><table><tr><td>Capacity</td><td>350 ml</td></tr><tr><td>Weight</td><td>410 g</td></tr></table></section>`;

  test('customer reviews (a section named for them, or items typed schema.org/Review) are left out; the description and specifications stay', () => {
    for (const reviews of [`<section id="product-reviews"><h2>Customer reviews</h2>${REVIEWS}</section>`,
      `<section>${REVIEWS.replaceAll('class="review-item"', 'itemscope itemtype="https://schema.org/Review"')}</section>`]) {
      const md = markdown(page(`${SHOWN}${reviews}`));
      assert.ok(md.includes(DESCRIPTION), md);
      assert.ok(md.includes('350 ml'), md);
      assert.ok(!md.includes('held up to daily use') && !md.includes('Keeps coffee warm'), md);
    }
  });

  test('an article (a review of the mug) keeps a section named for reviews: only product pages drop them', () => {
    const html = `<html><head><title>Stoneware mug review</title></head><body><main><h1>Stoneware mug review</h1><p>${DESCRIPTION}</p><section class="reviews">${REVIEWS}</section></main></body></html>`;
    const md = extractPage({ html, url: 'https://blog.example/2026/05/mug-review', options: normalizeScrapeOptions({ formats: ['markdown'] }) }).markdown ?? '';
    assert.ok(md.includes('held up to daily use'), md);
  });
});
