// card-duplicates.ts: a card of a listing or a collection that writes its title once per
// layout keeps one copy; texts that differ, texts repeated from card to card and pages that
// are not made of cards keep every line.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { removeCardDuplicates, removeLayoutCopies } from '../../../packages/extract/src/card-duplicates.js';

const NAMES = ['Dark roast coffee', 'Medium roast coffee', 'Espresso roast coffee', 'Vanilla latte pack', 'Blueberry coffee', 'Mocha latte pack'];

/** A shop tile as Shopify themes write it: the name in the image link, then in two headings (wide and narrow layout). */
const tile = (name: string, i: number): string =>
  `<li class="grid__item"><a href="/p/${i}"><img src="/i/${i}.jpg" alt="">${name}</a><h3 class="title--wide"><a href="/p/${i}">${name}</a></h3><h3 class="title--narrow"><a href="/p/${i}">${name}</a></h3><span class="price">Regular price $19.99</span><button>Quick shop</button></li>`;

function deduped(cards: string): { removed: number; text: string } {
  const document = parseDocument(`<!DOCTYPE html><html><body><main><ul class="grid">${cards}</ul></main></body></html>`);
  const removed = removeCardDuplicates(document.body);
  return { removed, text: (document.body.textContent ?? '').replace(/\s+/g, ' ') };
}

const count = (text: string, what: string): number => text.split(what).length - 1;

describe('card duplicates', () => {
  test('given tiles that write their name three times, when deduplicated, then each name is left once with its price and button', () => {
    const { removed, text } = deduped(NAMES.map(tile).join(''));
    assert.equal(removed, 2 * NAMES.length);
    for (const name of NAMES) assert.equal(count(text, name), 1, name);
    // Texts shared by every card (the same price, the button) are two items' lines, not copies.
    assert.equal(count(text, 'Regular price $19.99'), NAMES.length);
    assert.equal(count(text, 'Quick shop'), NAMES.length);
  });

  test('given cards whose lines all differ, when deduplicated, then nothing goes', () => {
    const cards = NAMES.map((name, i) => `<li class="card"><h3><a href="/s/${i}">${name}</a></h3><p>${name} is roasted in small batches, story ${i}.</p></li>`).join('');
    assert.equal(deduped(cards).removed, 0);
  });

  test('given a short label said twice in a card (a colour), when deduplicated, then it stays', () => {
    const cards = NAMES.map((name, i) => `<li class="card"><a href="/p/${i}">${name}</a><span>Black</span><span>Black</span></li>`).join('');
    assert.equal(deduped(cards).removed, 0);
  });

  test('given the same repeated lines outside any run of cards (an article), when deduplicated, then they stay', () => {
    const document = parseDocument(`<!DOCTYPE html><html><body><article><h2>Dark roast coffee</h2><p>Intro.</p><h2>Dark roast coffee</h2></article></body></html>`);
    assert.equal(removeCardDuplicates(document.body), 0);
  });

  test('given a collection page (priced tiles, declared a CollectionPage), when extracted, then the markdown names each product once', () => {
    const html = `<html><head><script type="application/ld+json">{"@type":"CollectionPage","name":"Coffee"}</script></head><body><h1>Coffee</h1><ul class="grid">${NAMES.map(tile).join('')}</ul></body></html>`;
    // The rules alone (no block model): the pass runs on whichever content was chosen.
    const { markdown, metadata } = extractPage({ html, url: 'https://shop.example/collections/coffee', options: normalizeScrapeOptions({ formats: ['markdown'] }) }, { blockModel: null });
    assert.equal(metadata.pageType, 'collection');
    for (const name of NAMES) assert.equal(count(markdown ?? '', name), 1, markdown);
  });

  test('given a service page whose hero is written for two layouts, when its layout copies go, then the hero is said once; on a listing both stay', () => {
    const hero = '<section class="hero"><h2>Flow from idea to outcome in seconds</h2><p>One workspace for every team that plans, builds and ships together.</p></section>';
    const page = (): Element => parseDocument(`<!DOCTYPE html><html><body><main>${hero}<p>What the teams say about it.</p>${hero.replace('hero', 'hero hero--narrow')}</main></body></html>`).body;
    const service = page();
    assert.equal(removeLayoutCopies(service, 'service'), 2);
    assert.equal(count(service.textContent ?? '', 'Flow from idea to outcome in seconds'), 1);
    assert.match(service.textContent ?? '', /What the teams say/);
    const listing = page();
    assert.equal(removeLayoutCopies(listing, 'listing'), 0);
    assert.equal(removeLayoutCopies(page(), 'article'), 0);
  });
});
