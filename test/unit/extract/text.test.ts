// The text measures counted without building strings must agree with the string forms
// they replace (whitespace as `\s` and trim() define it, every Unicode space included).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { collapsedLength, hasNonSpace, hasText } from '../../../packages/extract/src/text.js';

const SPACES = [' ', '\t', '\n', '\r', '\v', '\f', '\u00a0', '\u1680', '\u2000', '\u2005', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const NOT_SPACES = ['a', 'Z', '.', '\u200b', '\u180e', 'é', '😀', '\u0085'];
const texts = fc.array(fc.constantFrom(...SPACES, ...NOT_SPACES, 'word'), { maxLength: 40 }).map((parts) => parts.join(''));

describe('text measures', () => {
  test('given any text, when its collapsed length is counted, then it equals replace(/\\s+/g, " ").trim().length', () => {
    fc.assert(fc.property(texts, (text) => collapsedLength(text) === text.replace(/\s+/g, ' ').trim().length), { numRuns: 2000 });
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
