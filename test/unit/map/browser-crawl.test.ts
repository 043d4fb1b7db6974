import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crawlForLinks, isCrawlable, type CrawlPageResult } from '../../../services/crawler-frontier/src/map/browser-crawl.js';

// A site as a link graph; fetchPage answers from it after a tick, like the pipeline would.
const SITE: Record<string, string[]> = {
  'https://example.com/': ['/a', '/b', 'https://other.org/x', 'https://blog.example.com/', '/file.pdf', '#top'],
  'https://example.com/a': ['/a/1', '/a/2', '/'],
  'https://example.com/b': ['/b/1', '/a/'],
  'https://example.com/a/1': ['/deep'],
  'https://example.com/a/2': [],
  'https://example.com/b/1': [],
  'https://example.com/deep': [],
  'https://blog.example.com/': ['/post'],
  'https://blog.example.com/post': [],
};

function fakeFetch(log: { url: string; depth: number }[], inFlight = { now: 0, max: 0 }) {
  return async (url: string, depth: number): Promise<CrawlPageResult> => {
    log.push({ url, depth });
    inFlight.now++;
    inFlight.max = Math.max(inFlight.max, inFlight.now);
    await new Promise((r) => setTimeout(r, 5));
    inFlight.now--;
    const links = SITE[url];
    if (!links) return { ok: false, links: [], error: { code: 'NETWORK_ERROR', message: 'no such page' } };
    return { ok: true, links: links.map((l) => new URL(l, url).toString()) };
  };
}

describe('map browser crawl', () => {
  test('breadth first over same-site pages, files listed but not opened, bounded concurrency', async () => {
    const requested: { url: string; depth: number }[] = [];
    const inFlight = { now: 0, max: 0 };
    const found: string[] = [];
    const result = await crawlForLinks({
      startUrl: 'https://example.com/', includeSubdomains: false, maxPages: 100, concurrency: 2,
      signal: new AbortController().signal, fetchPage: fakeFetch(requested, inFlight), onLink: (u) => { found.push(u); },
    });
    assert.deepEqual(requested.map((r) => r.url), [
      'https://example.com/', 'https://example.com/a', 'https://example.com/b',
      'https://example.com/a/1', 'https://example.com/a/2', 'https://example.com/b/1', 'https://example.com/deep',
    ]);
    assert.deepEqual(requested.map((r) => r.depth), [0, 1, 1, 2, 2, 2, 3]);
    assert.ok(inFlight.max <= 2);
    assert.ok(found.includes('https://example.com/file.pdf'));
    assert.ok(!found.some((u) => u.includes('other.org') || u.includes('blog.')));
    assert.deepEqual(result, { pagesRequested: 7, pagesCompleted: 7, pagesFailed: 0, partial: false });
  });

  test('includeSubdomains follows subdomains; maxPages caps the pages requested', async () => {
    const requested: { url: string; depth: number }[] = [];
    const found = new Set<string>();
    await crawlForLinks({
      startUrl: 'https://example.com/', includeSubdomains: true, maxPages: 100, concurrency: 4,
      signal: new AbortController().signal, fetchPage: fakeFetch(requested), onLink: (u) => { found.add(u); },
    });
    assert.ok(found.has('https://blog.example.com/post'));
    const capped: { url: string; depth: number }[] = [];
    const result = await crawlForLinks({
      startUrl: 'https://example.com/', includeSubdomains: false, maxPages: 3, concurrency: 4,
      signal: new AbortController().signal, fetchPage: fakeFetch(capped), onLink: () => undefined,
    });
    assert.equal(capped.length, 3);
    assert.equal(result.partial, true);
  });

  test('reports the start page error; stops when the consumer has enough or at the deadline', async () => {
    const failed = await crawlForLinks({
      startUrl: 'https://nowhere.example/', includeSubdomains: false, maxPages: 10, concurrency: 2,
      signal: new AbortController().signal, fetchPage: fakeFetch([]), onLink: () => undefined,
    });
    assert.equal(failed.startError?.code, 'NETWORK_ERROR');

    const requested: { url: string; depth: number }[] = [];
    await crawlForLinks({
      startUrl: 'https://example.com/', includeSubdomains: false, maxPages: 100, concurrency: 1,
      signal: new AbortController().signal, fetchPage: fakeFetch(requested), onLink: () => false,
    });
    assert.equal(requested.length, 1);

    const hanging = await crawlForLinks({
      startUrl: 'https://example.com/', includeSubdomains: false, maxPages: 100, concurrency: 1,
      signal: AbortSignal.timeout(50), fetchPage: () => new Promise(() => undefined), onLink: () => undefined,
    });
    assert.equal(hanging.partial, true);
    assert.equal(hanging.pagesCompleted, 0);
  });

  test('isCrawlable', () => {
    assert.equal(isCrawlable('https://e.com/a.PDF'), false);
    assert.equal(isCrawlable('https://e.com/docs/v1.2/'), true);
    assert.equal(isCrawlable('https://e.com/page.html'), true);
  });
});
