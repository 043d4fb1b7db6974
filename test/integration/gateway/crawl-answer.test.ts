// GET /crawl/:id is written page by page (routes/streamed-view.ts) instead of being built
// whole: its body must be, byte for byte, what the route's response schema serializes for
// the whole view, for a running crawl (stopped at its first page still loading), a finished
// one with many pages over several store reads, and a first part cut by the answer's bound
// with `next` (JOB_DATA_MAX_BYTES, set to 256 KB here: the same cut as at 10 MB, with pages
// 40 times smaller to write, read and compare). Real nats-server, store and projector (test/support/gateway.ts); the test plays
// the frontier's and the pipeline's part by appending their events.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import { makeEvent, type AnyEvent, type PageResultPayload } from '../../../shared/src/domain/events/index.js';
import { newId } from '../../../shared/src/infra/ids.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { CrawlJobView, type CrawlPageEntry } from '../../../shared/src/api/index.js';
import { startGateway, type GatewayHarness } from '../../support/gateway.js';

const KEY = 'crawl_answer_key_00000001';
const BASE = 'https://trawl.test';
/** The answer's bound on content (JOB_DATA_MAX_BYTES; 10 MB by default). */
const DATA_MAX_BYTES = 256 * 1024;

/** The old answer: the whole view, serialized by a route with the same response schema. */
async function wholeViewBody(view: unknown): Promise<string> {
  const app = Fastify();
  app.get('/', { schema: { response: { 200: CrawlJobView } } }, async () => view);
  try {
    return (await app.inject({ method: 'GET', url: '/' })).body;
  } finally {
    await app.close();
  }
}

