// A product page's strips of other products (product-strips.ts): a run of like tiles, each
// linking to another page and showing an image or a price, is the shop's offer of other
// products, not the page's product; its heading goes with it when nothing is left under it.
// The product's own lists (specifications, a bundle's few parts, links to its own tabs) stay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { removeProductStrips } from '../../../packages/extract/src/product-strips.js';

const PAGE_URL = 'https://shop.example/item/123';

function tile(i: number, cls = 'tile'): string {
  return `<li class="${cls}"><a href="https://shop.example/item/${900 + i}"><img src="https://img.example/${i}.jpg" alt=""><h3>Other blouse number ${i} in green</h3></a><span>$${i}.99</span></li>`;
}

function content(inner: string): Element {
  const doc = parseDocument(`<html><body><div id="root"><h1>Three pack ladies top</h1><p>Condition: new with tags, shipped from Leeds.</p><p>${'A soft cotton jersey top with a round neck and short sleeves, sold as a pack of three in black, white and green. '.repeat(3)}</p>${inner}</div></body></html>`);
  return doc.getElementById('root')!;
}

describe('product strips', () => {
  test('given a strip of other products under its own heading, when removed, then its tiles and heading go and the product stays', () => {
    const root = content(`<h2>People who viewed this item also viewed</h2><ul>${[1, 2, 3, 4, 5].map((i) => tile(i)).join('')}</ul><h2>About this item</h2><p>Seller assumes all responsibility.</p>`);
    assert.equal(removeProductStrips(root, PAGE_URL), 1);
    const text = root.textContent ?? '';
    assert.ok(!text.includes('Other blouse'), text);
    assert.ok(!text.includes('also viewed'), text);
    for (const kept of ['Three pack ladies top', 'Condition: new', 'About this item', 'Seller assumes']) assert.ok(text.includes(kept), `${kept} missing: ${text}`);
  });

  test('given a strip whose first tile has a class of its own, when removed, then that tile goes too', () => {
    const root = content(`<ul>${tile(0, 'sponsored')}${[1, 2, 3, 4].map((i) => tile(i)).join('')}</ul>`);
    removeProductStrips(root, PAGE_URL);
    assert.ok(!(root.textContent ?? '').includes('Other blouse'), root.textContent ?? '');
  });

  test('given a heading with text of its own under it, when the strip goes, then the heading stays', () => {
    const root = content(`<h2>More from this seller</h2><p>The seller ships within two days from a warehouse in Leeds.</p><ul>${[1, 2, 3, 4].map((i) => tile(i)).join('')}</ul>`);
    removeProductStrips(root, PAGE_URL);
    assert.ok((root.textContent ?? '').includes('More from this seller'));
  });

  test('given a run of tiles that is most of the content (a category page read as a product), when checked, then it stays', () => {
    const root = content(`<ul>${Array.from({ length: 12 }, (_, i) => tile(i + 1)).join('')}</ul>`);
    assert.equal(removeProductStrips(root, PAGE_URL), 0);
    assert.ok((root.textContent ?? '').includes('Other blouse number 12'));
  });

  test('given three tiles (a bundle\'s parts), when checked, then they stay', () => {
    const root = content(`<ul>${[1, 2, 3].map((i) => tile(i)).join('')}</ul>`);
    assert.equal(removeProductStrips(root, PAGE_URL), 0);
    assert.ok((root.textContent ?? '').includes('Other blouse number 3'));
  });

  test('given a specification list of linked rows without images or prices, when checked, then it stays', () => {
    const rows = ['Material', 'Fit', 'Care', 'Origin', 'Collar'].map((n) => `<li class="spec"><a href="https://shop.example/glossary/${n}">${n}</a>: described in the glossary page</li>`).join('');
    const root = content(`<ul>${rows}</ul>`);
    assert.equal(removeProductStrips(root, PAGE_URL), 0);
  });

  test('given tiles that link to the page itself (its own colour tabs), when checked, then they stay', () => {
    const own = [1, 2, 3, 4].map((i) => `<li class="tile"><a href="${PAGE_URL}#colour-${i}"><img src="https://img.example/${i}.jpg" alt=""> Colour option number ${i}</a></li>`).join('');
    const root = content(`<ul>${own}</ul>`);
    assert.equal(removeProductStrips(root, PAGE_URL), 0);
  });
});
