import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const INTRO =
  'Our programmes are designed by working practitioners and taught in the evenings, so that you can keep your job, ' +
  'learn at your own pace, and still finish with a certificate that employers across the region recognise and value.';

function markdown(html: string, url = 'https://school.example.edu/programmes/'): string {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown!;
}

/** A catalogue: two paragraphs of intro, then the items as like cards (a title, a line, links). */
function catalogue(cards: number, head = ''): string {
  const card = (i: number): string =>
    `<div class="col-4"><div class="box"><h4><a href="/programmes/${i}">Programme ${i} in applied studies</a></h4>` +
    `<ul><li><a href="/programmes/${i}/a">Certificate ${i}A</a></li><li><a href="/programmes/${i}/b">Certificate ${i}B</a></li></ul>` +
    `<a class="button" href="/programmes/${i}">Details</a></div></div>`;
  return `<html><head><title>Programmes | School</title>${head}</head><body>
    <header><a href="/">School logo</a><nav><a href="/about">About us</a></nav></header>
    <div class="page"><section><h1>Programmes</h1><p>${INTRO}</p><p>${INTRO.replace('evenings', 'weekends')}</p></section>
    <section><div class="row">${Array.from({ length: cards }, (_, i) => card(i)).join('')}</div></section></div>
    <footer>Copyright School <a href="/privacy">Privacy</a></footer></body></html>`;
}

describe('card grids that Readability cuts', () => {
  test('given a catalogue whose items are link cards after a prose intro, then every card is kept with the intro', () => {
    const md = markdown(catalogue(12));
    assert.match(md, /weekends/);
    for (let i = 0; i < 12; i++) assert.match(md, new RegExp(`Programme ${i} in applied studies`), md);
    assert.match(md, /Certificate 10B/);
    assert.ok(!md.includes('School logo') && !md.includes('Copyright School'), md);
    // The cards come after the intro, not before it.
    assert.ok(md.indexOf('weekends') < md.indexOf('Programme 0 in'), md);
  });

  test('given a long article with a few related-story cards, then the cards stay out', () => {
    const paragraphs = Array.from({ length: 8 }, (_, i) => `<p>${INTRO.replace('programmes', `programmes (part ${i})`)}</p>`).join('');
    const related = Array.from({ length: 4 }, (_, i) => `<div class="teaser"><h4><a href="/story/${i}">Other story number ${i}</a></h4></div>`).join('');
    const html = `<html><head><title>A long read</title></head><body><div class="page"><section><h1>A long read</h1>${paragraphs}</section>
      <section><h2>More</h2><div class="row">${related}</div></section></div></body></html>`;
    const md = markdown(html);
    assert.match(md, /part 7/);
    assert.ok(!md.includes('Other story number'), md);
  });

  test('given a page that declares itself an article, then its card grid is not put back', () => {
    const md = markdown(catalogue(12, '<meta property="og:type" content="article">'));
    assert.match(md, /weekends/);
    assert.ok(!md.includes('Programme 5 in applied studies'), md);
  });

  test('given a page that calls itself an article whose section headings were kept over a line, then each section gets its cards back', () => {
    // A recipe category page: og:type article, an intro, then sections of cards whose classes differ per card (post ids, categories).
    const card = (s: number, i: number): string =>
      `<article class="recipe-card post-${s}${i} category-${s}-${i}"><a href="/recipe-${s}-${i}"><img src="/r${s}${i}.jpg" alt="">` +
      `<h3>Crispy dish number ${s}${i} with a green chili and lime sauce</h3></a></article>`;
    const section = (s: number, name: string): string =>
      `<section><header><h2>${name}</h2></header><p>${INTRO.replace('programmes', 'dinners')}</p><div class="recipe-row">${Array.from({ length: 8 }, (_, i) => card(s, i)).join('')}</div></section>`;
    const html = `<html><head><title>Fryer Recipes</title><meta property="og:type" content="article"></head><body>
      <header><a href="/">Logo</a></header><main><section><div class="cat-desc"><h1>Fryer Recipes</h1><p>${INTRO}</p></div></section>
      ${section(1, 'Top Rated Recipes')}${section(2, 'Chicken Recipes')}</main><footer>Copyright Site</footer></body></html>`;
    const md = markdown(html, 'https://recipes.example.com/recipes/fryer');
    assert.match(md, /keep your job/);
    for (const s of [1, 2]) for (let i = 0; i < 8; i++) assert.match(md, new RegExp(`Crispy dish number ${s}${i}`), md);
    // Under their own headings.
    assert.ok(md.indexOf('Top Rated Recipes') < md.indexOf('Crispy dish number 10') && md.indexOf('Chicken Recipes') < md.indexOf('Crispy dish number 20'), md);
    assert.ok(md.indexOf('Crispy dish number 17') < md.indexOf('Chicken Recipes'), md);
  });

  test('given an article whose kept section heading has its text under it, then a card grid elsewhere in that section is not added', () => {
    const paragraphs = Array.from({ length: 3 }, (_, i) => `<p>${INTRO.replace('programmes', `programmes (part ${i})`)}</p>`).join('');
    const cards = Array.from({ length: 5 }, (_, i) => `<div class="card c${i}"><a href="/p/${i}">Partner school number ${i} of the region</a></div>`).join('');
    const html = `<html><head><title>News</title><meta property="og:type" content="article"></head><body><main><h1>News</h1>
      <h2>What changes</h2>${paragraphs}<aside class="partners"><div class="grid">${cards}</div></aside></main></body></html>`;
    const md = markdown(html, 'https://school.example.edu/2026/05/news');
    assert.match(md, /part 2/);
    assert.ok(!md.includes('Partner school number'), md);
  });

  test('given a catalogue whose cards carry their own ids and categories in their classes, then the cards are still one run and come back', () => {
    const card = (i: number): string =>
      `<div class="post-${i} post type-post category-c${i} tag-t${i}"><h4><a href="/programmes/${i}">Programme ${i} in applied studies</a></h4>` +
      `<ul><li><a href="/programmes/${i}/a">Certificate ${i}A</a></li><li><a href="/programmes/${i}/b">Certificate ${i}B</a></li></ul></div>`;
    const html = `<html><head><title>Programmes | School</title></head><body><div class="page"><section><h1>Programmes</h1><p>${INTRO}</p>
      <p>${INTRO.replace('evenings', 'weekends')}</p></section><section><div class="row">${Array.from({ length: 12 }, (_, i) => card(i)).join('')}</div></section></div></body></html>`;
    const md = markdown(html);
    for (let i = 0; i < 12; i++) assert.match(md, new RegExp(`Programme ${i} in applied studies`), md);
  });
});

