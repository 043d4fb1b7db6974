import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isSameSite, normalizeUrl } from '../../../shared/src/url-normalize.js';

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
