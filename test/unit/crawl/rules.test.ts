// Whole crawls against a known link graph (the decider plus a simulated page pipeline):
// exact page sets for depth limits, page limits, each glob form alone and combined,
// duplicates and external links.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simulate } from './helpers.js';
import { ALL_PAGES, DEPTH1, DEPTH2, DEPTH3, linkGraph } from '../../support/link-graph.js';

const EXT = 'https://external.test';

const GRAPH: Record<string, string[]> = {
  ...linkGraph(EXT, ['https://www.site.test/a', 'https://site.test:443/a']),
  [`${EXT}/x`]: [`${EXT}/y`],
  [`${EXT}/y`]: [],
};
const ALL = ALL_PAGES;

const sorted = (xs: string[]): string[] => [...xs].sort();

function crawl(overrides: Parameters<typeof simulate>[1] = {}) {
  const result = simulate(GRAPH, { maxDepth: 10, ...overrides });
  assert.equal(new Set(result.requested).size, result.requested.length, 'no page is requested twice');
  return result;
}

describe('crawl rules: depth', () => {
  test('maxDepth 1: the start page (depth 0) and its direct links', () => {
    assert.deepEqual(sorted(crawl({ maxDepth: 1 }).requested), sorted(DEPTH1));
  });
  test('maxDepth 2', () => {
    assert.deepEqual(sorted(crawl({ maxDepth: 2 }).requested), sorted(DEPTH2));
  });
  test('maxDepth 3 (the default)', () => {
    assert.deepEqual(sorted(crawl({ maxDepth: 3 }).requested), sorted(DEPTH3));
  });
  test('maxDepth 10 reaches the whole same-site graph', () => {
    const r = crawl();
    assert.deepEqual(sorted(r.requested), sorted(ALL));
    assert.deepEqual(
      { status: r.finished.status, totalUrls: r.finished.totalUrls, completedUrls: r.finished.completedUrls, failedUrls: r.finished.failedUrls },
      { status: 'COMPLETED', totalUrls: ALL.length, completedUrls: ALL.length, failedUrls: 0 },
    );
  });
  test('the crawl is breadth-first', () => {
    assert.deepEqual(crawl().requested.slice(0, 5), DEPTH1);
  });
});

describe('crawl rules: limit', () => {
  test('limit 1 scrapes the start page only', () => {
    const r = crawl({ limit: 1 });
    assert.deepEqual(r.requested, ['/']);
    assert.equal(r.finished.totalUrls, 1);
  });
  test('limit 5 takes the first five pages in discovery order', () => {
    const r = crawl({ limit: 5 });
    assert.deepEqual(r.requested, DEPTH1);
    assert.equal(r.finished.totalUrls, 5);
    assert.equal(r.finished.completedUrls, 5);
  });
  test('limit 7 stops inside depth 2', () => {
    const r = crawl({ limit: 7 });
    assert.deepEqual(r.requested, [...DEPTH1, '/a/b', '/docs/intro']);
  });
});

