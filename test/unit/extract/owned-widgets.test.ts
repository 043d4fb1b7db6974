// Compound class names read head last (boilerplate.ts namesOwnedWidget): "entry-author" and
// BEM's "cs-entry__author" name the entry's author box, not the entry, so the box goes even
// when its bio is long prose; "content-behind-paywall" ends in no widget word and its text
// still decides. Hand-made pages through extractPage with onlyMainContent, as the service runs it.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { judgeName, nameTokens } from '../../../packages/extract/src/boilerplate.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const PROSE = [
  'The council approved the new river crossing after a long debate about costs, traffic and the protection of the old harbour walls.',
  'Engineers expect the first pillars to be set next spring, once the water level is low enough for the barges to reach the site.',
  'Residents of both banks will be invited to comment on the lighting plan, which has to balance safety against the bats nesting nearby.',
  'The project is funded jointly by the region and the city, and a quarter of the budget is set aside for unexpected ground conditions.',
];

const BIO =
  'Irene is an experienced writer with five years of experience in technology, retail and food, who currently writes for two magazines about gadgets and the practices behind them, and who spends her free time on long walks along the river.';

function markdown(box: string): string {
  const html = `<!DOCTYPE html><html lang="en"><head><title>River crossing approved</title></head><body>
    <main><article><h1>River crossing approved</h1>
      <div class="entry-content">${[...PROSE, ...PROSE.map((p) => p.replace('The ', 'Then the '))].map((p) => `<p>${p}</p>`).join('')}</div>${box}
    </article></main></body></html>`;
  return extractPage({ html, url: 'https://news.example.com/river', options: normalizeScrapeOptions({ formats: ['markdown'] }) }).markdown!;
}

function verdict(cls: string): string {
  return judgeName(nameTokens(parseDocument(`<div class="${cls}">x</div>`).body.firstElementChild!));
}

describe('widgets named after their owner ("entry-author")', () => {
  test('given an author box named "entry-author" with a long bio, when extracted, then the box goes and the article stays', () => {
    const md = markdown(`<div class="entry-author entry-author-style-center"><b class="author-name"><a href="/author/irene">Irene Okpanachi</a></b><div class="entry-author-description"><p>${BIO}</p></div></div>`);
    for (const p of PROSE) assert.ok(md.includes(p.slice(0, 60)), `article text lost:\n${md}`);
    assert.ok(!md.includes('experienced writer'), `the author box stayed:\n${md}`);
  });

  test('given a BEM author box ("cs-entry__author"), when extracted, then it goes', () => {
    const md = markdown(`<div class="cs-entry__author"><div class="cs-entry__author-info"><p>${BIO}</p></div></div>`);
    assert.ok(!md.includes('experienced writer'), `the author box stayed:\n${md}`);
    assert.ok(md.includes(PROSE[3]!.slice(0, 60)));
  });

  test('given an article whose body talks about its authors, when extracted, then the words do not remove it (only names do)', () => {
    const md = markdown(`<div class="entry-content-more"><p>Every author of the guild writes a short description of their work; ${BIO}</p></div>`);
    assert.ok(md.includes('Every author of the guild'), `prose lost:\n${md}`);
  });

  test('names read head last: a widget word at the end wins over a content word before it; elsewhere the text decides', () => {
    assert.equal(verdict('entry-author'), 'boilerplate');
    assert.equal(verdict('single-content-author'), 'boilerplate');
    assert.equal(verdict('cs-entry__author'), 'boilerplate');
    assert.equal(verdict('article-tags'), 'boilerplate');
    assert.equal(verdict('content-behind-paywall'), 'mixed');
    assert.equal(verdict('sidebar-content'), 'mixed');
    assert.equal(verdict('content-sidebar-wrap'), 'mixed');
    assert.equal(verdict('article-content sticky-sidebar'), 'content');
  });
});
