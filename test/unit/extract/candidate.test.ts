import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { betterCandidate, semanticContainers } from '../../../packages/extract/src/candidate.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';

const PROSE = (n: number): string =>
  `Paragraph ${n}: the council approved the new cycle lanes after a long debate about parking, ` +
  'deliveries and the safety of children on their way to school, and work starts in spring.';

function body(html: string): Element {
  return parseDocument(`<!DOCTYPE html><html><body>${html}</body></html>`).body;
}

/** Readability's article as it would come out: the title heading and the one column it kept. */
function readabilityArticle(): Element {
  return body(`<div><h1>Cycle lanes approved</h1><p>${PROSE(1)}</p></div>`).firstElementChild!;
}

describe('candidate comparison (Readability article vs the page <article>)', () => {
  test('given a two-column <article> of which Readability kept one, the whole <article> wins', () => {
    const page = body(`<article><div class="col"><p>${PROSE(1)}</p></div><div class="col"><p>${PROSE(2)}</p><p>${PROSE(3)}</p></div></article>`);
    const chosen = betterCandidate(readabilityArticle(), semanticContainers(page));
    assert.equal(chosen.nodeName, 'ARTICLE');
    for (const n of [1, 2, 3]) assert.ok(chosen.textContent!.includes(`Paragraph ${n}:`));
    assert.equal(chosen.querySelector('h1')?.textContent, 'Cycle lanes approved', 'the title heading comes along');
  });

  test('given an <article> barely longer than the article, Readability keeps it (furniture is not a cut body)', () => {
    const page = body(`<article><p>${PROSE(1)}</p><p>Short note.</p></article>`);
    const article = readabilityArticle();
    assert.equal(betterCandidate(article, semanticContainers(page)), article);
  });

  test('given an <article> that does not hold the article, or is mostly links, Readability keeps it', () => {
    const other = body(`<article><p>${PROSE(7)}</p><p>${PROSE(8)}</p><p>${PROSE(9)}</p></article>`);
    const article = readabilityArticle();
    assert.equal(betterCandidate(article, semanticContainers(other)), article);
    const links = Array.from({ length: 12 }, (_, i) => `<a href="/s/${i}">Another story about the city council number ${i}</a>`).join(' ');
    const linky = body(`<article><p>${PROSE(1)}</p><div>${links}</div><div>${links}</div></article>`);
    assert.equal(betterCandidate(article, semanticContainers(linky)), article);
  });

  test('given a listing (many <article> teasers), there is no container', () => {
    const page = body(Array.from({ length: 6 }, (_, i) => `<article><p>${PROSE(i)}</p></article>`).join(''));
    assert.deepEqual(semanticContainers(page), []);
  });

  test('given a <main> of several sections of which Readability kept one, <main> wins when asked for, and only then', () => {
    const page = () => body(`<main><section><p>${PROSE(1)}</p></section><section><h2>Plans</h2><p>${PROSE(2)}</p></section><section><h2>Support</h2><p>${PROSE(3)}</p></section></main>`);
    const chosen = betterCandidate(readabilityArticle(), semanticContainers(page(), { main: true }));
    assert.equal(chosen.nodeName, 'MAIN');
    for (const n of [1, 2, 3]) assert.ok(chosen.textContent!.includes(`Paragraph ${n}:`));
    const article = readabilityArticle();
    assert.equal(betterCandidate(article, semanticContainers(page())), article, 'a news page does not take its <main>');
  });

  test('given an <article> inside <main> that does not win, <main> is still tried', () => {
    const page = body(`<main><article><p>${PROSE(1)}</p></article><section><p>${PROSE(2)}</p><p>${PROSE(3)}</p></section></main>`);
    const chosen = betterCandidate(readabilityArticle(), semanticContainers(page, { main: true }));
    assert.equal(chosen.nodeName, 'MAIN');
  });
});
