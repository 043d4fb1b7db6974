// Whole cards (classify.ts): on a listing, a collection or a service page, a card of a run the
// block model kept in part (its linked title) gets back the lines the model dropped in it
// (blurb, maker, price), but not the lines many cards repeat (the template's widgets), and
// not on other page types or in runs the model dropped. The model here is a one-split model
// given as input: it keeps link text and drops the rest, as the shipped one does on the
// pages this rule is for.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { markBlocks, FEATURE_NAMES } from '../../../packages/extract/src/blocks.js';
import type { BlockModel } from '../../../packages/extract/src/block-model.js';
import { classifiedContent } from '../../../packages/extract/src/classify.js';
import type { PageType } from '../../../packages/extract/src/page-type.js';

/** Keeps a block whose text is mostly link text, drops any other. */
const LINKS_ONLY: BlockModel = {
  features: [...FEATURE_NAMES],
  base: 0,
  trees: [[FEATURE_NAMES.indexOf('linkDensity'), 0.5, -5, 5]],
  threshold: 0.5,
  addThreshold: 0.5,
};

/** The model's content of a hand-made page body (the rules' content: the whole body), as text with one block a line. */
function classified(body: string, pageType: PageType): string {
  const document = parseDocument(`<!DOCTYPE html><html><body>${body}</body></html>`);
  markBlocks(document.body);
  const full = document.body.cloneNode(true) as Element;
  const root = classifiedContent(full, document.body, pageType, LINKS_ONLY);
  return [...root.querySelectorAll('h1, h2, h3, p, li')].map((el) => (el.textContent ?? '').replace(/\s+/g, ' ').trim()).join('\n');
}

const MAKERS = ['Optoma', 'Hisense', 'Samsung', 'Epson', 'Sony', 'BenQ'];

/** A shop's grid: each card a linked title, its maker and price (text), and an "Add to wishlist" line every card repeats. */
function productGrid(): string {
  const card = (maker: string, i: number): string =>
    `<div class="product-card"><h3><a href="/p/${i}">${maker} laser projector model ${i}00 with 4K resolution</a></h3>` +
    `<p>Manufacturer: ${maker}, item number ${maker.toUpperCase()}-${i}00</p><p>Price: $${i},499.00 with free delivery</p>` +
    `<p>Add to wishlist and compare</p></div>`;
  return `<h1>Native 4K projectors</h1><div class="grid">${MAKERS.map(card).join('')}</div>`;
}

describe('whole cards on listings and collections', () => {
  test('given a collection whose cards the model kept by their titles, then each card keeps its maker and price lines', () => {
    const text = classified(productGrid(), 'collection');
    for (const [i, maker] of MAKERS.entries()) {
      assert.match(text, new RegExp(`${maker} laser projector model ${i}00`), text);
      assert.match(text, new RegExp(`Manufacturer: ${maker}, item number`), text);
      assert.match(text, new RegExp(`Price: \\$${i},499\\.00`), text);
    }
  });

  test('given the same grid, then the line every card repeats (the template\'s widget) stays out', () => {
    assert.doesNotMatch(classified(productGrid(), 'listing'), /Add to wishlist/);
  });

  test('given a run of cards the model dropped whole, then none of it comes back', () => {
    const notes = MAKERS.map((m, i) => `<div class="note"><p>${m} shipping note number ${i}: parcels leave the warehouse within two days <a href="/n/${i}">x</a></p></div>`).join('');
    const text = classified(`${productGrid()}<div class="notes">${notes}</div>`, 'collection');
    assert.doesNotMatch(text, /shipping note/);
    assert.match(text, /Manufacturer: Optoma/);
  });

  test('given a thread typed service whose posts are long, then the post lines the model dropped stay out', () => {
    const body = 'I replaced the lamp last week and the picture is dimmer than before, even on the brightest mode. '.repeat(6);
    const posts = MAKERS.map((m, i) => `<div class="post"><h3><a href="/u/${i}">${m}_fan, projector owners club member</a></h3><p>${body}</p><p>Member since 20${10 + i}, ${i}42 posts</p></div>`).join('');
    const text = classified(`<h1>Lamp replacement</h1><div class="thread">${posts}</div>`, 'service');
    assert.match(text, /Optoma_fan/);
    assert.doesNotMatch(text, /Member since/, text);
  });

  test('given an article with a list of links, then the model\'s choice stands', () => {
    const reading = MAKERS.map((m, i) => `<li class="ref"><a href="/r/${i}">${m} projector review ${i}</a><p>Our lab notes on ${m} brightness and colour, tested in a dark room</p></li>`).join('');
    const text = classified(`<h1>How we test projectors</h1><p>We measure brightness with a meter.</p><ul>${reading}</ul>`, 'article');
    assert.match(text, /Optoma projector review 0/);
    assert.doesNotMatch(text, /lab notes/, text);
  });

  test('given a product page with a grid of related products, then the model\'s choice stands', () => {
    const text = classified(productGrid(), 'product');
    assert.match(text, /Optoma laser projector model 000/);
    assert.doesNotMatch(text, /Manufacturer:|Price:/, text);
  });
});

