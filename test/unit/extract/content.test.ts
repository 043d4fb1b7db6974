import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../shared/src/domain/errors.js';
import { normalizeScrapeOptions, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';
import { extractPage, type ExtractOutput } from '../../../packages/extract/src/index.js';

const PARAGRAPH =
  'The committee met on Tuesday to review the proposal in detail, weighing the costs of the new bridge against ' +
  'the benefits for commuters, cyclists and the businesses along the river, and agreed to publish its findings.';

/** An article page with site chrome around it: header, nav, aside, footer. */
const ARTICLE_PAGE = `<!DOCTYPE html><html lang="en"><head><title>Bridge report</title></head><body>
  <header class="site-header"><a href="/">Site Logo</a><nav><a href="/news">News</a> <a href="/sport">Sport</a></nav></header>
  <main><article>
    <h1>Bridge report published</h1>
    <p class="lead">${PARAGRAPH}</p>
    <p>${PARAGRAPH.replace('Tuesday', 'Wednesday')}</p>
    <div class="ad-slot">Advertisement: buy now</div>
    <p>${PARAGRAPH.replace('Tuesday', 'Thursday')}</p>
    <pre><code class="language-sh">echo bridge</code></pre>
  </article></main>
  <aside class="sidebar"><h2>Most read</h2><a href="/other">Other story</a></aside>
  <footer>Copyright Example News <a href="/about">About</a></footer>
</body></html>`;

function run(options: ScrapeOptionsInput, html = ARTICLE_PAGE): ExtractOutput {
  return extractPage({ html, url: 'https://news.example.com/2024/bridge', options: normalizeScrapeOptions(options) });
}

describe('content selection', () => {
  test('onlyMainContent (default) keeps the article and drops header, nav, sidebar and footer', () => {
    const md = run({}).markdown!;
    assert.match(md, /^# Bridge report published$/m);
    assert.match(md, /met on Tuesday/);
    assert.match(md, /met on Thursday/);
    assert.match(md, /```sh\necho bridge\n```/);
    for (const chrome of ['Site Logo', 'Sport', 'Most read', 'Copyright Example News']) {
      assert.ok(!md.includes(chrome), `"${chrome}" should not be in the main content:\n${md}`);
    }
  });

  test('onlyMainContent false keeps the whole body, header and footer included', () => {
    const md = run({ onlyMainContent: false }).markdown!;
    for (const text of ['Site Logo', 'News', 'Most read', 'Copyright Example News', 'met on Tuesday']) {
      assert.ok(md.includes(text), `"${text}" missing from the whole-body markdown:\n${md}`);
    }
  });

  test('a page that is not an article (a listing) keeps its content without site chrome', () => {
    const items = Array.from({ length: 12 }, (_, i) => `<li><a href="/p/${i}">Product ${i}</a> <span>$${i}.99</span></li>`).join('');
    const html = `<html><head><title>Shop</title></head><body><nav><a href="/">Home</a> <a href="/cart">Cart</a></nav>
      <main><h1>All products</h1><ul>${items}</ul></main><footer>Footer text</footer></body></html>`;
    const md = run({}, html).markdown!;
    assert.match(md, /Product 0/);
    assert.match(md, /Product 11/);
    assert.ok(!md.includes('Footer text'), md);
    assert.ok(!md.includes('Cart'), md);
  });

  test('a home page of teaser cards keeps every teaser (not just the one Readability would pick)', () => {
    const card = (i: number) =>
      `<div class="col"><div class="card"><h3><a href="/s/${i}">Story ${i} headline</a></h3><p>Teaser for story ${i}, with a comma, and more words.</p></div></div>`;
    const rows = [0, 3, 6].map((start) => `<section>${[start, start + 1, start + 2].map(card).join('')}</section>`).join('');
    const html = `<html><head><title>Home</title></head><body><header><a href="/">Logo</a></header>${rows}<footer>Footer text</footer></body></html>`;
    const md = run({}, html).markdown!;
    for (let i = 0; i < 9; i++) assert.match(md, new RegExp(`^### \\[Story ${i} headline\\]\\(https://news\\.example\\.com/s/${i}\\)$`, 'm'));
    assert.ok(!md.includes('Logo') && !md.includes('Footer text'), md);
  });

  test('an app root hidden with aria-hidden behind an open modal (cookie banner) is still the content', () => {
    const html = ARTICLE_PAGE.replace('<main>', '<div id="root" aria-hidden="true"><main>').replace('</main>', '</main></div>')
      .replace('</body>', '<div role="dialog" class="cookie-consent"><p>We use cookies</p><button>Accept</button></div></body>');
    const md = run({}, html).markdown!;
    assert.match(md, /met on Tuesday/);
    assert.match(md, /^# Bridge report published$/m);
  });

  test('includeTags keeps only matching elements, in page order, instead of Readability', () => {
    const out = run({ includeTags: ['footer', '.lead', 'nav'], formats: ['markdown', 'html'] });
    const md = out.markdown!;
    assert.ok(md.indexOf('News') < md.indexOf('met on Tuesday'), 'nav comes before the lead paragraph');
    assert.ok(md.indexOf('met on Tuesday') < md.indexOf('Copyright'), 'the lead comes before the footer');
    assert.ok(!md.includes('Wednesday') && !md.includes('Bridge report published') && !md.includes('Site Logo'), md);
    assert.match(out.html!, /^<nav>/);
  });

  test('includeTags: an element inside another match is taken once', () => {
    const md = run({ includeTags: ['article', 'p.lead'] }).markdown!;
    assert.equal(md.split('met on Tuesday').length - 1, 1, md);
  });

  test('excludeTags removes matching elements (before Readability or includeTags)', () => {
    const md = run({ excludeTags: ['.ad-slot', 'pre'] }).markdown!;
    assert.ok(!md.includes('Advertisement'), md);
    assert.ok(!md.includes('echo bridge'), md);
    assert.match(md, /met on Thursday/);
    const both = run({ includeTags: ['article'], excludeTags: ['p.lead'] }).markdown!;
    assert.ok(!both.includes('met on Tuesday') && both.includes('met on Wednesday'), both);
  });

  test('an invalid CSS selector is a ValidationError naming the field', () => {
    assert.throws(() => run({ includeTags: ['div[[['] }), (err: unknown) => err instanceof ValidationError && err.field === 'includeTags');
    assert.throws(() => run({ excludeTags: ['>>>'] }), (err: unknown) => err instanceof ValidationError && err.field === 'excludeTags');
  });
});

describe('formats', () => {
  test('html is the cleaned content: no scripts, styles, comments or hidden elements; URLs absolute', () => {
    const html = `<html><head><style>p{}</style></head><body><div id="c"><!-- note --><p>Kept <a href="/x">link</a></p>
      <script>alert(1)</script><p hidden>secret</p><img src="i.png" alt="i"><iframe src="/embed">fallback text</iframe></div></body></html>`;
    const out = run({ onlyMainContent: false, formats: ['html'] }, html);
    assert.equal(out.markdown, undefined);
    const cleaned = out.html!;
    assert.match(cleaned, /<p>Kept <a href="https:\/\/news\.example\.com\/x">link<\/a><\/p>/);
    assert.match(cleaned, /<img src="https:\/\/news\.example\.com\/2024\/i\.png" alt="i">/);
    assert.match(cleaned, /<iframe src="https:\/\/news\.example\.com\/embed"><\/iframe>/);
    for (const junk of ['<script', 'alert(1)', '<style', 'note', 'secret', 'fallback text']) assert.ok(!cleaned.includes(junk), `${junk} in ${cleaned}`);
  });

  test('html with onlyMainContent is the article without Readability wrapper or upper-case tags', () => {
    const cleaned = run({ formats: ['html'] }).html!;
    assert.match(cleaned, /met on Tuesday/);
    assert.doesNotMatch(cleaned, /readability-page|<DIV|Site Logo|data-trawl/);
  });

  test('content formats are computed only when asked for; links and metadata always are', () => {
    const out = run({ formats: ['links'] });
    assert.equal(out.markdown, undefined);
    assert.equal(out.html, undefined);
    assert.ok(out.links.length > 0);
    assert.equal(out.metadata.title, 'Bridge report');
  });
});
