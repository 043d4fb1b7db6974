// metadata.pageType (page-type.ts) and the layout it selects: a forum thread keeps every
// post with its author line, where the article layout kept one post and dropped the rest
// as comments.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

function run(html: string, url = 'https://example.com/page') {
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'] }) });
}

const ld = (type: string): string => `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': type, name: 'x' })}</script>`;
const body = '<main><h1>Heading</h1><p>Some text of the page that is long enough to read as a paragraph of content.</p></main>';

describe('metadata.pageType', () => {
  test('from JSON-LD @type, strongest first', () => {
    assert.equal(run(`<html><head>${ld('Product')}${ld('BreadcrumbList')}</head><body>${body}</body></html>`).metadata.pageType, 'product');
    assert.equal(run(`<html><head>${ld('DiscussionForumPosting')}</head><body>${body}</body></html>`).metadata.pageType, 'forum');
    assert.equal(run(`<html><head>${ld('TechArticle')}</head><body>${body}</body></html>`).metadata.pageType, 'documentation');
    assert.equal(run(`<html><head>${ld('CollectionPage')}</head><body>${body}</body></html>`).metadata.pageType, 'collection');
    assert.equal(run(`<html><head>${ld('NewsArticle')}</head><body>${body}</body></html>`).metadata.pageType, 'article');
  });

  test('from a forum engine, og:type and the URL', () => {
    assert.equal(run(`<html><head><meta name="generator" content="Discourse 3.2"></head><body>${body}</body></html>`).metadata.pageType, 'forum');
    assert.equal(run(`<html><head><meta property="og:type" content="product"></head><body>${body}</body></html>`).metadata.pageType, 'product');
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://acme.dev/docs/install').metadata.pageType, 'documentation');
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://board.example.org/viewtopic.php?t=12').metadata.pageType, 'forum');
    assert.equal(run(`<html><head><meta property="og:type" content="article"></head><body>${body}</body></html>`).metadata.pageType, 'article');
  });

  test('og:type product.group is a group of products (a shop\'s category page), not one product', () => {
    assert.equal(run(`<html><head><meta property="og:type" content="product.group"></head><body>${body}</body></html>`).metadata.pageType, 'collection');
    assert.equal(run(`<html><head><meta property="og:type" content="product.item"></head><body>${body}</body></html>`).metadata.pageType, 'product');
  });

  test('a blog\'s or a newsroom\'s own root is the index of its stories (listing); a path under it is a story', () => {
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://acme.example/blog/').metadata.pageType, 'listing');
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://lab.example.edu/news').metadata.pageType, 'listing');
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://acme.example/blog/how-we-ship').metadata.pageType, 'article');
  });

  test('a forum\'s own host (a name with "forum" in it, a community subdomain) is a forum when the path says nothing else', () => {
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://www.makersforum.example/beginners/1234-first-lathe.html').metadata.pageType, 'forum');
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://community.acme.example/some-question').metadata.pageType, 'forum');
    assert.equal(run(`<html><body>${body}</body></html>`, 'https://community.acme.example/docs/install').metadata.pageType, 'documentation');
    assert.notEqual(run(`<html><body>${body}</body></html>`, 'https://www.communityhealth.example/some-page').metadata.pageType, 'forum');
    // A thread that its engine's SEO plugin calls an Article is still a thread there; elsewhere an Article is an article.
    assert.equal(run(`<html><head>${ld('Article')}</head><body>${body}</body></html>`, 'https://www.makersforum.example/beginners/1234-first-lathe.html').metadata.pageType, 'forum');
    assert.equal(run(`<html><head>${ld('Article')}</head><body>${body}</body></html>`, 'https://www.makers.example/beginners/1234-first-lathe.html').metadata.pageType, 'article');
    assert.equal(run(`<html><head>${ld('Product')}</head><body>${body}</body></html>`, 'https://www.makersforum.example/shop/lathe').metadata.pageType, 'product');
  });

  test('from a thread declared in microdata (QAPage, DiscussionForumPosting), not from an article\'s Comment items', () => {
    assert.equal(run(`<html><body itemscope itemtype="https://schema.org/QAPage">${body}</body></html>`).metadata.pageType, 'forum');
    assert.equal(run(`<html><body><div itemscope itemtype="https://schema.org/DiscussionForumPosting">${body}</div></body></html>`).metadata.pageType, 'forum');
    const comments = '<section><div itemscope itemtype="https://schema.org/Comment">Nice piece.</div><div itemscope itemtype="https://schema.org/Comment">Thanks.</div></section>';
    assert.notEqual(run(`<html><body>${body}${comments}</body></html>`).metadata.pageType, 'forum');
  });

  test('a /products/ URL is a product page only when the page names a price: a software vendor\'s "products" are its services', () => {
    const sections = ['Scale on demand', 'Pay for what you run', 'Connect your data']
      .map((h) => `<section><h2>${h}</h2><p>A short blurb about ${h.toLowerCase()}.</p><a href="/start">Start free</a></section>`)
      .join('');
    const service = `<html><body><main><h1>Functions</h1>${sections}</main></body></html>`;
    assert.equal(run(service, 'https://cloud.example.com/en-us/products/functions').metadata.pageType, 'service');
    const shop = `<html><body><main><h1>Stoneware mug</h1><p class="product-price">£24.00</p><p>A hand-thrown mug.</p></main></body></html>`;
    assert.equal(run(shop, 'https://shop.example/products/stoneware-mug').metadata.pageType, 'product');
    const microdata = `<html><body><main><h1>Stoneware mug</h1><span itemprop="price" content="24">£24</span></main></body></html>`;
    assert.equal(run(microdata, 'https://shop.example/p/stoneware-mug').metadata.pageType, 'product');
  });
});