/** Keeps a block whose text is not link text, drops a linked one: a card made of its linked title alone is dropped whole. */
const TEXT_ONLY: BlockModel = { ...LINKS_ONLY, trees: [[FEATURE_NAMES.indexOf('linkDensity'), 0.5, 5, -5]] };

function classifiedBy(model: BlockModel, body: string, pageType: PageType): string {
  const document = parseDocument(`<!DOCTYPE html><html><body>${body}</body></html>`);
  markBlocks(document.body);
  const full = document.body.cloneNode(true) as Element;
  const root = classifiedContent(full, document.body, pageType, model);
  return (root.textContent ?? '').replace(/\s+/g, ' ');
}

const RECIPES = ['Sticky salmon bites', 'Zucchini with parmesan', 'Honeynut squash', 'Chicken thighs', 'French toast sticks', 'Turkey bacon', 'Hard boiled eggs'];
const INTRO = '<div class="intro"><h1>Air fryer recipes</h1><p>Quick and healthy air fryer recipes, from breakfast to snacks to dinners, all tested at home.</p></div>';
/** A recipe index's cards: a thumbnail and a linked title, per-item classes as WordPress writes them. */
const recipeCards = (): string =>
  RECIPES.map((r, i) => `<article class="post-${i}0 post entry"><a href="/r/${i}"><img src="${i}.jpg" alt=""></a><h2><a href="/r/${i}">${r} in the air fryer</a></h2></article>`).join('');

describe('the item grid of a listing or a collection', () => {
  test('given a listing whose cards are linked titles the model dropped, and which hold most of its text, then every card comes back', () => {
    const text = classifiedBy(TEXT_ONLY, `${INTRO}<main>${recipeCards()}</main>`, 'listing');
    for (const r of RECIPES) assert.match(text, new RegExp(`${r} in the air fryer`), text);
  });

  test('given the same cards under a long text, in their own container, then a listing gets them back (every card has a heading) and a collection does not', () => {
    const story = `<div class="about">${'<p>Our test kitchen cooks every recipe three times in two different air fryers before it is published here.</p>'.repeat(8)}</div>`;
    assert.match(classifiedBy(TEXT_ONLY, `${INTRO}${story}<main>${recipeCards()}</main>`, 'listing'), /Sticky salmon bites/);
    assert.doesNotMatch(classifiedBy(TEXT_ONLY, `${INTRO}${story}<main>${recipeCards()}</main>`, 'collection'), /Sticky salmon bites/);
  });

  test('given a collection whose grid sits beside the intro the model kept, then its cards come back', () => {
    const story = '<p>Our test kitchen cooks every recipe three times in two different air fryers before it is published here.</p>'.repeat(8);
    const text = classifiedBy(TEXT_ONLY, `<main>${INTRO}${story}${recipeCards()}</main>`, 'collection');
    assert.match(text, /Turkey bacon in the air fryer/, text);
  });

  test('given a menu (items without headings) under a long text on a listing, then it stays out', () => {
    const story = `<div class="about">${'<p>Our test kitchen cooks every recipe three times in two different air fryers before it is published here.</p>'.repeat(8)}</div>`;
    const menu = `<div class="menu-wrap"><ul class="menu">${RECIPES.map((r, i) => `<li class="menu-item"><a href="/c/${i}">${r} category page</a></li>`).join('')}</ul></div>`;
    assert.doesNotMatch(classifiedBy(TEXT_ONLY, `${INTRO}${story}${menu}`, 'listing'), /category page/);
  });

  test('given an article or a service page with the same cards, then the model\'s choice stands', () => {
    assert.doesNotMatch(classifiedBy(TEXT_ONLY, `${INTRO}<main>${recipeCards()}</main>`, 'article'), /Sticky salmon bites/);
    assert.doesNotMatch(classifiedBy(TEXT_ONLY, `${INTRO}<main>${recipeCards()}</main>`, 'service'), /Sticky salmon bites/);
  });
});
