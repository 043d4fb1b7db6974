// Section heads named "header": Readability drops every element whose class or id holds
// "header" before it scores the page. After the headline, such an element that holds a
// sub-heading over prose heads a section of the content (a "section-header" around an
// <h2>, a Jimdo "j-header" module) and is kept with its class; a masthead before the
// headline, a header over links and a comment's header are still dropped.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const PROSE = [
  'The company was founded in a small workshop by the river, where the first machines were built by hand over two winters.',
  'Within ten years it employed three hundred people and shipped its looms to customers in eleven countries on three continents.',
  'The second factory opened near the railway station, which cut the time from order to delivery by more than half for most buyers.',
  'Today the old workshop is a museum, and the archive it holds is open to researchers on weekdays after a short written request.',
].map((p) => `<p>${p}</p>`) as [string, string, string, string];

function extract(body: string): { markdown: string; html: string } {
  const html = `<!DOCTYPE html><html><head><title>Our history | Acme</title></head><body>${body}</body></html>`;
  const out = extractPage({ html, url: 'https://www.example.com/about/history', options: normalizeScrapeOptions({ formats: ['markdown', 'html'], onlyMainContent: true }) });
  return { markdown: out.markdown ?? '', html: out.html ?? '' };
}

describe('section heads named "header"', () => {
  test('a sub-heading in a header-named wrapper after the headline, over prose, is kept with its class', () => {
    const { markdown, html } = extract(
      `<div class="site-header"><a href="/">Acme</a></div><main><h1>Our history</h1>${PROSE.join('')}${PROSE[0]}${PROSE[1]}` +
        `<div class="section-header"><h2 id="cc-header-2">The second factory</h2></div>${PROSE[2]}${PROSE[3]}</main>`,
    );
    assert.match(markdown, /^## The second factory$/m, markdown);
    assert.ok(markdown.includes('The second factory opened near the railway station'), markdown);
    assert.ok(html.includes('class="section-header"') && html.includes('id="cc-header-2"'), html);
    assert.ok(!html.includes('data-trawl'), html);
  });

  test('a header over a list of links, or a comment header, after the headline is still dropped', () => {
    const links = Array.from({ length: 5 }, (_, i) => `<li><a href="/story/${i}">Another story from the archive, number ${i}</a></li>`).join('');
    const { markdown } = extract(
      `<main><h1>Our history</h1>${PROSE[0]}${PROSE[1]}${PROSE[2]}${PROSE[3]}` +
        `<div class="more-header"><h2>More from the archive</h2><ul>${links}</ul></div>${PROSE[0].replace('<p>', '<p>Read: ')}` +
        `<div class="comment-header"><h3>Jane wrote on Monday</h3></div>${PROSE[1].replace('<p>', '<p>Reply: ')}</main>`,
    );
    assert.ok(!markdown.includes('More from the archive'), markdown);
    assert.ok(!markdown.includes('Jane wrote on Monday'), markdown);
  });
});