describe('a page that declares nothing, by its posts', () => {
  const post = (i: number, body: string): string =>
    `<div class="entry"><div class="byline"><a class="username" href="/members/user${i}">user${i}</a> <span class="date">Mar ${i + 1}, 2024</span></div><div class="message"><p>${body}</p></div></div>`;
  const reply = (i: number): string => `Reply ${i}: I had the same trouble with the hinge, and a longer screw into the frame fixed it for good after two tries.`;

  test('given a run of posts that holds most of the page\'s text, then it is a thread', () => {
    const html = `<html><body><h1>Loose cabinet hinge</h1>${[0, 1, 2, 3].map((i) => post(i, reply(i))).join('')}</body></html>`;
    assert.equal(run(html, 'https://example.com/topic-9').metadata.pageType, 'forum');
  });

  test('given an article whose comments are a small part of the text, or two posts only, then it is no thread', () => {
    const paragraph = (i: number): string => `<p>Paragraph ${i} of the article about cabinet hinges: how they wear, why screws work loose over the years and what a careful fix looks like in an old kitchen.</p>`;
    const article = `<html><body><article><h1>Cabinet hinges</h1>${Array.from({ length: 12 }, (_, i) => paragraph(i)).join('')}</article><section>${[0, 1, 2].map((i) => post(i, `Thanks ${i}, useful.`)).join('')}</section></body></html>`;
    assert.notEqual(run(article, 'https://example.com/cabinet-hinges').metadata.pageType, 'forum');
    const two = `<html><body><h1>Loose cabinet hinge</h1>${[0, 1].map((i) => post(i, reply(i))).join('')}</body></html>`;
    assert.notEqual(run(two, 'https://example.com/topic-9').metadata.pageType, 'forum');
  });
});

