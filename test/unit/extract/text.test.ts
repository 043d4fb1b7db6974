// The text measures counted without building strings must agree with the string forms
// they replace (whitespace as `\s` and trim() define it, every Unicode space included).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { collapsedLength, collapsedTextLength, elementsWhere, firstElementWhere, hasNonSpace, hasText, isLinkWithHref, statsWithin, textStats } from '../../../packages/extract/src/text.js';
import { pageElements } from '../../../packages/extract/src/page-elements.js';

const SPACES = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const NOT_SPACES = ['a', 'Z', '.', '\u200b', '\u180e', 'é', '😀', '\u0085'];
const texts = fc.array(fc.constantFrom(...SPACES, ...NOT_SPACES, 'word'), { maxLength: 40 }).map((parts) => parts.join(''));

describe('text measures', () => {
  test('given any text, when its collapsed length is counted, then it equals replace(/\\s+/g, " ").trim().length', () => {
    fc.assert(fc.property(texts, (text) => collapsedLength(text) === text.replace(/\s+/g, ' ').trim().length), { numRuns: 2000 });
  });

  test('given any subtree, when its text is measured, then it equals textContent.replace(/\\s+/g, " ").trim().length', () => {
    // Whitespace runs across element boundaries, comments between texts, CDATA-free HTML.
    const markup = fc.array(fc.oneof(texts, fc.constantFrom('<b>', '</b>', '<p>', '</p>', '<!-- x -->', '<br>', '<span> </span>')), { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(fc.property(markup, (inner) => {
      const el = parseDocument(`<html><body><div id="t">${inner}</div></body></html>`).getElementById('t')!;
      return collapsedTextLength(el) === (el.textContent ?? '').replace(/\s+/g, ' ').trim().length;
    }), { numRuns: 200 });
  });

  test('given any text, when asked whether it has a non-space character, then it agrees with /\\S/', () => {
    fc.assert(fc.property(texts, (text) => hasNonSpace(text) === /\S/.test(text)), { numRuns: 2000 });
  });

  test('given elements with and without visible text, when hasText is asked, then it agrees with textContent', () => {
    const doc = parseDocument('<html><body><div id="a"> \n <span>\u00a0</span><!-- comment --></div><div id="b"><p> </p><p><b> x </b></p></div><div id="c"></div></body></html>');
    for (const id of ['a', 'b', 'c']) {
      const el = doc.getElementById(id)!;
      assert.equal(hasText(el), /\S/.test(el.textContent ?? ''), id);
    }
  });
});

describe('textStats (along linkedom\'s node list)', () => {
  test('given a page with nested links, void elements, comments and a template, when measured, then every element has the sums of its text nodes as the DOM lists them', () => {
    const body = parseDocument(
      '<main id="m" class="x"><a href="/a"><div><p>Linked  block <br> text</p><img src="/i.png" alt="i"><span>and more</span></div></a><!-- a comment -->' +
        '<p title="t">Plain <a href="/b"><b>link</b> text</a> tail </p><template><p>in a template</p></template><div> <em>x</em> <input value="v"> </div></main>',
    ).body;
    const reference = (el: Element, inLink: boolean): { text: number; link: number } => {
      const linked = inLink || el.localName === 'a';
      const own = { text: 0, link: 0 };
      for (const child of el.childNodes) {
        if (child.nodeType === 3) {
          const n = collapsedLength((child as Text).data);
          own.text += n;
          if (linked) own.link += n;
        } else if (child.nodeType === 1) {
          const sub = reference(child as Element, linked);
          own.text += sub.text;
          own.link += sub.link;
        }
      }
      return own;
    };
    const stats = textStats(body);
    const elements = [body, ...body.querySelectorAll('*'), ...body.querySelector('template')!.childNodes].filter((n) => n.nodeType === 1) as Element[];
    assert.ok(stats.get(body)!.link > 0 && stats.get(body)!.text > stats.get(body)!.link);
    for (const el of elements) assert.deepEqual(stats.get(el), reference(el, !!el.parentElement?.closest('a')), el.outerHTML);
  });
});

describe('statsWithin (one element measured alone)', () => {
  test('given a page with links around blocks and inside them, when each element is measured alone, then it matches textStats of the whole', () => {
    const body = parseDocument(
      '<main><a href="/a"><div><p>Linked  block  text</p><span>and more</span></div></a><p>Plain <a href="/b">link</a> text</p><div> <em>x</em> </div></main>',
    ).body;
    const main = body.firstElementChild!;
    const whole = textStats(main);
    for (const el of main.querySelectorAll('*')) assert.deepEqual(statsWithin(el, main), whole.get(el), el.outerHTML);
    // The scope's own link counts, as textStats(scope) counts it.
    const link = main.firstElementChild!;
    assert.deepEqual(statsWithin(link.querySelector('p')!, link), textStats(link).get(link.querySelector('p')!));
  });
});

describe('elementsWhere and pageElements (one walk instead of a selector per reader)', () => {
  const html = `<!DOCTYPE html><html><head><title>T</title><meta name="Generator" content="x"><script type="Application/LD+JSON">{}</script></head>
    <body><div itemscope><a href="/a">a</a><p><a>no href</a><map><area href="/b"></map></p></div>
    <template><a href="/hidden">in a template</a><meta name="t"></template><section><link rel="x" href="/c"><meta property="og:title" content="y"><span itemscope><a href="/d">d</a></span></section></body></html>`;

  test('given a page, when walked with a test, then the elements are those querySelectorAll lists, in its order (template contents skipped)', () => {
    const document = parseDocument(html);
    const cases: [string, (el: Element) => boolean][] = [
      ['*', () => true],
      ['a[href], area[href]', (el) => (el.localName === 'a' || el.localName === 'area') && el.hasAttribute('href')],
      ['meta, link, title', (el) => ['meta', 'link', 'title'].includes(el.localName)],
      ['[itemscope]', (el) => el.hasAttribute('itemscope')],
    ];
    for (const root of [document as unknown as ParentNode, document.body, document.body.querySelector('div')!]) {
      for (const [selector, test] of cases) {
        assert.deepEqual(elementsWhere(root, test), [...root.querySelectorAll(selector)], selector);
        assert.equal(firstElementWhere(root, test), root.querySelector(selector), selector);
      }
      assert.deepEqual(elementsWhere(root, isLinkWithHref), [...root.querySelectorAll('a[href]')]);
      assert.equal(firstElementWhere(root, (el) => el.localName === 'aside'), null);
    }
  });

  test('given a page, when its elements are gathered, then each list matches its selector', () => {
    const document = parseDocument(html);
    const elements = pageElements(document);
    assert.deepEqual(elements.head, [...document.querySelectorAll('meta, link, title')]);
    assert.deepEqual(elements.jsonLd, [...document.querySelectorAll('script[type="application/ld+json" i]')]);
    assert.deepEqual(elements.itemscopes, [...document.querySelectorAll('[itemscope]')]);
    assert.deepEqual(elements.hrefs, [...document.querySelectorAll('a[href], area[href]')]);
    assert.equal(elements.hrefs.length, 3, 'the template link is not a link of the page');
  });
});
