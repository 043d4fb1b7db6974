import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normalizeScrapeOptions, type ScrapeOptionsInput } from '../../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../../packages/extract/src/index.js';

const URL_ = 'https://example.com/docs/guide/page.html';

function markdownOf(body: string, options: ScrapeOptionsInput = {}, head = ''): string {
  const html = `<!DOCTYPE html><html><head><title>T</title>${head}</head><body>${body}</body></html>`;
  const out = extractPage({ html, url: URL_, options: normalizeScrapeOptions({ onlyMainContent: false, ...options }) });
  assert.equal(typeof out.markdown, 'string');
  return out.markdown!;
}

describe('markdown: structure', () => {
  test('tables become GFM tables with a header separator', () => {
    const md = markdownOf(`
      <table>
        <thead><tr><th>Name</th><th align="right">Price</th></tr></thead>
        <tbody><tr><td>Apple</td><td align="right">1.20</td></tr><tr><td>Pear | green</td><td align="right">0.90</td></tr></tbody>
      </table>`);
    const lines = md.split('\n');
    assert.deepEqual(lines, ['| Name | Price |', '| --- | ---: |', '| Apple | 1.20 |', '| Pear \\| green | 0.90 |']);
  });

  test('a table without header cells gets an empty header row; colspan keeps columns aligned', () => {
    const md = markdownOf(`
      <table>
        <tr><td colspan="2">Totals</td><td>x</td></tr>
        <tr><td>a</td><td>b</td><td>c</td></tr>
      </table>`);
    const rows = md.split('\n').filter((l) => l.startsWith('|'));
    assert.equal(rows.length, 4);
    const columns = rows.map((row) => row.split('|').length);
    assert.ok(columns.every((n) => n === columns[0]), `every row has the same column count:\n${md}`);
    assert.match(md, /\| Totals \|\s+\| x\s+\|/);
  });

  test('layout tables (nested tables, lists in cells, one column) are flattened, not kept as HTML', () => {
    const md = markdownOf(`
      <table><tr><td><h2>Menu</h2><ul><li>One</li><li>Two</li></ul></td><td><table><tr><td>inner a</td><td>inner b</td></tr><tr><td>c</td><td>d</td></tr></table></td></tr></table>
      <table><tr><td>single column</td></tr><tr><td>second row</td></tr></table>`);
    assert.doesNotMatch(md, /<\/?(table|td|tr|div)/i);
    assert.match(md, /^## Menu$/m);
    assert.match(md, /^- One$/m);
    assert.match(md, /\| inner a \| inner b \|/);
    assert.match(md, /^single column$/m);
  });

  test('fenced code blocks carry the language from language-x, lang-x, data-lang or highlight-source-x', () => {
    const md = markdownOf(`
      <pre><code class="language-typescript">const a: number = 1;\nconsole.log(a);</code></pre>
      <pre class="lang-python"><code>print("hi")</code></pre>
      <pre data-lang="rust">fn main() {}</pre>
      <div class="highlight highlight-source-go"><pre>package main</pre></div>
      <pre><code>no language</code></pre>`);
    assert.match(md, /```typescript\nconst a: number = 1;\nconsole\.log\(a\);\n```/);
    assert.match(md, /```python\nprint\("hi"\)\n```/);
    assert.match(md, /```rust\nfn main\(\) \{\}\n```/);
    assert.match(md, /```go\npackage main\n```/);
    assert.match(md, /```\nno language\n```/);
  });

  test('code keeps <br> line breaks and syntax-highlighting spans, and fences longer than inner backticks', () => {
    const md = markdownOf('<pre><code class="language-md"><span>line 1</span><br><span>```</span><br>line 3</code></pre>');
    assert.match(md, /^````md\nline 1\n```\nline 3\n````$/m);
  });

  test('headings are ATX; empty headings are dropped; lists use "-" and "1."', () => {
    const md = markdownOf(`
      <h1>Title</h1><h2></h2><h3>Sub <em>part</em></h3>
      <ul><li>alpha</li><li>beta<ul><li>nested</li></ul></li></ul>
      <ol start="3"><li>three</li><li>four</li></ol>`);
    assert.match(md, /^# Title$/m);
    assert.match(md, /^### Sub \*part\*$/m);
    assert.doesNotMatch(md, /^#+\s*$/m);
    assert.match(md, /^- alpha\n- beta\n {2}- nested$/m);
    assert.match(md, /^3\. three\n4\. four$/m);
  });

  test('no scripts, styles, templates, hidden elements or form controls leak; at most one blank line', () => {
    const md = markdownOf(`
      <p>Visible</p><script>var leaked = 1;</script><style>.leak { color: red }</style>
      <noscript>Enable JS</noscript><template><p>Templated</p></template>
      <div hidden>Hidden attr</div><div style="display: none">Display none</div><div aria-hidden="true">Aria hidden</div>
      <button>Click me</button><select><option>Option text</option></select>
      <svg><title>Icon title</title></svg>
      <p>One</p><br><br><br><br><div></div><div></div><p>Two</p>`);
    for (const leak of ['leaked', '.leak', 'Enable JS', 'Templated', 'Hidden attr', 'Display none', 'Aria hidden', 'Click me', 'Option text', 'Icon title']) {
      assert.ok(!md.includes(leak), `"${leak}" leaked into:\n${md}`);
    }
    assert.doesNotMatch(md, /\n{3,}/);
    assert.equal(md, md.trim());
    assert.match(md, /^Visible/);
  });
});

describe('markdown: links and images', () => {
  test('relative links and images are made absolute against the page URL', () => {
    const md = markdownOf(`<p><a href="../api/">API</a> <a href="/root">Root</a> <a href="//cdn.example.org/x">Proto</a>
      <img src="img/a.png" alt="A"> <img src="/b.png" alt="B"></p>`);
    assert.match(md, /\[API\]\(https:\/\/example\.com\/docs\/api\/\)/);
    assert.match(md, /\[Root\]\(https:\/\/example\.com\/root\)/);
    assert.match(md, /\[Proto\]\(https:\/\/cdn\.example\.org\/x\)/);
    assert.match(md, /!\[A\]\(https:\/\/example\.com\/docs\/guide\/img\/a\.png\)/);
    assert.match(md, /!\[B\]\(https:\/\/example\.com\/b\.png\)/);
  });

  test('a <base href> is the base for relative URLs (itself resolved against the page URL)', () => {
    const md = markdownOf('<p><a href="x.html">X</a> <img src="pic.jpg" alt="P"></p>', {}, '<base href="/static/v2/">');
    assert.match(md, /\[X\]\(https:\/\/example\.com\/static\/v2\/x\.html\)/);
    assert.match(md, /!\[P\]\(https:\/\/example\.com\/static\/v2\/pic\.jpg\)/);
  });

  test('empty links, javascript: links and data: images are dropped; their text stays', () => {
    const md = markdownOf(`<p>Before <a href="/empty"></a><a href="/spaces">   </a>
      <a href="javascript:void(0)">Run</a> <a href="#section">Anchor</a> <a>No href</a>
      <img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="> after</p>`);
    assert.doesNotMatch(md, /\[\s*\]\(/);
    assert.doesNotMatch(md, /javascript:/);
    assert.doesNotMatch(md, /data:image/);
    assert.match(md, /Run/);
    assert.match(md, /Anchor/);
    assert.match(md, /No href/);
  });

  test('a link around block content stays one valid link line; image links keep the image', () => {
    const md = markdownOf(`<a href="/post"><h3>Card title</h3><p>Teaser text</p></a>
      <p><a href="/big.png"><img src="/small.png" alt="thumb"></a></p>`);
    assert.match(md, /\[Card title Teaser text\]\(https:\/\/example\.com\/post\)/);
    assert.match(md, /\[!\[thumb\]\(https:\/\/example\.com\/small\.png\)\]\(https:\/\/example\.com\/big\.png\)/);
  });

  test('lazy images get their real source from data-src or srcset', () => {
    const md = markdownOf(`<p><img src="data:image/gif;base64,AAAA" data-src="/real.jpg" alt="lazy">
      <img srcset="/small.jpg 300w, /large.jpg 1200w" alt="set"></p>`);
    assert.match(md, /!\[lazy\]\(https:\/\/example\.com\/real\.jpg\)/);
    assert.match(md, /!\[set\]\(https:\/\/example\.com\/large\.jpg\)/);
  });
});

describe('markdown: soft hyphens', () => {
  test('soft hyphens (raw or &shy;) leave the words whole; code keeps its bytes', () => {
    const md = markdownOf('<p>Der Ort St. Mag\u00ADda\u00ADle\u00ADna liegt bei Bo&shy;zen.</p><pre><code>a\u00ADb</code></pre>');
    assert.match(md, /Der Ort St\. Magdalena liegt bei Bozen\./);
    assert.ok(!md.split('```')[0]!.includes('\u00AD'), md);
    assert.ok(md.includes('a\u00ADb'), 'a fenced code block is left as it is');
  });
});
