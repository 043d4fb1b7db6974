import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LinkCollector, searchScore, searchTerms } from '../../../services/crawler-frontier/src/map/filter.js';
import { filterLinks } from '../../support/link-filter.js';

const base = { baseUrl: 'https://example.com/', includeSubdomains: false };

describe('map filter', () => {
  test('normalizes and deduplicates by key, keeping the first form seen', () => {
    const links = filterLinks([
      'https://example.com/docs/',
      'https://EXAMPLE.com/docs#intro',
      'https://www.example.com/docs',
      'https://example.com:443/docs/index.html',
      'https://example.com/a?b=2&a=1',
      'https://example.com/a?a=1&b=2&utm_source=x',
      'https://example.com/',
    ], { ...base, limit: 100 });
    assert.deepEqual(links, ['https://example.com/docs/', 'https://example.com/a?b=2&a=1', 'https://example.com/']);
  });

  test('drops other sites, other schemes and garbage; keeps www variants of the base', () => {
    const links = filterLinks([
      'https://other.org/x',
      'https://example.com.evil.org/x',
      'https://notexample.com/x',
      'mailto:a@example.com',
      'javascript:alert(1)',
      'not a url',
      'https://www.example.com/kept',
      'https://blog.example.com/post',
    ], { ...base, limit: 100 });
    assert.deepEqual(links, ['https://www.example.com/kept']);
  });

  test('includeSubdomains keeps hosts under the base host only', () => {
    const links = filterLinks([
      'https://blog.example.com/post',
      'https://a.b.example.com/deep',
      'https://example.com/root',
      'https://badexample.com/x',
      'https://example.org/x',
    ], { ...base, includeSubdomains: true, limit: 100 });
    assert.deepEqual(links, ['https://blog.example.com/post', 'https://a.b.example.com/deep', 'https://example.com/root']);
    // A www base host means the same site as the bare host.
    const fromWww = filterLinks(['https://docs.example.com/'], { baseUrl: 'https://www.example.com', includeSubdomains: true, limit: 10 });
    assert.deepEqual(fromWww, ['https://docs.example.com/']);
  });

  test('limit caps the result and keeps discovery order without search', () => {
    const urls = Array.from({ length: 50 }, (_, i) => `https://example.com/p${i}`);
    assert.deepEqual(filterLinks(urls, { ...base, limit: 3 }), urls.slice(0, 3));
  });

  test('search is a case-insensitive substring match on every term', () => {
    const links = filterLinks([
      'https://example.com/Blog/Hello-World',
      'https://example.com/about',
      'https://example.com/blog',
      'https://example.com/news?tag=BLOG',
      'https://example.com/caf%C3%A9/menu',
    ], { ...base, search: 'blog', limit: 100 });
    assert.equal(links.length, 3);
    assert.ok(!links.includes('https://example.com/about'));
    assert.deepEqual(filterLinks(['https://example.com/caf%C3%A9/menu'], { ...base, search: 'CAFÉ', limit: 5 }), ['https://example.com/caf%C3%A9/menu']);
    assert.deepEqual(filterLinks(['https://example.com/blog/2024', 'https://example.com/blog/2023'], { ...base, search: 'blog 2024', limit: 5 }), ['https://example.com/blog/2024']);
  });

  test('search ranks whole-segment, then path, then host, then query matches; shorter first', () => {
    const links = filterLinks([
      'https://example.com/?q=docs',
      'https://docs.example.com/start',
      'https://example.com/mydocs-archive/old',
      'https://example.com/docs/getting-started/installation',
      'https://example.com/docs',
      'https://example.com/api/docs.html',
    ], { ...base, includeSubdomains: true, search: 'docs', limit: 100 });
    assert.deepEqual(links, [
      'https://example.com/docs',
      'https://example.com/api/docs.html',
      'https://example.com/docs/getting-started/installation',
      'https://example.com/mydocs-archive/old',
      'https://docs.example.com/start',
      'https://example.com/?q=docs',
    ]);
  });

  test('searchScore and searchTerms', () => {
    assert.deepEqual(searchTerms('  Foo   bar '), ['foo', 'bar']);
    assert.deepEqual(searchTerms(undefined), []);
    assert.equal(searchScore('https://example.com/x', []), 0);
    assert.equal(searchScore('https://example.com/x', ['y']), null);
    assert.equal(searchScore('https://example.com/foo/bar', ['foo', 'bar']), 0);
  });

  test('LinkCollector stops keeping entries when full and resolves relative links', () => {
    const c = new LinkCollector(base, 2);
    assert.equal(c.add('/a', 'https://example.com/x/'), true);
    assert.equal(c.add('/a/', 'https://example.com/'), false);
    assert.equal(c.add('b', 'https://example.com/x/'), true);
    assert.equal(c.full, true);
    assert.equal(c.add('/c', 'https://example.com/'), false);
    assert.deepEqual(c.links(10), ['https://example.com/a', 'https://example.com/x/b']);
  });
});