describe('crawl rules: glob forms', () => {
  test('/docs/* : pages directly under /docs/', () => {
    const r = crawl({ startUrl: 'https://site.test/docs', includePaths: ['/docs/*'] });
    assert.deepEqual(sorted(r.requested), sorted(['/docs', '/docs/intro', '/docs/guide', '/docs/intro.pdf']));
  });
  test('/docs/** : pages under /docs/ at any depth', () => {
    const r = crawl({ startUrl: 'https://site.test/docs', includePaths: ['/docs/**'] });
    assert.deepEqual(sorted(r.requested), sorted(['/docs', '/docs/intro', '/docs/guide', '/docs/guide/install', '/docs/guide/install/linux', '/docs/intro.pdf']));
  });
  test('*.pdf included: PDFs linked from included pages (the start page is always scraped)', () => {
    const r = crawl({ includePaths: ['*.pdf'] });
    assert.deepEqual(sorted(r.requested), sorted(['/', '/files/report.pdf']));
  });
  test('*.pdf excluded: every PDF at any depth is left out', () => {
    const r = crawl({ excludePaths: ['*.pdf'] });
    assert.deepEqual(sorted(r.requested), sorted(ALL.filter((p) => !p.endsWith('.pdf'))));
  });
  test('/blog/2024-* : paths beginning /blog/2024-', () => {
    const r = crawl({ startUrl: 'https://site.test/blog', includePaths: ['/blog/2024-*'] });
    assert.deepEqual(sorted(r.requested), sorted(['/blog', '/blog/2024-launch', '/blog/2024-roadmap']));
  });
  test('combined include and exclude lists', () => {
    const r = crawl({ includePaths: ['/docs', '/docs/**', '/blog', '/blog/**'], excludePaths: ['*.pdf', '/blog/2023-*'] });
    assert.deepEqual(sorted(r.requested), sorted([
      '/', '/docs', '/docs/intro', '/docs/guide', '/docs/guide/install', '/docs/guide/install/linux', '/blog', '/blog/2024-launch', '/blog/2024-roadmap',
    ]));
  });
  test('exclude wins over include', () => {
    const r = crawl({ startUrl: 'https://site.test/docs', includePaths: ['/docs/**'], excludePaths: ['/docs/guide/**'] });
    assert.deepEqual(sorted(r.requested), sorted(['/docs', '/docs/intro', '/docs/guide', '/docs/intro.pdf']));
    const same = crawl({ startUrl: 'https://site.test/docs', includePaths: ['/docs/*'], excludePaths: ['/docs/*'] });
    assert.deepEqual(same.requested, ['/docs']);
  });
  test('the start page is scraped even when a pattern excludes it', () => {
    const r = crawl({ maxDepth: 1, excludePaths: ['/**'] });
    assert.deepEqual(r.requested, ['/']);
  });
});

describe('crawl rules: duplicates and hosts', () => {
  test('fragment, trailing-slash, index, www and default-port variants are one page', () => {
    const r = crawl({ maxDepth: 1 });
    assert.equal(r.requested.filter((p) => p === '/a').length, 1);
    assert.equal(r.requested.filter((p) => p === '/').length, 1);
    const verdict = r.events.find((e) => e.event === 'crawl_links_discovered');
    assert.ok(verdict && verdict.event === 'crawl_links_discovered');
    // '/a#frag', '/a/', 'https://www.site.test/a', ':443/a' duplicate /a; '/#top', '/index.html' duplicate /.
    assert.deepEqual(verdict.data.skipped, { duplicate: 6, external: 1, invalid: 1 });
  });
  test('external links are followed only with allowExternalLinks', () => {
    assert.ok(!crawl().requested.some((p) => p.startsWith(EXT)));
    const r = crawl({ allowExternalLinks: true });
    assert.deepEqual(sorted(r.requested), sorted([...ALL, `${EXT}/x`, `${EXT}/y`]));
  });
  test('the start page failing fails the crawl', () => {
    const r = simulate({}, {});
    assert.deepEqual(r.requested, ['/']);
    assert.equal(r.finished.status, 'FAILED');
    assert.equal(r.finished.failedUrls, 1);
  });
  test('other pages failing still complete the crawl, counted as failed', () => {
    const r = simulate({ '/': ['/ok', '/missing'], '/ok': [] }, {});
    assert.deepEqual(
      { status: r.finished.status, totalUrls: r.finished.totalUrls, completedUrls: r.finished.completedUrls, failedUrls: r.finished.failedUrls },
      { status: 'COMPLETED', totalUrls: 3, completedUrls: 2, failedUrls: 1 },
    );
  });
});

describe('crawl rules: bounded concurrency and memory', () => {
  test('a 1000-page crawl never has more than maxInFlight pages in flight and holds no content', () => {
    const graph: Record<string, string[]> = { '/': Array.from({ length: 40 }, (_, i) => `/s${i}`) };
    for (let i = 0; i < 40; i++) graph[`/s${i}`] = Array.from({ length: 40 }, (_, j) => `/s${i}/p${j}`);
    for (let i = 0; i < 40; i++) for (let j = 0; j < 40; j++) graph[`/s${i}/p${j}`] = ['/'];
    const r = simulate(graph, { limit: 1000 }, { maxInFlight: 4 });
    assert.equal(r.requested.length, 1000);
    assert.equal(r.maxInFlight, 4);
    assert.equal(r.finished.completedUrls, 1000);
    assert.equal(r.state.awaitingLinks.size, 0);
    assert.equal(r.state.queue.length, 0);
  });
});
