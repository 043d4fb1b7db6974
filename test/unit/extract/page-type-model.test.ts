// The learned page-type classifier: its page features (page-features.ts), its arithmetic
// (page-type-model.ts) and where its answer is taken (page-type.ts decidePageType). The
// decision is tested with hand-made models whose answer and confidence are known, so that
// the tests say what the decision does whatever the shipped weights are.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { namedPageFeatures, type RuleSignals } from '../../../packages/extract/src/page-features.js';
import { decidePageType, PAGE_FEATURE_NAMES, PAGE_TYPES, SHIPPED_PAGE_TYPE_MODEL, type PageType } from '../../../packages/extract/src/page-type.js';
import { guessPageType, type PageTypeModel } from '../../../packages/extract/src/page-type-model.js';

const noRules: RuleSignals = { url: 'https://example.com/', ldTypes: new Set(), ldType: undefined, ogType: '', generator: '', urlHint: undefined, declared: undefined, thread: false, listing: false, sections: false, cards: undefined, docs: false };

function features(html: string, rules: Partial<RuleSignals> = {}): Map<string, number> {
  return new Map(namedPageFeatures(parseDocument(html), { ...noRules, ...rules }));
}

const paragraph = (i: number): string => `<p>Paragraph ${i} of the story, long enough to be prose: it goes on about its subject for a sentence or two more, as an article does, with a clause added to be sure of it.</p>`;

/** A model that says `type` with a log-odds lead of `lead` over each of the other six kinds (no trees). */
function sureOf(type: PageType, lead: number): PageTypeModel {
  return {
    features: [...PAGE_FEATURE_NAMES],
    classes: PAGE_TYPES.map((t) => ({ type: t, base: t === type ? lead : 0, trees: [] })),
    overrideProbability: 0.8,
    undeclaredProbability: 0.7,
  };
}

const articleBody = `<body><h1>A story</h1>${[0, 1, 2, 3].map(paragraph).join('')}</body>`;
const decide = (html: string, url: string, model: PageTypeModel | null, extra: { jsonLd?: unknown[]; ogType?: string } = {}) =>
  decidePageType(parseDocument(html), { url, jsonLd: extra.jsonLd ?? [], ogType: extra.ogType }, { pageTypeModel: model });

describe('page features', () => {
  test('given prose, headings and a footer, when measured, then prose and headings count outside the site chrome only', () => {
    const x = features(`<html><body><h1>A story</h1><h2>One</h2>${paragraph(0)}<h2>Two</h2>${paragraph(1)}<p>A short line.</p><footer>${paragraph(9)}<h2>Footer</h2></footer></body></html>`);
    assert.equal(x.get('prose'), Math.log1p(2));
    assert.equal(x.get('paragraphs'), Math.log1p(3));
    assert.equal(x.get('tag_h2'), Math.log1p(2));
    assert.ok(x.get('proseShare')! > 0.8, 'the two long paragraphs hold most of the text outside the footer');
    assert.ok(x.get('chromeShare')! > 0.3 && x.get('chromeShare')! < 0.5, 'the footer holds a third of all text');
  });

  test('given forms, prices, code and links, when measured, then each is counted', () => {
    const x = features(`<html><body><form><input><button>Buy</button></form><span class="product-price">$12</span><pre><code>x = 1</code></pre><p><a href="/a">all of it a link</a></p></body></html>`);
    assert.equal(x.get('tag_form'), Math.log1p(1));
    assert.equal(x.get('tag_button'), Math.log1p(1));
    assert.equal(x.get('prices'), Math.log1p(1));
    assert.equal(x.get('tag_pre'), Math.log1p(1));
    assert.ok(x.get('linkDensity')! > 0.5);
  });

  test('given a story URL, when measured, then its depth, slug words, date and path words are read', () => {
    const x = features('<html><body></body></html>', { url: 'https://news.example.com/blog/2024/05/how-we-built-a-tiny-classifier' });
    assert.equal(x.get('urlDepth'), 4);
    assert.equal(x.get('urlLastWords'), 6);
    assert.equal(x.get('urlDate'), 1);
    assert.equal(x.get('path_story'), 1);
    assert.equal(x.get('path_docs'), 0);
    assert.equal(x.get('urlFront'), 0);
    assert.equal(features('<html><body></body></html>', { url: 'https://acme.example/' }).get('urlFront'), 1);
  });

  test('given the rules\' answers, when measured, then they are features as they are', () => {
    const x = features('<html><body></body></html>', { urlHint: 'article', declared: 'article', sections: true, cards: 'collection', ldTypes: new Set(['BreadcrumbList']) });
    assert.equal(x.get('hint_article'), 1);
    assert.equal(x.get('hint_none'), 0);
    assert.equal(x.get('ruleSections'), 1);
    assert.equal(x.get('ruleCards'), 2);
    assert.equal(x.get('ldBreadcrumb'), 1);
    assert.equal(x.get('ld_none'), 1);
  });

  test('the names are the shipped model\'s (a model trained on other features would be refused)', () => {
    assert.deepEqual([...features('<html><body></body></html>').keys()], [...PAGE_FEATURE_NAMES]);
    assert.ok(SHIPPED_PAGE_TYPE_MODEL, 'page-type-model.json matches the features');
  });
});

describe('the classifier\'s guess', () => {
  test('given scores, when guessed, then the highest wins with its softmax probability', () => {
    const sure = guessPageType(sureOf('service', 10), []);
    assert.equal(sure.type, 'service');
    assert.ok(sure.probability > 0.99);
    const unsure = guessPageType(sureOf('listing', 1), []);
    assert.equal(unsure.type, 'listing');
    assert.ok(Math.abs(unsure.probability - Math.E / (Math.E + 6)) < 1e-9);
  });
});

describe('where the classifier decides', () => {
  test('given a firm declaration (JSON-LD, product og:type), when the model says otherwise, then the declaration stays', () => {
    const model = sureOf('listing', 10);
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://shop.example/x', model, { jsonLd: [{ '@type': 'Product' }] }).type, 'product');
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://shop.example/x', model, { ogType: 'product' }).type, 'product');
  });

  test('given only a URL hint, when the model is sure of another kind, then the model wins; when unsure, the hint stays', () => {
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://acme.example/blog/our-services', sureOf('service', 10)).type, 'service');
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://acme.example/blog/our-services', sureOf('service', 1)).type, 'article');
    // The hint is still what the page declared (the layouts for declared kinds read it).
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://acme.example/blog/our-services', sureOf('service', 10)).declared, 'article');
  });

  test('given a page that says nothing, when the model is sure, then it decides; when unsure or absent, the structural rules do', () => {
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://acme.example/story', sureOf('service', 10)).type, 'service');
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://acme.example/story', sureOf('service', 1)).type, 'article');
    assert.equal(decide(`<html>${articleBody}</html>`, 'https://acme.example/story', null).type, 'article');
  });
});