describe('a page that declares nothing, by its prose', () => {
  const paragraph = (i: number): string => `<p>Paragraph ${i} of the story, long enough to be prose: it goes on about the subject with a sentence or two more, as stories do, with one more clause to be sure.</p>`;
  const blurb = (i: number): string => `<section><h2>What we do, part ${i}</h2><p>Short blurb ${i} about the offer.</p><ul><li>Fast setup</li><li>Support that answers</li></ul><a href="/contact">Talk to us</a></section>`;

  test('mostly prose: article', () => {
    assert.equal(run(`<html><body><h1>A story</h1>${[0, 1, 2, 3].map(paragraph).join('')}</body></html>`).metadata.pageType, 'article');
  });

  test('sections of headings, short blurbs and calls to action: a site\'s own page (service)', () => {
    assert.equal(run(`<html><body><h1>Acme consulting</h1>${[0, 1, 2, 3, 4].map(blurb).join('')}</body></html>`).metadata.pageType, 'service');
  });

  test('the site chrome and scripts do not count: long prose in a footer does not make an article, a script does not make a service', () => {
    const footer = `<footer>${[0, 1, 2].map(paragraph).join('')}</footer>`;
    assert.equal(run(`<html><body><h1>Acme</h1>${[0, 1, 2].map(blurb).join('')}${footer}</body></html>`).metadata.pageType, 'service');
    const script = `<script>${'var x = 1;'.repeat(500)}</script>`;
    assert.equal(run(`<html><body><h1>A story</h1>${[0, 1, 2].map(paragraph).join('')}${script}</body></html>`).metadata.pageType, 'article');
  });
});

describe('a listing by its structure', () => {
  const cards = (n: number): string => Array.from({ length: n }, (_, i) => `<div class="card"><h3><a href="/item/${i}">Item number ${i}</a></h3><span>A short line about item ${i} and its use.</span></div>`).join('');
  const prose = (n: number): string => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i} of the article, long enough to be prose: it goes on about the subject with a sentence or two more, as articles do on every page, with one more clause to be sure.</p>`).join('');

  test('like cards with a link and a line each, and little prose: listing', () => {
    assert.equal(run(`<html><body><h1>Garden tools</h1><section>${cards(8)}</section></body></html>`).metadata.pageType, 'listing');
  });

  test('an article with a grid of related cards stays an article', () => {
    assert.equal(run(`<html><body><h1>Heading</h1>${prose(4)}<section>${cards(8)}</section></body></html>`).metadata.pageType, 'article');
  });

  test('cards in the site chrome (a mega menu) and too few cards do not make a listing', () => {
    assert.equal(run(`<html><body><nav><div>${cards(10)}</div></nav>${prose(1)}</body></html>`).metadata.pageType, 'article');
    assert.notEqual(run(`<html><body><section>${cards(5)}</section></body></html>`).metadata.pageType, 'listing');
  });
});

describe('the forum layout', () => {
  test('a thread keeps every post with its author line, without the site chrome', () => {
    const posts = [
      ['marta', 'The backup job fails every night since the upgrade, with a permission error on the snapshot folder of the second disk.'],
      ['jon', 'Check that the service account still owns the folder: the upgrade resets ownership on some systems, ours included.'],
      ['marta', 'That was it. After giving the folder back to the service account the job ran fine last night, thank you very much.'],
      ['li', 'Same problem here, same fix. It would be good if the release notes mentioned it, it cost us a whole morning to find.'],
    ];
    const thread = posts.map(([who, text]) => `<div class="comment"><div class="author">${who}</div><div class="comment-body"><p>${text}</p></div><div class="reply"><a href="/r">Reply</a></div></div>`).join('');
    const html = `<html><head><title>Backup fails after upgrade - Example Forum</title><meta name="generator" content="phpBB"></head><body>
      <header><nav><a href="/">Forum index</a> <a href="/faq">FAQ</a></nav></header>
      <div id="page"><h1>Backup fails after upgrade</h1><div class="topic">${thread}</div></div>
      <aside><h3>Similar topics</h3><ul><li><a href="/t/1">Restore is slow</a></li><li><a href="/t/2">Disk full</a></li></ul></aside>
      <footer>Powered by phpBB</footer></body></html>`;
    const out = run(html, 'https://forum.example.com/viewtopic.php?t=99');
    assert.equal(out.metadata.pageType, 'forum');
    const md = out.markdown!;
    for (const [who, text] of posts) {
      assert.ok(md.includes(text!), `post lost:\n${md}`);
      assert.ok(md.includes(who!), `author line lost:\n${md}`);
    }
    assert.match(md, /^# Backup fails after upgrade/);
    for (const chrome of ['Forum index', 'Similar topics', 'Powered by phpBB']) assert.ok(!md.includes(chrome), `${chrome} leaked:\n${md}`);
  });

});
