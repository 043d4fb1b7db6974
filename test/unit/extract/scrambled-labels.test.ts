// A label scrambled against ad blockers (scrambled-labels.ts): a row of spans holding only
// UUIDs and single letters goes; ids shown on purpose and short words stay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { removeScrambledLabels } from '../../../packages/extract/src/scrambled-labels.js';

function body(html: string): Element {
  return parseDocument(`<!DOCTYPE html><html><body>${html}</body></html>`).body;
}
const id = (n: number): string => `${String(n).repeat(8)}-aaaa-4bbb-8ccc-${String(n).repeat(12)}`;

describe('scrambled labels', () => {
  test('given "Sponsored" spelled between hidden UUID spans above a card row, then the row goes and the cards stay', () => {
    const row = [...'Spons'].map((ch, i) => `<span class="k${i}">${ch}</span><span class="z${i}">${id(i + 1)}</span>`).join('');
    const root = body(`<h2>Similar Items</h2><div class="x">${row}</div><ul><li><a href="/i/1">A chain</a></li></ul>`);
    assert.equal(removeScrambledLabels(root), 1);
    assert.equal(root.querySelector('.x'), null);
    assert.equal(root.querySelector('li')?.textContent, 'A chain');
  });

  test('given an order page that shows two ids, then they stay', () => {
    const root = body(`<p><span>Order</span> <span>${id(1)}</span> <span>${id(2)}</span></p>`);
    assert.equal(removeScrambledLabels(root), 0);
  });

  test('given a row of letter spans (a drop cap, an animated word) without ids, then it stays', () => {
    const root = body('<h1><span>H</span><span>e</span><span>l</span><span>l</span><span>o</span></h1>');
    assert.equal(removeScrambledLabels(root), 0);
  });

  test('given ids in a code listing, then they stay', () => {
    const root = body(`<pre><code><span>${id(1)}</span><span>${id(2)}</span><span>${id(3)}</span><span>,</span></code></pre>`);
    assert.equal(removeScrambledLabels(root), 0);
  });
});
