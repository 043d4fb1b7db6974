// The benchmark's pure helpers: statistics, /proc parsing, the page generators, the crawl
// site's link graph, the stage breakdown and the report table.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import zlib from 'node:zlib';
import { crawlLinks, crawlPageOf, crawlPath } from '../../../bench/lib/crawl-site.js';
import { natsUrlFromLogs, stageBreakdown } from '../../../bench/lib/events.js';
import { parseAutocannon } from '../../../bench/lib/autocannon.js';
import { articleHtml, sitemapSite } from '../../../bench/lib/pages.js';
import { classify, descendants, parseSmapsRollup, parseStat } from '../../../bench/lib/proc.js';
import { median, medianOfFields, percentile } from '../../../bench/lib/stats.js';
import { formatTable, missing, row } from '../../../bench/lib/table.js';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeUrl } from '../../../shared/src/net/url-normalize.js';

describe('stats', () => {
  test('nearest-rank percentiles pick a sample', () => {
    const xs = Array.from({ length: 30 }, (_, i) => 30 - i); // 30..1, unsorted on purpose
    assert.equal(percentile(xs, 50), 15);
    assert.equal(percentile(xs, 95), 29);
    assert.equal(percentile(xs, 100), 30);
    assert.equal(percentile(xs, 0), 1);
    assert.equal(median([5]), 5);
    assert.ok(Number.isNaN(median([])));
    assert.throws(() => percentile([1], 101), RangeError);
  });

  test('medianOfFields skips missing values', () => {
    assert.deepEqual(medianOfFields([{ a: 1, b: 10 }, { a: 3 }, { a: 2, b: 30 }], ['a', 'b']), { a: 2, b: 10 });
  });
});

describe('/proc parsing', () => {
  test('stat: a command name with spaces and parentheses', () => {
    const line = '4242 (Web Content (x)) S 4200 4242 4242 0 -1 4194560 1 0 0 0 150 50 7 3 20 0 1 0 100 1000 200 18446744073709551615';
    assert.deepEqual(parseStat(line), { pid: 4242, comm: 'Web Content (x)', ppid: 4200, cpuTicks: 210, childTicks: 10, startTime: 100 });
  });

  test('smaps_rollup: Rss and Pss in kB', () => {
    const text = '55b79ea26000-7ffd90425000 ---p 00000000 00:00 0  [rollup]\nRss:                1628 kB\nPss:                 241 kB\nPss_Dirty:           112 kB\n';
    assert.deepEqual(parseSmapsRollup(text), { rssKb: 1628, pssKb: 241 });
    assert.deepEqual(parseSmapsRollup(''), { rssKb: 0, pssKb: 0 });
  });

  test('descendants walk the whole tree under the root, and only it', () => {
    const parentOf = new Map([[1, 0], [10, 1], [11, 10], [12, 10], [13, 12], [20, 1]]);
    assert.deepEqual(descendants(10, parentOf).sort(), [10, 11, 12, 13]);
    assert.deepEqual(descendants(99, parentOf), []);
  });

  test('processes are classified by command line', () => {
    assert.deepEqual(classify('/usr/bin/node --enable-source-maps /repo/dist/services/fetcher/src/main.js'), { kind: 'service', name: 'fetcher' });
    assert.equal(classify('/usr/lib/chromium/chromium-headless-shell --type=renderer').kind, 'chromium');
    assert.equal(classify('/proc/self/exe --type=utility --utility-sub-type=network.mojom.NetworkService --lang=en-US').kind, 'chromium');
    assert.equal(classify('nats-server -js -a 127.0.0.1').kind, 'nats');
    assert.equal(classify('/usr/bin/node /repo/dist/scripts/start.js').kind, 'supervisor');
    assert.deepEqual(classify('/usr/bin/node --optimize-for-size /repo/dist/scripts/service-host.js projector:0 crawler-frontier:0'), { kind: 'service', name: 'service-host' });
  });
});

describe('pages', () => {
  test('an article is deterministic, near its target size, and has the usual parts', () => {
    const a = articleHtml({ seed: 1, targetBytes: 100_000 });
    assert.equal(a, articleHtml({ seed: 1, targetBytes: 100_000 }));
    assert.notEqual(a, articleHtml({ seed: 2, targetBytes: 100_000 }));
    assert.ok(a.length >= 100_000 && a.length < 110_000, `size ${a.length}`);
    for (const part of ['<nav>', '<table>', '<pre><code', '<h2', '<blockquote>', '<footer>', '<img ']) assert.ok(a.includes(part), part);
  });

  test('body links are all placed in the article', () => {
    const links = Array.from({ length: 14 }, (_, i) => ({ href: `/articles/p${i}`, text: `A${i}` }));
    const html = articleHtml({ seed: 3, targetBytes: 70_000, navLinks: [], bodyLinks: links, footerLinks: [], relatedLinks: [] });
    for (const l of links) assert.ok(html.includes(`href="${l.href}"`), l.href);
    const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(hrefs.length, links.length + 1); // + the cookie banner's privacy link
  });

  test('sitemap site: an index of children, the last gzip-compressed', () => {
    const site = sitemapSite('http://127.0.0.1:1', 3, 4);
    assert.equal(site.urlCount, 12);
    assert.equal(site.files.size, 4);
    const index = site.files.get('/sitemap.xml')!.body.toString();
    assert.equal([...index.matchAll(/<loc>/g)].length, 3);
    const gz = site.files.get('/sitemaps/part-2.xml.gz')!;
    assert.equal([...zlib.gunzipSync(gz.body).toString().matchAll(/<loc>/g)].length, 4);
  });
});

