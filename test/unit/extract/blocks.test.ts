// The learned classifier's inputs and arithmetic (blocks.ts, block-model.ts, classify.ts):
// how a page is cut into blocks, what a few features read, how dropped blocks leave the
// page, and that the shipped weights match the features the code computes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { BLOCK_MARK, FEATURE_NAMES, keptMarks, markBlocks, readBlocks, removeBlocks } from '../../../packages/extract/src/blocks.js';
import { blockScore, SHIPPED_BLOCK_MODEL, type BlockModel } from '../../../packages/extract/src/block-model.js';

const f = (name: string): number => FEATURE_NAMES.indexOf(name);

function page(body: string): Element {
  return parseDocument(`<html><body>${body}</body></html>`).body;
}

describe('blocks', () => {
  test('a block is the text whose nearest block-level ancestor is the same element, inline markup included', () => {
    const body = page('<div>Intro <b>bold</b> words<p>A paragraph with <a href="/x">a link</a> inside.</p> tail</div>');
    markBlocks(body);
    const blocks = readBlocks(body, new Set(), 'article');
    assert.deepEqual(blocks.map((b) => b.text), ['Intro bold words tail', 'A paragraph with a link inside.']);
    const p = blocks[1]!;
    assert.equal(p.features[f('linkDensity')], 'a link'.length / p.text.length);
    assert.equal(p.features[f('endsSentence')], 1);
    assert.equal(p.features[f('type_article')], 1);
  });

  test('repeated cards share a signature; the rules\' choice is read from the marks that survive', () => {
    const cards = Array.from({ length: 5 }, (_, i) => `<li class="card"><p>Product ${i} with a short description.</p></li>`).join('');
    const body = page(`<nav><a href="/">Home</a></nav><ul class="grid">${cards}</ul>`);
    markBlocks(body);
    const chosen = body.querySelector('ul')!.cloneNode(true) as Element;
    const blocks = readBlocks(body, keptMarks(chosen), 'listing');
    const home = blocks.find((b) => b.text === 'Home')!;
    const card = blocks.find((b) => b.text.startsWith('Product 2'))!;
    assert.equal(home.features[f('inResult')], 0);
    assert.equal(home.features[f('in_nav')], 1);
    assert.equal(card.features[f('inResult')], 1);
    assert.equal(card.features[f('logSignatureRepeats')], Math.log1p(4));
    assert.equal(card.features[f('signatureResultShare')], 1);
  });

  test('a dropped block loses its own text but keeps the blocks nested in it; emptied containers go', () => {
    const body = page('<div id="outer">Share this <a href="/s">now</a><p>The kept paragraph.</p></div><section><p>gone</p></section>');
    removeBlocks(body, [body.querySelector('#outer')!, body.querySelector('section p')!]);
    assert.equal(body.innerHTML, '<div id="outer"><p>The kept paragraph.</p></div>');
  });

  test('a block nested in an inline element of a dropped block stays (custom elements and links wrap blocks)', () => {
    const body = page('<div id="outer">Menu <x-post-title><h1>The kept heading</h1></x-post-title><a href="/x"><p>kept too</p> link words</a></div>');
    removeBlocks(body, [body.querySelector('#outer')!]);
    assert.equal(body.innerHTML, '<div id="outer"><x-post-title><h1>The kept heading</h1></x-post-title><a href="/x"><p>kept too</p></a></div>');
  });

  test('marks never leave the extractor', async () => {
    const { extractPage } = await import('../../../packages/extract/src/index.js');
    const { normalizeScrapeOptions } = await import('../../../shared/src/domain/scrape-options.js');
    const cards = Array.from({ length: 8 }, (_, i) => `<li class="card"><h3><a href="/p/${i}">Item ${i}</a></h3><p>Item ${i} is a sturdy thing with a long description of its uses.</p></li>`).join('');
    const html = `<html><head><script type="application/ld+json">{"@type":"CollectionPage"}</script></head><body><main><h1>All items</h1><ul>${cards}</ul></main></body></html>`;
    const out = extractPage({ html, url: 'https://shop.example/collections/all', options: normalizeScrapeOptions({ formats: ['html', 'markdown'] }) });
    assert.equal(out.metadata.pageType, 'collection');
    assert.ok(!out.html!.includes(BLOCK_MARK), out.html);
    assert.ok(out.markdown!.includes('Item 7 is a sturdy thing'), out.markdown);
  });
});

describe('the block model', () => {
  test('a tree walks left below its threshold and right at or above it; the scores add up in log-odds', () => {
    const model: BlockModel = { features: FEATURE_NAMES, base: 0, trees: [[0, 1, -2, 2], [1, 0.5, 0, 1]], threshold: 0.5, addThreshold: 0.5 };
    const x = FEATURE_NAMES.map(() => 0);
    assert.equal(blockScore(model, x), 1 / (1 + Math.exp(2)));
    x[0] = 1;
    x[1] = 0.5;
    assert.equal(blockScore(model, x), 1 / (1 + Math.exp(-3)));
  });

  test('the shipped weights were trained on the features this code computes', () => {
    assert.ok(SHIPPED_BLOCK_MODEL, 'block-model.json names other features: run npm run train:extract');
    assert.ok(SHIPPED_BLOCK_MODEL.trees.length > 0);
    assert.ok(SHIPPED_BLOCK_MODEL.trees.every((t) => t[0] >= 0 && t[0] < FEATURE_NAMES.length));
  });
});
