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
});