describe('a crawl GET written page by page', () => {
  let gateway: GatewayHarness;

  before(async () => {
    gateway = await startGateway({ keys: [[KEY, 'team']], env: { SSRF_ALLOW_CIDRS: '127.0.0.0/8', PUBLIC_BASE_URL: BASE, JOB_DATA_MAX_BYTES: String(DATA_MAX_BYTES) }, payloadTtlMs: 600_000 });
  });
  after(() => gateway.close());

  const get = (url: string) => gateway.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${KEY}` } });

  async function append(event: AnyEvent): Promise<void> {
    const { seq } = await gateway.log.append(event, { once: true });
    await gateway.waiter.waitFor(seq);
  }
  const at = (id: string, part: string) => ({ kind: 'crawl' as const, id, part });
  const meta = () => ({ eventId: newId(), now: new Date() });

  /** Starts a crawl through the API and requests `count` pages of it (the frontier's part). */
  async function crawlOf(count: number): Promise<{ id: string; urls: string[] }> {
    const res = await gateway.app.inject({
      method: 'POST', url: '/api/v1/crawl', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ url: 'http://127.0.0.1:9/', limit: 1000 }),
    });
    assert.equal(res.statusCode, 202, res.body);
    const { id } = res.json() as { id: string };
    await append(makeEvent('crawl_started', at(id, 'job'), { startedAt: new Date().toISOString() }, meta()) as AnyEvent);
    const urls = Array.from({ length: count }, (_, i) => `http://127.0.0.1:9/p${i}`);
    for (const [i, url] of urls.entries()) {
      await append(makeEvent('page_requested', at(id, `p${i}`), {
        url, options: normalizeScrapeOptions({ formats: ['markdown'] }), apiKeyId: 'k', depth: i === 0 ? 0 : 1, requestedAt: new Date().toISOString(),
      }, meta()) as AnyEvent);
    }
    return { id, urls };
  }

  async function complete(id: string, part: string, payload: PageResultPayload, metadata: Record<string, unknown>, links: string[]): Promise<void> {
    const result = await gateway.payloads.putJson(`crawl/${id}/${part}/result.json`, payload);
    await append(makeEvent('page_completed', at(id, part), {
      result, metadata: metadata as never, links,
      timings: { queueWaitMs: 0, fetchMs: 0, renderMs: 0, transformMs: 0, screenshotMs: 0, totalMs: 0 }, completedAt: new Date().toISOString(),
    }, meta()) as AnyEvent);
  }

  async function fail(id: string, part: string): Promise<void> {
    await append(makeEvent('page_failed', at(id, part), { error: { code: 'NETWORK_ERROR', message: 'gone' }, failedAt: new Date().toISOString(), attempt: 1 }, meta()) as AnyEvent);
  }

  /** Markdown with what JSON must escape: quotes, backslashes, control and line separators, astral and lone surrogates. */
  const markdownOf = (i: number, size = 0): string => `# Page ${i} "quoted" \\ back\nline\u2028sep\u0001 ✓ 🦀 \ud800 end ${'x'.repeat(size)}`;
  const entryOf = (url: string, i: number, size = 0): CrawlPageEntry => ({
    url, depth: i === 0 ? 0 : 1, markdown: markdownOf(i, size),
    metadata: { title: `T${i} "é"`, description: '', engine: 'http', statusCode: 200, sourceUrl: url, extra: { n: i } } as CrawlPageEntry['metadata'],
    links: [`http://127.0.0.1:9/p${i + 1}`, 'http://127.0.0.1:9/a?b="c"'],
  });
  const completeAs = (id: string, entry: CrawlPageEntry, i: number) =>
    complete(id, `p${i}`, { markdown: entry.markdown! }, entry.metadata, entry.links);

  test('a running crawl and then the finished one: the same bytes as the whole view, chunked', async () => {
    const { id, urls } = await crawlOf(60);
    const entries = urls.map((url, i) => entryOf(url, i));
    const failed = (i: number) => i % 7 === 3;
    const loading = 44;
    for (let i = 0; i < 60; i++) {
      if (i === loading) continue;
      if (failed(i)) await fail(id, `p${i}`);
      else await completeAs(id, entries[i]!, i);
    }
    const completed = (upTo: number) => entries.filter((_, i) => i < upTo && !failed(i) && i !== loading);
    const failedUrls = urls.filter((_, i) => failed(i)).length;
    const running = await get(`/api/v1/crawl/${id}`);
    assert.equal(running.statusCode, 200, running.body);
    assert.equal(running.headers['content-length'], undefined, 'the answer is streamed, not built whole');
    const shown = running.json() as { status: string; createdAt: string; startedAt: string; next: string; data: unknown[] };
    assert.equal(shown.status, 'PROCESSING');
    assert.equal(shown.data.length, completed(loading).length);
    const cursor = new URL(shown.next).searchParams.get('cursor');
    assert.equal(running.body, await wholeViewBody({
      id, status: 'PROCESSING', startUrl: 'http://127.0.0.1:9/', totalUrls: 59, completedUrls: completed(60).length, failedUrls,
      createdAt: shown.createdAt, startedAt: shown.startedAt, data: completed(loading), next: `${BASE}/api/v1/crawl/${id}?cursor=${cursor}`,
    }));

    await completeAs(id, entries[loading]!, loading);
    const done = entries.filter((_, i) => !failed(i));
    await append(makeEvent('crawl_finished', at(id, 'job'), { status: 'COMPLETED', totalUrls: 60, completedUrls: done.length, failedUrls, finishedAt: new Date().toISOString() }, meta()) as AnyEvent);
    const finished = await get(`/api/v1/crawl/${id}`);
    const view = finished.json() as { createdAt: string; startedAt: string; completedAt: string; data: unknown[] };
    assert.equal(view.data.length, done.length);
    assert.equal(finished.body, await wholeViewBody({
      id, status: 'COMPLETED', startUrl: 'http://127.0.0.1:9/', totalUrls: 60, completedUrls: done.length, failedUrls,
      createdAt: view.createdAt, startedAt: view.startedAt, completedAt: view.completedAt, data: done,
    }));
  });

  test('a finished crawl larger than one answer: each part the same bytes as the whole view, with next', async () => {
    const { id, urls } = await crawlOf(30);
    // Pages 10-12 hold 100 KB each: the first part ends before page 12 (256 KB at most).
    const entries = urls.map((url, i) => entryOf(url, i, i >= 10 && i <= 12 ? 100 * 1024 : 0));
    for (const [i, entry] of entries.entries()) await completeAs(id, entry, i);
    await append(makeEvent('crawl_finished', at(id, 'job'), { status: 'COMPLETED', totalUrls: 30, completedUrls: 30, failedUrls: 0, finishedAt: new Date().toISOString() }, meta()) as AnyEvent);
    const first = await get(`/api/v1/crawl/${id}`);
    const view = first.json() as { createdAt: string; startedAt: string; completedAt: string; next: string };
    const common = { id, status: 'COMPLETED', startUrl: 'http://127.0.0.1:9/', totalUrls: 30, completedUrls: 30, failedUrls: 0, createdAt: view.createdAt, startedAt: view.startedAt, completedAt: view.completedAt };
    assert.ok(view.next, 'a next part');
    assert.equal(first.body, await wholeViewBody({ ...common, data: entries.slice(0, 12), next: view.next }));
    const next = new URL(view.next);
    const second = await get(next.pathname + next.search);
    assert.equal(second.body, await wholeViewBody({ ...common, data: entries.slice(12) }));
  });
});
