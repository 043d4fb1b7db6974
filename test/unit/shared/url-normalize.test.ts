import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isSameSite, normalizeUrl } from '../../../shared/src/net/url-normalize.js';

test('fetch form drops fragments, default ports and credentials, lower-cases scheme and host', () => {
  assert.equal(normalizeUrl('HTTP://Example.COM:80/a/b#frag')?.url, 'http://example.com/a/b');
  assert.equal(normalizeUrl('https://user:pw@example.com:443/x?y=1#z')?.url, 'https://example.com/x?y=1');
  assert.equal(normalizeUrl('../c', 'https://example.com/a/b/')?.url, 'https://example.com/a/c');
});

test('key form treats documented variants of one page as one page', () => {
  const key = (u: string) => normalizeUrl(u)?.key;
  assert.equal(key('https://www.example.com/docs/'), key('https://example.com/docs'));
  assert.equal(key('https://example.com/docs/index.html'), key('https://example.com/docs'));
  assert.equal(key('https://example.com/?b=2&a=1&utm_source=x'), key('https://example.com/?a=1&b=2'));
  assert.equal(key('https://example.com/'), 'https://example.com/');
  assert.notEqual(key('https://example.com/a'), key('https://example.com/b'));
  assert.notEqual(key('http://example.com/a'), key('https://example.com/a'));
});

test('rejects non-http schemes and garbage', () => {
  assert.equal(normalizeUrl('mailto:a@b.c'), null);
  assert.equal(normalizeUrl('javascript:void(0)'), null);
  assert.equal(normalizeUrl('not a url'), null);
});

test('same-site rules: www ignored, subdomains only when asked', () => {
  assert.equal(isSameSite('https://www.example.com/x', 'https://example.com'), true);
  assert.equal(isSameSite('https://docs.example.com/x', 'https://example.com'), false);
  assert.equal(isSameSite('https://docs.example.com/x', 'https://example.com', true), true);
  assert.equal(isSameSite('https://badexample.com/x', 'https://example.com', true), false);
});

test('index files and trailing slashes in any order are one page (the crawl fetched /index.html/ and / twice)', () => {
  const key = (u: string) => normalizeUrl(u)?.key;
  assert.equal(key('https://example.com/index.html/'), key('https://example.com/'));
  assert.equal(key('https://example.com/index.html'), key('https://example.com/'));
  assert.equal(key('https://example.com/a/index.html/'), key('https://example.com/a'));
  assert.equal(key('https://example.com/a/index.php//'), key('https://example.com/a/'));
});

// Properties over generated URLs: the key is idempotent (normalizing a key gives the key)
// and does not depend on the order of query parameters or of index files and slashes.
const segment = fc.stringMatching(/^[a-zA-Z0-9._~-]{1,8}$/);
const suffix = fc.constantFrom('', '/', '//', '/index.html', '/index.html/', '/default.aspx', '/index.php/', '/index.htm//');
const param = fc.tuple(fc.stringMatching(/^[a-z_]{1,6}$/), fc.stringMatching(/^[a-zA-Z0-9 %+=&]{0,6}$/));
const host = fc.constantFrom('example.com', 'www.example.com', 'www.www.example.com', 'Docs.Example.COM');
const urlParts = fc.record({ host, path: fc.array(segment, { maxLength: 4 }), suffix, params: fc.array(param, { maxLength: 4 }) });
const build = (p: { host: string; path: string[]; suffix: string }, params: [string, string][]) => {
  const query = params.length ? `?${new URLSearchParams(params).toString()}` : '';
  return `https://${p.host}/${p.path.join('/')}${p.suffix}${query}`;
};

test('property: the key of a key is the key', () => {
  fc.assert(fc.property(urlParts, (p) => {
    const key = normalizeUrl(build(p, p.params))!.key;
    assert.equal(normalizeUrl(key)!.key, key);
  }), { numRuns: 2000, seed: 7 });
});

test('property: query parameter order does not change the key', () => {
  fc.assert(fc.property(urlParts, fc.func(fc.integer()), (p, rank) => {
    const shuffled = [...p.params].sort((a, b) => rank(a) - rank(b));
    assert.equal(normalizeUrl(build(p, shuffled))!.key, normalizeUrl(build(p, p.params))!.key);
  }), { numRuns: 2000, seed: 11 });
});
