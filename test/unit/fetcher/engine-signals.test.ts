// The auto engine's two page-level judgements: client-side rendering markers in served HTML,
// and whether two markdowns (and link sets) are "the same page".
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csrMarkers } from '../../../services/fetcher/src/engine/csr-markers.js';
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
  test('an empty element an inline script fills by id', () => {
    assert.deepEqual(
      csrMarkers(page(`<p>${TEXT}</p><section id="specs"></section><script>document.getElementById('specs').innerHTML = '<p>built</p>'</script>`)),
      ['script fills empty #specs'],
    );
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
