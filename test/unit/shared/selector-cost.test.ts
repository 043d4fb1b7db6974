// The selector cost check (issue 20): a selector that can take exponential time in the
// transformer's DOM is a 400 naming its field at validation, never a stalled thread.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../shared/src/domain/errors.js';
import { MAX_SELECTOR_BRANCHING_COMBINATORS, selectorCostProblem } from '../../../shared/src/domain/selector-cost.js';
import { normalizeCrawlRequest } from '../../../shared/src/domain/crawl-options.js';
import { normalizeScrapeOptions, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';

function refusal(options: ScrapeOptionsInput): ValidationError {
  try {
    normalizeScrapeOptions(options);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  assert.fail('expected a ValidationError');
}

const ISSUE_SELECTOR = 'section div div div div div div span';

describe('selectorCostProblem', () => {
  test('given ordinary selectors, then no problem', () => {
    for (const selector of [
      'h1', '.product .price', 'ul li a', '#main .list li a', 'div > div > div > div > div > div > span', 'a[href^="/"]',
      'p:not(.ad)', 'h2 + p', 'table tr:nth-child(2n) td', 'article, aside, nav',
    ]) assert.equal(selectorCostProblem(selector), undefined, selector);
  });

  test('given more descendant or ~ combinators than the bound, then refused (the issue\'s selector among them)', () => {
    assert.equal(MAX_SELECTOR_BRANCHING_COMBINATORS, 3);
    assert.match(selectorCostProblem(ISSUE_SELECTOR)!, /more than 3 descendant \(space\) or ~ combinators/);
    assert.match(selectorCostProblem('section div div div span')!, /more than 3/);
    assert.match(selectorCostProblem('h1 ~ p ~ p ~ p ~ span')!, /more than 3/);
    // Selectors inside :not() run per candidate: their combinators count with the outer ones.
    assert.match(selectorCostProblem('section div span:not(div div b)')!, /more than 3/);
    // Each selector of a list is judged alone.
    assert.equal(selectorCostProblem('a b c d, e f g h'), undefined);
  });

  test('given :has(), deep pseudo nesting or a huge list, then refused', () => {
    assert.match(selectorCostProblem('div:has(span)')!, /:has\(\)/);
    assert.match(selectorCostProblem('p:not(:is(:where(.x)))')!, /nests :where\(\) more than 2 levels/);
    assert.match(selectorCostProblem(Array.from({ length: 21 }, (_, i) => `.c${i}`).join(','))!, /21 comma-separated/);
    assert.match(selectorCostProblem(Array.from({ length: 14 }, () => 'div').join(' > '))!, /more than 12 combinators/);
  });

  test('given an unparsable selector, then no cost problem (the syntax check reports it)', () => {
    assert.equal(selectorCostProblem('p[[['), undefined);
  });
});

describe('cost check at validation', () => {
  test('given the issue\'s selector in an extract schema, then a 400 naming the field', () => {
    const err = refusal({ formats: ['extract'], extract: { schema: { fields: { x: { selector: ISSUE_SELECTOR } } } } });
    assert.equal(err.status, 400);
    assert.equal(err.field, 'extract.schema.fields.x.selector');
    assert.match(err.message, /exponential time/);
    const base = refusal({ formats: ['extract'], extract: { schema: { baseSelector: 'div:has(p)', fields: { x: { selector: 'p' } } } } });
    assert.equal(base.field, 'extract.schema.baseSelector');
  });

  test('given a costly includeTags or excludeTags selector, then a 400 naming it', () => {
    assert.equal(refusal({ includeTags: ['main', ISSUE_SELECTOR] }).field, 'includeTags');
    assert.match(refusal({ excludeTags: ['div:has(.ad)'] }).message, /excludeTags\[0\]/);
  });

  test('given lists nested three deep (baseSelector counts), then a 400 at the third; two levels are fine', () => {
    const three = refusal({
      formats: ['extract'],
      extract: { schema: { baseSelector: 'div', fields: { a: { selector: 'div', list: true, type: 'object', fields: { b: { selector: 'div', list: true } } } } } },
    });
    assert.equal(three.field, 'extract.schema.fields.a.fields.b.list');
    assert.match(three.message, /lists nest at most 2 levels/);
    const nested = refusal({
      formats: ['extract'],
      extract: { schema: { fields: { a: { selector: 'ul', list: true, type: 'object', fields: { b: { selector: 'li', list: true, type: 'object', fields: { c: { selector: 'a', list: true } } } } } } } },
    });
    assert.equal(nested.field, 'extract.schema.fields.a.fields.b.fields.c.list');
    normalizeScrapeOptions({ formats: ['extract'], extract: { schema: { baseSelector: '.product', fields: { tags: { selector: '.tag', list: true } } } } });
  });

  test('given a crawl, then the path is under scrapeOptions', () => {
    try {
      normalizeCrawlRequest({ url: 'https://example.com/', scrapeOptions: { formats: ['extract'], extract: { schema: { fields: { x: { selector: ISSUE_SELECTOR } } } } } } as never);
      assert.fail('expected a ValidationError');
    } catch (err) {
      assert.ok(err instanceof ValidationError, String(err));
      assert.equal(err.field, 'scrapeOptions.extract.schema.fields.x.selector');
    }
  });
});
