// member-facts.ts: on a thread, the labelled facts that every post's author panel repeats
// ("Joined", "Messages") go; a definition list whose labels are said once or twice (a
// post's own glossary), long values and the posts' text stay.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { removeRepeatedPairs } from '../../../packages/extract/src/member-facts.js';

/** A post as XenForo writes it: the member panel (one <dl> per fact), then the message. */
const post = (i: number): string =>
  `<article class="message"><div class="user"><h4><a href="/members/u${i}">member${i}</a></h4>` +
  `<dl class="pairs"><dt>Joined</dt><dd>Jun ${i + 1}, 2016</dd></dl><dl class="pairs"><dt>Messages</dt><dd>${10 * i}</dd></dl></div>` +
  `<div class="body"><p>Post number ${i}: my interview went well and I heard back within a week.</p></div></article>`;

function cleaned(html: string): { removed: number; text: string } {
  const document = parseDocument(`<!DOCTYPE html><html><body><main>${html}</main></body></html>`);
  const removed = removeRepeatedPairs(document.body);
  return { removed, text: (document.body.textContent ?? '').replace(/\s+/g, ' ') };
}

describe('member facts', () => {
  test('given four posts whose author panels list the same labels, when cleaned, then the pairs go and the posts and names stay', () => {
    const { removed, text } = cleaned([0, 1, 2, 3].map(post).join(''));
    assert.equal(removed, 8);
    assert.ok(!text.includes('Joined') && !text.includes('Messages'), text);
    for (const i of [0, 1, 2, 3]) assert.ok(text.includes(`Post number ${i}:`) && text.includes(`member${i}`), text);
  });

  test('given content that kept one post of a page of four, when cleaned with the page, then the kept post loses its pairs too', () => {
    const document = parseDocument(`<!DOCTYPE html><html><body><main>${[0, 1, 2, 3].map(post).join('')}</main></body></html>`);
    const content = document.createElement('div');
    content.append(document.querySelector('article')!.cloneNode(true));
    assert.equal(removeRepeatedPairs(content), 0, 'one panel alone is no template');
    assert.equal(removeRepeatedPairs(content, document.body), 2);
    assert.ok(!(content.textContent ?? '').includes('Joined'));
  });

  test('given one <dl> of labels said once each (a post explaining its terms), when cleaned, then it stays', () => {
    const glossary = '<dl><dt>Joined</dt><dd>the day you registered</dd><dt>Messages</dt><dd>how many posts you wrote</dd><dt>Points</dt><dd>what others gave you</dd></dl>';
    const { removed, text } = cleaned(`<article><p>What the profile says:</p>${glossary}</article>`);
    assert.equal(removed, 0);
    assert.ok(text.includes('the day you registered'));
  });

  test('given a label repeated three times with a sentence for its value, when cleaned, then the sentence stays', () => {
    const long = 'a long answer that explains the whole application timeline and what each interview asked of the candidates';
    const lists = [1, 2, 3].map((i) => `<dl><dt>Answer</dt><dd>${long} ${i}</dd></dl>`).join('');
    const { removed, text } = cleaned(lists);
    assert.equal(removed, 0);
    assert.ok(text.includes('Answer'));
  });
});
