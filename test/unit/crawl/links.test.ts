// The spec's glob table, pattern by pattern, against URL paths.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLink, pathAllowed } from '../../../services/crawler-frontier/src/crawl/links.js';

const inc = (pattern: string, path: string): boolean =>
  pathAllowed(new URL(`https://site.test${path}`), { includePaths: [pattern], excludePaths: [] });

describe('crawl path patterns', () => {
  const table: [string, string, boolean][] = [
    ['/docs/*', '/docs/a', true],
    ['/docs/*', '/docs/a/', true],
    ['/docs/*', '/docs/a.pdf', true],
    ['/docs/*', '/docs', false],
    ['/docs/*', '/docs/', false],
    ['/docs/*', '/docs/a/b', false],
    ['/docs/*', '/other/a', false],
    ['/docs/**', '/docs/a', true],
    ['/docs/**', '/docs/a/b/c', true],
    ['/docs/**', '/docs', false],
    ['/docs/**', '/docsx/a', false],
    ['*.pdf', '/a.pdf', true],
    ['*.pdf', '/a/b/c/report.pdf', true],
    ['*.pdf', '/a/b/c/report.pdf?download=1', true],
    ['*.pdf', '/a/pdf', false],
    ['*.pdf', '/a.pdf.html', false],
    ['/blog/2024-*', '/blog/2024-launch', true],
    ['/blog/2024-*', '/blog/2024-', true],
    ['/blog/2024-*', '/blog/2023-review', false],
    ['/blog/2024-*', '/blog', false],
    ['/blog/2024-*', '/blog/2024-launch/comments', false],
    ['docs/*', '/docs/a', true],
    ['/caf\u00e9/*', '/caf%C3%A9/menu', true],
  ];
  for (const [pattern, path, expected] of table) {
    test(`${pattern} ${expected ? 'matches' : 'does not match'} ${path}`, () => {
      assert.equal(inc(pattern, path), expected);
    });
  }

  test('exclude wins over include', () => {
    const url = new URL('https://site.test/docs/private/a');
    assert.equal(pathAllowed(url, { includePaths: ['/docs/**'], excludePaths: ['/docs/private/**'] }), false);
    assert.equal(pathAllowed(new URL('https://site.test/docs/a'), { includePaths: ['/docs/**'], excludePaths: ['/docs/private/**'] }), true);
  });

  test('no include list includes everything not excluded', () => {
    assert.equal(pathAllowed(new URL('https://site.test/x'), { includePaths: [], excludePaths: [] }), true);
    assert.equal(pathAllowed(new URL('https://site.test/x.pdf'), { includePaths: [], excludePaths: ['*.pdf'] }), false);
  });
});

describe('checkLink', () => {
  const rules = { startUrl: 'https://site.test/', maxDepth: 2, allowExternalLinks: false, includePaths: [], excludePaths: [] };
  test('reasons in order: invalid, depth, external, pattern', () => {
    assert.deepEqual(checkLink('javascript:void(0)', 1, rules), { accept: false, reason: 'invalid' });
    assert.deepEqual(checkLink('https://site.test/a', 3, rules), { accept: false, reason: 'depth' });
    assert.deepEqual(checkLink('https://other.test/a', 1, rules), { accept: false, reason: 'external' });
    assert.deepEqual(checkLink('https://site.test/a.pdf', 1, { ...rules, excludePaths: ['*.pdf'] }), { accept: false, reason: 'pattern' });
  });
  test('www. is the same site; the fetched URL drops the fragment', () => {
    const v = checkLink('https://www.site.test/a#x', 1, rules);
    assert.ok(v.accept);
    assert.equal(v.candidate.url, 'https://www.site.test/a');
  });
});
