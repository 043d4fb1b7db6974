// Documentation pages: the heading permalinks that docs generators add (Sphinx and MkDocs
// "¶", "#" anchors) are not words of the heading, a page whose body sits in a wrapper right
// after its <h1> comes out once, not twice (the lead is not the body), and every panel of a
// tab set of code samples is kept.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';
import { parseDocument } from '../../../packages/extract/src/dom.js';
import { isLogoHeading, restoreLead } from '../../../packages/extract/src/lead.js';

const PROSE: string[] = [
  'This guide walks through installing the command line tool, creating a first project and running it on a local machine.',
  'Every step shows the command to type and what it prints, so that a mistake is easy to spot before moving on to the next one.',
  'When something fails, the troubleshooting section at the end lists the usual causes and how to check each of them quickly.',
  'The configuration file is read once at start-up; a change to it takes effect after the service is started again by hand.',
].map((p) => `<p>${p}</p>`);

function markdown(title: string, body: string, url = 'https://docs.example.com/guide/intro'): string {
  const html = `<!DOCTYPE html><html><head><title>${title}</title></head><body>${body}</body></html>`;
  return extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true }) }).markdown ?? '';
}

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

describe('documentation pages', () => {
  test('heading permalinks (a symbol linking to the heading itself) are dropped, the heading words stay', () => {
    const md = markdown(
      'Introduction | Acme Docs',
      `<main><h1 id="introduction">Introduction<a class="headerlink" href="#introduction" title="Permanent link">¶</a></h1>${PROSE[0]}${PROSE[1]}` +
        `<section id="install"><h2>Install<a href="https://docs.example.com/guide/intro#install">¶</a></h2>${PROSE[2]}</section>` +
        `<h2 id="languages"><a href="#languages">#</a> C# and F#</h2>${PROSE[3]}</main>`,
    );
    assert.match(md, /^# Introduction$/m, md);
    assert.match(md, /^## Install$/m, md);
    assert.match(md, /^## C# and F#$/m, md);
    assert.equal(count(md, '¶'), 0, md);
  });

  test("an API entry's permalink (Sphinx's <dt> signature) is dropped, also when the page was encoded twice (Â¶); its words stay", () => {
    const entry = (id: string, mark: string): string => `<dl class="py function"><dt class="sig" id="${id}"><code>${id}(obj, *, indent=None)</code><a class="headerlink" href="#${id}">${mark}</a></dt><dd>${PROSE[1]}</dd></dl>`;
    const md = markdown('json | Python docs', `<main><h1>json</h1>${PROSE[0]}${entry('json.dumps', '¶')}${entry('json.loads', 'Â¶')}${PROSE[2]}</main>`);
    assert.ok(md.includes('json.dumps(obj, *, indent=None)') && md.includes('json.loads(obj, *, indent=None)'), md);
    assert.equal(count(md, '¶'), 0, md);
  });

  test("a definition term's link to another entry keeps its text", () => {
    const md = markdown('json | Python docs', `<main><h1>json</h1>${PROSE[0]}<dl><dt id="dumps">dumps <a href="#loads">§</a></dt><dd>${PROSE[1]}</dd></dl>${PROSE[2]}</main>`);
    assert.ok(md.includes('§'), md);
  });

  test("a docs site's name in an <h1> linking to a folder's index file above the page is its logo; an <h1> linking to its own page's index.html is the headline", () => {
    const h1 = (href: string): Element => parseDocument(`<html><body><h1><a href="${href}">Guide</a></h1></body></html>`).querySelector('h1')!;
    assert.equal(isLogoHeading(h1('https://docs.example.com/guide/index.html'), 'https://docs.example.com/guide/index.html'), false);
    assert.equal(isLogoHeading(h1('https://docs.example.com/guide/index.html'), 'https://docs.example.com/guide/'), false);
    assert.equal(isLogoHeading(h1('https://docs.example.com/index.htm'), 'https://docs.example.com/guide/setup.html'), true);
  });

  test('a heading link to another anchor, or one with words, is kept', () => {
    const md = markdown(
      'Introduction | Acme Docs',
      `<main><h1>Introduction</h1>${PROSE[0]}${PROSE[1]}<h2 id="next">See <a href="#install">¶ Install</a></h2>${PROSE[2]}` +
        `<h2 id="sign"><a href="https://docs.example.com/other#signs-table">§</a> Signs</h2>${PROSE[3]}</main>`,
    );
    assert.ok(md.includes('¶ Install'), md);
    assert.ok(md.includes('§'), md);
  });

  test('a body in a wrapper right after the <h1> (with a sidebar beside it) is printed once', () => {
    const sidebar = Array.from({ length: 8 }, (_, i) => `<li><a href="/guide/p${i}">Chapter ${i} of the guide</a></li>`).join('');
    const md = markdown(
      'Service | Acme Docs',
      `<header><h1>Service</h1></header><div class="row"><main><div class="col-3"><ul>${sidebar}</ul></div><div class="content">${PROSE.join('')}${PROSE.map((p) => p.replace('<p>', '<p>Again: ')).join('')}</div></main></div>`,
    );
    assert.equal(count(md, 'This guide walks through installing'), 2, md);
    assert.equal(count(md, 'The configuration file is read once'), 2, md);
  });

  test('a lead block that wraps an intro and the body gives back only the intro', () => {
    const doc = parseDocument(`<!DOCTYPE html><html><body><div id="article"><h1>Service</h1>${PROSE[1]}${PROSE[2]}</div>` +
      `<div id="lead">${PROSE[0]!.replace(/<\/?p>/g, '')}<section>${PROSE[1]}${PROSE[2]}</section></div></body></html>`);
    const article = doc.getElementById('article')!;
    restoreLead(article, [doc.getElementById('lead')!.cloneNode(true) as Element]);
    const text = article.textContent ?? '';
    assert.equal(count(text, 'This guide walks through installing'), 1, text);
    assert.equal(count(text, 'Every step shows the command'), 1, text);
    assert.equal(count(text, 'When something fails'), 1, text);
    assert.equal(article.children[1]?.nodeName, 'P', 'the intro comes right after the heading');
    assert.ok(article.children[1]?.textContent?.startsWith('This guide walks'), article.innerHTML);
  });

  test('a docs page keeps every panel of a WAI-ARIA tab set (one code sample per language); an article does not', () => {
    const tabs =
      '<div role="tablist"><button role="tab" aria-selected="true" aria-controls="py">Python</button><button role="tab" aria-controls="js">Node.js</button></div>' +
      '<div role="tabpanel" id="py"><p>Install the Python library with pip, then import the client and create it with your key.</p><pre><code>pip install acme-sdk</code></pre></div>' +
      '<div role="tabpanel" id="js" hidden style="display:none"><p>Install the Node.js library with npm, then require the client and create it with your key.</p><pre><code>npm install acme-sdk</code></pre></div>';
    const page = `<main><h1>Quickstart</h1>${PROSE[0]}${PROSE[1]}${tabs}${PROSE[2]}${PROSE[3]}</main>`;
    const docs = markdown('Quickstart | Acme Docs', page, 'https://docs.example.com/docs/quickstart');
    assert.ok(docs.includes('pip install acme-sdk'), docs);
    assert.ok(docs.includes('npm install acme-sdk'), docs);
    const article = markdown('Quickstart | Acme Blog', page, 'https://www.example.com/blog/2026/quickstart');
    assert.ok(article.includes('pip install acme-sdk'), article);
    assert.ok(!article.includes('npm install acme-sdk'), article);
  });

  test("a DocBook manual's prev / up / home / next tables (navheader, navfooter) go, the chapter's text stays", () => {
    const nav = (cls: string): string =>
      `<div class="${cls}"><table summary="Navigation"><tr><th colspan="3">Chapter 11. Indexes</th></tr><tr>` +
      '<td><a accesskey="p" href="typeconv.html">Prev</a></td><th>Part II. The SQL Language</th><td><a accesskey="n" href="indexes-intro.html">Next</a></td></tr></table></div>';
    const md = markdown(
      'Chapter 11. Indexes',
      `<div id="docContent">${nav('navheader')}<h2 class="title">Chapter 11. Indexes</h2>${PROSE.join('')}${nav('navfooter')}</div>`,
      'https://docs.example.com/docs/current/indexes.html',
    );
    assert.ok(md.includes('The configuration file is read once'), md);
    assert.ok(!md.includes('Part II. The SQL Language'), md);
    assert.ok(!/\bPrev\b|\bNext\b/.test(md), md);
  });
});
