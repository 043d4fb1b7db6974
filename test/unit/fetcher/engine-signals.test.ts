// The auto engine's two page-level judgements: client-side rendering markers in served HTML,
// and whether two markdowns (and link sets) are "the same page".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csrMarkers, SERVED_LINKS_MIN, SERVED_STRUCTURE } from '../../../services/fetcher/src/engine/csr-markers.js';
import { comparePages } from '../../../services/fetcher/src/engine/similarity.js';

const TEXT = 'A server-rendered article has its words in the HTML that the server sends. '.repeat(6);
const page = (body: string, head = ''): string => `<!doctype html><html><head><title>t</title>${head}</head><body>${body}</body></html>`;

describe('client-side rendering markers', () => {
  test('a server-rendered page with scripts has none', () => {
    assert.deepEqual(csrMarkers(page(`<main><h1>Title</h1><p>${TEXT}</p></main><script src="/analytics.js"></script><div id="root"><p>x</p></div>`)), []);
  });
  test('an empty app root', () => {
    assert.deepEqual(csrMarkers(page(`<p>${TEXT}</p><div id="__next"></div>`)), ['empty app root #__next']);
  });
  test('<noscript> asking for JavaScript', () => {
    assert.deepEqual(csrMarkers(page(`<p>${TEXT}</p><noscript>You need to enable JavaScript to run this app.</noscript>`)), ['<noscript> asks for JavaScript']);
  });
  test('a meta refresh', () => {
    assert.deepEqual(csrMarkers(page(`<p>${TEXT}</p>`, '<meta http-equiv="Refresh" content="0; url=/next">')), ['meta refresh']);
  });
  test('little body text beside big scripts', () => {
    const markers = csrMarkers(page(`<p>Loading…</p><script>${'var x = 1;'.repeat(200)}</script>`));
    assert.equal(markers.length, 1);
    assert.match(markers[0]!, /little body text \(\d+ chars\) beside scripts/);
  });
  describe('little text: a short page its server rendered is a kind apart from an app shell', () => {
    const scripts = '<script src="/_app.js"></script>';
    const links = (n: number): string => Array.from({ length: n }, (_, i) => `<li><a href="/a/${i}">Notes ${i}</a></li>`).join('');
    test('an index with a heading and links in the served DOM', () =>
      assert.deepEqual(csrMarkers(page(`<div id="__next"><main><h1>Notes</h1><ul>${links(6)}</ul></main></div>${scripts}`)), [`little body text (47 chars) beside scripts, ${SERVED_STRUCTURE}`]));
    test('an empty shell', () => assert.deepEqual(csrMarkers(page(`<div id="app"></div>${scripts}`)), ['empty app root #app', 'little body text (0 chars) beside scripts']));
    test('a shell whose header and menu are served (a site name and links in the chrome) is still a shell', () =>
      assert.deepEqual(csrMarkers(page(`<header><h1>Notes</h1><nav><ul>${links(6)}</ul></nav></header><div id="content"></div>${scripts}`)), ['little body text (47 chars) beside scripts']));
    test(`a heading beside fewer than ${SERVED_LINKS_MIN} links, or links without a heading, is not enough`, () => {
      assert.deepEqual(csrMarkers(page(`<main><h1>Notes</h1><ul>${links(SERVED_LINKS_MIN - 1)}</ul></main>${scripts}`)), ['little body text (19 chars) beside scripts']);
      assert.deepEqual(csrMarkers(page(`<main><ul>${links(6)}</ul></main>${scripts}`)), ['little body text (42 chars) beside scripts']);
    });
    test('links without text (icons) do not count', () =>
      assert.deepEqual(csrMarkers(page(`<main><h1>Notes</h1>${'<a href="/x"><img src="/i.png"></a>'.repeat(6)}</main>${scripts}`)), ['little body text (5 chars) beside scripts']));
  });
  test('an empty element an inline script fills by id', () => {
    assert.deepEqual(
      csrMarkers(page(`<p>${TEXT}</p><section id="specs"></section><script>document.getElementById('specs').innerHTML = '<p>built</p>'</script>`)),
      ['script fills empty #specs'],
    );
  });
  describe('a data island read by id is not an empty element (SSR frameworks hydrate from it)', () => {
    const article = `<main><h1>Server-rendered</h1><p>${TEXT}</p></main>`;
    const islands: [string, string, string][] = [
      ['Next.js pages router', '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"id":7}},"page":"/a"}</script>', 'JSON.parse(document.getElementById("__NEXT_DATA__").textContent)'],
      ['Nuxt', '<script type="application/json" id="__NUXT_DATA__" data-ssr="true">[{"state":1},{"id":7}]</script>', "const el = document.getElementById('__NUXT_DATA__'); JSON.parse(el.textContent)"],
      ['Astro / a hand-made island', '<script id="props-7" type="application/json">{"id":7}</script>', "document.querySelector('#props-7').textContent"],
      ['JSON-LD', '<script id="ld" type="application/ld+json">{"@type":"Article"}</script>', "$('#ld').text()"],
      ['an import map', '<script id="map" type="importmap">{"imports":{"a":"/a.js"}}</script>', "document.getElementById('map')"],
      ['an empty executable script with an id', '<script id="boot" src="/boot.js"></script>', "document.getElementById('boot').dataset.x"],
      ['an empty template', '<template id="row"></template>', "document.getElementById('row').content"],
    ];
    for (const [name, island, reader] of islands) {
      test(name, () => assert.deepEqual(csrMarkers(page(`<div id="__next">${article}</div>${island}<script>${reader}</script>`)), []));
    }
    test('an empty element beside the island is still one', () => {
      const html = page(`${article}<div id="comments"></div><script id="d" type="application/json">{}</script><script>const d = document.getElementById('d'); document.getElementById('comments').textContent = d.textContent</script>`);
      assert.deepEqual(csrMarkers(html), ['script fills empty #comments']);
    });
  });
  test('JSON data scripts do not count as scripts', () => {
    assert.deepEqual(csrMarkers(page(`<p>Short.</p><script type="application/ld+json">${'{"a":1}'.repeat(300)}</script>`)), []);
  });
});

describe('same page', () => {
  const words = (n: number, prefix = 'w'): string => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
  test('identical markdown (whitespace aside) and links', () => {
    const r = comparePages({ markdown: `# T\n\n${words(50)}`, links: ['a', 'b'] }, { markdown: `# T\n${words(50)}  `, links: ['b', 'a'] });
    assert.deepEqual(r, { markdown: 1, links: 1, identical: true, agreed: true });
  });
  test('one changed word in 300 is still the same page', () => {
    const a = words(300);
    const b = a.replace('w150', 'changed');
    const r = comparePages({ markdown: a, links: [] }, { markdown: b, links: [] });
    assert.equal(r.identical, false);
    assert.ok(r.agreed, JSON.stringify(r));
  });
  test('a missing paragraph is not', () => {
    const r = comparePages({ markdown: words(100), links: [] }, { markdown: `${words(100)} ${words(40, 'p')}`, links: [] });
    assert.equal(r.agreed, false);
  });
  test('a link only one side has is not', () => {
    const links = Array.from({ length: 10 }, (_, i) => `http://h/${i}`);
    const r = comparePages({ markdown: words(100), links }, { markdown: words(100), links: [...links, 'http://h/extra'] });
    assert.equal(r.markdown, 1);
    assert.equal(r.agreed, false);
  });
});
