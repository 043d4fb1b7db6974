// The section stack (section-stack.ts) on pages that declare no kind: a company's page with
// too much prose for the structural 'service' test is typed article, and Readability keeps
// one of its sections. The stack is offered there too; a page that declares itself an
// article (JSON-LD, og:type, a /blog/ path) keeps Readability's choice.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { sectionStackGain, sectionStacks } from '../../../packages/extract/src/section-stack.js';

const INTRO =
  'Our accounting software keeps your books in order without a bookkeeper: connect your bank once, and every payment is ' +
  'sorted into the right account as it arrives. Invoices, receipts and reports live in one place, and your accountant can ' +
  'look at the same figures you do whenever you invite them. Small businesses in forty countries run their books on it.';
const FEATURES = [
  ['Bank connections', 'Transactions arrive every morning from more than ten thousand banks and cards.'],
  ['Invoices that get paid', 'Send an invoice in a minute and let customers pay it by card straight from the email.'],
  ['Reports for tax time', 'A profit and loss statement and a balance sheet are ready whenever you need them.'],
  ['Receipts in the app', 'Snap a receipt with your phone and it is matched to the payment it belongs to.'],
];

function page(head: string): string {
  const sections = FEATURES.map(([h, p]) => `<section><h2>${h}</h2><p>${p}</p></section>`).join('');
  return `<!DOCTYPE html><html><head><title>Accounting | Acme</title>${head}</head><body><header><a href="/">Acme</a></header>` +
    `<main><div class="stack"><section><h1>Accounting software</h1><p>${INTRO}</p><p>${INTRO.replace('Our', 'This')}</p></section>${sections}</div></main></body></html>`;
}

describe('section stacks on pages that declare no kind', () => {
  test('the stack is a candidate, with the lower gain, on a page typed article because it declares nothing', () => {
    const body = parseDocument(page('')).body;
    assert.equal(sectionStacks(body, 'article', undefined).length, 1);
    assert.equal(sectionStackGain('article', undefined), 1.2);
  });

  test('a declared article, a listing or a product gets no stack', () => {
    const body = parseDocument(page('')).body;
    assert.equal(sectionStacks(body, 'article', 'article').length, 0);
    assert.equal(sectionStackGain('article', 'article'), undefined);
    assert.equal(sectionStacks(body, 'listing', undefined).length, 0);
    assert.equal(sectionStacks(body, 'product', 'product').length, 0);
  });
});