describe('crawl site', () => {
  const pages = 500;

  test('every page is reachable from / within 5 levels, with about 20 links each', () => {
    const depth = new Map<number, number>([[0, 0]]);
    const queue = [0];
    while (queue.length) {
      const i = queue.shift()!;
      const { nav, body } = crawlLinks(i, pages);
      assert.ok(nav.length + body.length >= 18 && nav.length + body.length <= 22, `page ${i}: ${nav.length + body.length} links`);
      for (const l of [...nav, ...body]) {
        const target = crawlPageOf(l.href)!;
        assert.ok(target >= 0 && target < pages, l.href);
        if (!depth.has(target)) { depth.set(target, depth.get(i)! + 1); queue.push(target); }
      }
    }
    assert.equal(depth.size, pages);
    assert.ok(Math.max(...depth.values()) <= 5);
  });

  test('duplicates are spelled with fragments and trailing slashes, and normalize to one page', () => {
    const hrefs = Array.from({ length: pages }, (_, i) => crawlLinks(i, pages)).flatMap((l) => [...l.nav, ...l.body]).map((l) => l.href);
    assert.ok(hrefs.some((h) => h.includes('#')));
    assert.ok(hrefs.some((h) => h.endsWith('/') && h !== '/'));
    for (const h of hrefs.slice(0, 200)) {
      assert.equal(normalizeUrl(`http://x${h}`)!.key, normalizeUrl(`http://x${crawlPath(crawlPageOf(h)!)}`)!.key, h);
    }
    assert.equal(crawlPageOf('/articles/p7/'), 7);
    assert.equal(crawlPageOf('/articles/p7?x=1'), 7);
    assert.equal(crawlPageOf('/robots.txt'), undefined);
  });
});

describe('stage breakdown', () => {
  const ev = (event: string, data: Record<string, unknown>) => ({ event, data }) as unknown as StoredEvent;
  const timings = { queueWaitMs: 5, fetchMs: 80, renderMs: 300, screenshotMs: 0, transformMs: 120, totalMs: 700 };

  test('splits totalMs by the services\' own timestamps, the last attempt counting', () => {
    const events = [
      ev('page_requested', { requestedAt: '2025-01-01T00:00:00.000Z' }),
      ev('page_started', { startedAt: '2025-01-01T00:00:00.002Z' }),
      ev('page_started', { startedAt: '2025-01-01T00:00:00.005Z' }),
      ev('page_fetched', { fetchedAt: '2025-01-01T00:00:00.505Z' }),
      ev('page_completed', { completedAt: '2025-01-01T00:00:00.700Z' }),
    ];
    assert.deepEqual(stageBreakdown(events, timings), {
      queueMs: 5, fetcherMs: 500, browserWorkMs: 380, fetcherOverheadMs: 120, transformerMs: 195, transformMs: 120, transformerOverheadMs: 75,
    });
    assert.equal(stageBreakdown(events.slice(0, 3), timings), undefined);
  });

  test('the NATS URL is read from the supervisor output', () => {
    assert.equal(natsUrlFromLogs('[trawl] nats-server with JetStream at nats://127.0.0.1:4222 (store /tmp/x)\n'), 'nats://127.0.0.1:4222');
    assert.equal(natsUrlFromLogs('nothing'), undefined);
  });
});

describe('report', () => {
  test('ratios, missing rows and a Markdown table', () => {
    const rows = [
      row('1. Scrape latency', 'p50', 300, { unit: 'ms', baseline: 600 }),
      row('1. Scrape latency', 'p95', 'x | y'),
      missing('5. Map'),
    ];
    assert.equal(rows[0]!.ratio, 0.5);
    const table = formatTable(rows).split('\n');
    assert.equal(table.length, 5);
    assert.match(table[2]!, /\| 1\. Scrape latency \| p50 +\| 300 ms +\| 600 ms +\| 0\.5× +\|/);
    assert.match(table[3]!, /^\| +\| p95/); // the benchmark name is not repeated
    assert.match(table[3]!, /x \\\| y/);
    assert.match(table[4]!, /n\/a \(endpoint missing\)/);
  });

  test('autocannon JSON is reduced to the reported figures', () => {
    const json = JSON.stringify({
      requests: { average: 1234.5, total: 12345 }, latency: { p50: 30, p99: 90, average: 35 },
      non2xx: 2, errors: 0, timeouts: 1, statusCodeStats: { 200: { count: 12343 }, 429: { count: 2 } },
    });
    assert.deepEqual(parseAutocannon(json), {
      requestsPerSec: 1234.5, p50Ms: 30, p99Ms: 90, meanMs: 35, total: 12345, non2xx: 2, errors: 0, timeouts: 1, statusCodes: { 200: 12343, 429: 2 },
    });
  });
});
