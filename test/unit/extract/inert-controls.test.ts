// A link that is a button and goes nowhere (clean.ts isInertControl): a script's control
// such as a forum's "Click to expand..." under a long quote. Its text is an instruction, not
// content, and the markdown drops it; a link with a target, a toggle that names what it
// opens, and an accordion's label inside a heading keep their text.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { prepareBody } from '../../../packages/extract/src/clean.js';

function prepared(html: string): Element {
  const body = parseDocument(`<!DOCTYPE html><html><body>${html}</body></html>`).body;
  prepareBody(body, new URL('https://board.example.org/threads/12/'));
  return body;
}

describe('inert controls', () => {
  test('given a quote with an expand control (role=button, no href, nothing it controls), then the control goes and the quote stays', () => {
    const body = prepared('<blockquote><div class="quote-content">Beech is the classic choice.</div><div class="expand"><a role="button" tabindex="0">Click to expand...</a></div></blockquote>');
    assert.ok(!body.textContent!.includes('Click to expand'));
    assert.ok(body.textContent!.includes('Beech is the classic choice.'));
  });

  test('given a button-styled link with a target, a toggle that names its panel, and an accordion label in a heading, then all keep their text', () => {
    const body = prepared(
      '<a role="button" href="/signup">Create an account</a>' +
        '<a role="button" aria-expanded="false" aria-controls="p1">Shipping and returns</a><div id="p1">Free returns.</div>' +
        '<h3><a role="button" tabindex="0">How long does delivery take?</a></h3>',
    );
    for (const text of ['Create an account', 'Shipping and returns', 'How long does delivery take?']) assert.ok(body.textContent!.includes(text), text);
  });

  test('given an article about buttons whose prose says "click to expand", then its words change nothing', () => {
    const body = prepared('<p>A control that says <a href="/glossary/expand">click to expand</a> should name what it expands.</p>');
    assert.ok(body.textContent!.includes('click to expand'));
  });
});
