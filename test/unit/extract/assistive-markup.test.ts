// Screen-reader markup read for what a sighted reader sees (assistive-markup.ts): a link a
// card hides from screen readers because it repeats the headline's link keeps its text; an
// image link's screen-reader-only name goes. Hidden containers, lone hidden links, overlay
// links that repeat a heading and screen-reader-only text outside image links are left as
// they are.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { removeEchoes, removeImageLinkNames, revealRedundantLinks } from '../../../packages/extract/src/assistive-markup.js';

function body(html: string): Element {
  return parseDocument(`<!DOCTYPE html><html><body>${html}</body></html>`).body;
}

const hidden = (root: Element): string[] => [...root.querySelectorAll('[aria-hidden="true"]')].map((el) => (el.textContent ?? '').trim());

describe('redundant links', () => {
  test('given a story card whose blurb links to the headline\'s story and is aria-hidden, then the blurb link is shown', () => {
    const root = body(
      '<article><h2><a href="/s/1">Beats add new colours</a></h2>' +
        '<p><a href="/s/1" aria-hidden="true" tabindex="-1">Walmart now has the Solo 4 in three colours.</a></p></article>',
    );
    assert.equal(revealRedundantLinks(root), 1);
    assert.deepEqual(hidden(root), []);
  });

  test('given an aria-hidden link whose story no announced link names, then it stays hidden', () => {
    const root = body('<p><a href="/s/2" aria-hidden="true">A hidden teaser for another story</a></p><p><a href="/s/3">Visible</a></p>');
    assert.equal(revealRedundantLinks(root), 0);
    assert.deepEqual(hidden(root), ['A hidden teaser for another story']);
  });

  test('given a hidden menu (the container is aria-hidden) that repeats the visible menu, then its links stay hidden', () => {
    const root = body('<ul><li><a href="/a">About</a></li></ul><div aria-hidden="true"><ul><li><a href="/a" aria-hidden="true">About</a></li></ul></div>');
    assert.equal(revealRedundantLinks(root), 0);
  });

  test('given an overlay link that repeats its heading\'s text, then it stays hidden', () => {
    const root = body('<h2><a href="/c/1" aria-hidden="true">Make mealtime amazing</a>Make mealtime amazing</h2><p><a href="/c/1">Shop now</a></p>');
    assert.equal(revealRedundantLinks(root), 0);
  });

  test('given a thumbnail link (an image, no text), then it is left alone', () => {
    const root = body('<a href="/s/1" aria-hidden="true"><img src="t.jpg" alt=""></a><h2><a href="/s/1">Story</a></h2>');
    assert.equal(revealRedundantLinks(root), 0);
  });
});

describe('image link names', () => {
  test('given colour swatches (image links named only for screen readers), then the names go and the images stay', () => {
    const root = body(
      '<div class="variants"><a href="/p/1"><span class="sr-only">Option: bookcase, brown</span><img src="b.jpg" alt="brown"></a>' +
        '<a href="/p/2"><span class="visually-hidden">Option: bookcase, white</span><img src="w.jpg" alt="white"></a></div>',
    );
    assert.equal(removeImageLinkNames(root), 2);
    assert.equal((root.textContent ?? '').trim(), '');
    assert.equal(root.querySelectorAll('img').length, 2);
  });

  test('given a skip link and a price spelled out for screen readers, then both stay (no image link)', () => {
    const root = body('<a class="sr-only" href="#main">Skip to content</a><p><del>$30</del> <span class="screen-reader-text">Original price was: $30.00.</span> $21</p>');
    assert.equal(removeImageLinkNames(root), 0);
    assert.match(root.textContent ?? '', /Skip to content/);
    assert.match(root.textContent ?? '', /Original price was/);
  });

  test('given an image link with a visible caption, then its screen-reader-only part stays too', () => {
    const root = body('<a href="/p/1"><img src="b.jpg" alt="">Bookcase <span class="sr-only">(opens product page)</span></a>');
    assert.equal(removeImageLinkNames(root), 0);
  });
});

describe('screen-reader echoes', () => {
  const textOf = (root: Element): string => (root.textContent ?? '').replace(/\s+/g, ' ').trim();

  test('given a price shown and echoed in a clipped span, then the echo goes and the shown price stays', () => {
    const root = body('<div><span class="price">EUR 163.12<span class="clipped">EUR 163.12</span></span></div>');
    assert.equal(removeEchoes(root), 1);
    assert.equal(textOf(root), 'EUR 163.12');
  });

  test('given a shown link text spelled out longer for screen readers, then the longer copy goes', () => {
    const root = body('<a href="#coverage"><span>See all details<span class="sr-only">See all details on coverage</span></span></a>');
    assert.equal(removeEchoes(root), 1);
    assert.equal(textOf(root), 'See all details');
  });

  test('given a clipped copy of an aria-hidden title, then the clipped copy stays: it is the title a reader of the markdown gets', () => {
    const root = body('<div><span aria-hidden="true">Catena DID 520ers3</span><span class="clipped">Catena DID 520ers3</span></div>');
    assert.equal(removeEchoes(root), 0);
  });

  test('given screen-reader text that says something else ("Original price was:"), then it stays', () => {
    const root = body('<p><del><span class="screen-reader-text">Original price was:</span> $30.00</del></p>');
    assert.equal(removeEchoes(root), 0);
  });

  test('given screen-reader text that only shares letters with the shown words, then it stays', () => {
    const root = body('<p>Getting started<span class="sr-only">art</span></p>');
    assert.equal(removeEchoes(root), 0);
  });
});

test('given a shown rating "4" read out as "Rated 4 stars out of 5", then the read-out stays (it is no echo)', () => {
  const root = body('<span class="rating">4<span class="sr-only">Rated 4 stars out of 5</span></span>');
  assert.equal(removeEchoes(root), 0);
});
