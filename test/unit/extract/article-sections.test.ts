// An article whose sections carry a widget's name (boilerplate.ts buildingBlocks, 'sections'):
// a review list whose theme calls each product section a "product-widget" keeps its
// sections, with their parts (BEM's block__element) and whatever variant (block--big) each
// is; the sidebar's widgets of the same article, repeated but made of links or lines
// without headings, still go. An article *about* widgets keeps its paragraphs by the same
// structure, not by its words.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { removeBoilerplateByName } from '../../../packages/extract/src/boilerplate.js';

function body(html: string): Element {
  return parseDocument(`<!DOCTYPE html><html><body>${html}</body></html>`).body;
}

const REVIEWS = [
  'The Nitro keeps getting better with every iteration, with a bright screen and a battery that lasts through a long day of work and play.',
  'The Sword offers solid performance for its price, though its fans get loud under load and the screen is dimmer than its rivals.',
  'The Dash has a switch that raises its frame rates in games, and a keyboard that is pleasant to type on for hours at a time.',
  'The Katana is the fastest of the group, at the cost of a heavier frame and a charger that takes much of the room in a bag.',
];

function reviewSection(text: string, i: number): string {
  const variant = i === 0 ? 'c-product-widget c-product-widget--big' : 'c-product-widget';
  return `<div class="${variant}" id="laptop-${i}-review"><div class="c-product-widget__product"><h3 class="c-product-widget__name">Laptop ${i}</h3>
    <div class="c-product-widget__content"><p>${text}</p><p>${text}</p></div></div></div>`;
}

describe('an article built of sections named like widgets keeps them', () => {
  test('given a review list whose product sections are "c-product-widget" (one of them --big), then every section and its parts stay', () => {
    const root = body(`<h1>The best laptops</h1><p>We tested twenty laptops this year.</p>${REVIEWS.map(reviewSection).join('')}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: 'sections' });
    for (const r of REVIEWS) assert.ok(root.textContent!.includes(r), root.innerHTML);
    assert.equal(root.querySelectorAll('.c-product-widget__content').length, REVIEWS.length);
  });

  test('given the same sections without headings (a sidebar of text widgets), then they go as before', () => {
    const widgets = REVIEWS.map((r) => `<div class="sidebar-widget"><p>${r}</p></div>`).join('');
    const root = body(`<h1>The best laptops</h1><p>${REVIEWS[0]}</p>${widgets}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: 'sections' });
    assert.equal(root.querySelectorAll('.sidebar-widget').length, 0);
  });

  test('given a sidebar of repeated widgets made of headed link lists, then they go', () => {
    const widgets = [0, 1, 2].map((i) => `<div class="widget"><h3>Popular ${i}</h3><ul>${REVIEWS.map((r, j) => `<li><a href="/p/${i}${j}">${r}</a></li>`).join('')}</ul><p><a href="/more">More</a></p></div>`).join('');
    const root = body(`<h1>The best laptops</h1><p>${REVIEWS[0]}</p>${widgets}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: 'sections' });
    assert.equal(root.querySelectorAll('.widget').length, 0);
  });

  test('given "next post" teasers whose headings link to other pages, each with an excerpt, then they go (teasers, not sections)', () => {
    const teasers = REVIEWS.map((r, i) => `<div class="nextpost-widget"><h2><a href="/2019/post-${i}">Post ${i}</a></h2><p>${r}</p></div>`).join('');
    const root = body(`<h1>The best laptops</h1><p>${REVIEWS[0]}</p>${teasers}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: 'sections' });
    assert.equal(root.querySelectorAll('.nextpost-widget').length, 0);
  });

  test('given a share bar nested in a kept section, then it still goes (it is no part of the section by name)', () => {
    const sections = REVIEWS.map((r, i) => reviewSection(r, i).replace('</div></div></div>', '</div><div class="share-bar"><a href="/s">Share this laptop</a></div></div></div>')).join('');
    const root = body(`<h1>The best laptops</h1>${sections}`);
    removeBoilerplateByName(root, { keepBuildingBlocks: 'sections' });
    assert.equal(root.querySelectorAll('.c-product-widget').length, REVIEWS.length);
    assert.equal(root.querySelectorAll('.share-bar').length, 0);
  });

  test('given an article about widgets in plain paragraphs, then its words change nothing', () => {
    const text = 'A widget is a small block of a page: a share bar, a list of related links or a newsletter box. Themes name them so in their classes.';
    const root = body(`<h1>What is a widget?</h1><p>${text}</p><h2>Related widgets</h2><p>${text}</p>`);
    removeBoilerplateByName(root, { keepBuildingBlocks: 'sections' });
    assert.equal(root.querySelectorAll('p').length, 2);
  });
});
