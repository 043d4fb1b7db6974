// The console's code snippets are made by serializers: the Python one is read back by the
// real python3, the shell one by the real sh, and a URL with "true" in it survives both
// (issue 24: the old regex made …/a-true-story into …/a-True-story). Also the playground's
// request per tab, the per-page event groups, the ZIP of a crawl's pages, and the map-jobs
// read model that lets the console list maps.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, test } from 'node:test';
import JSZip from 'jszip';
import type { StoredEvent } from '../../../shared/src/domain/events/index.js';
import { fileNameOf, jobPages, zipOf } from '../../../services/gateway/src/console/job-pages.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { SqliteStore, type ApiKeyDoc, type BatchJobDoc } from '../../../shared/src/infra/store/index.js';
import { readModelSpec } from '../../support/decider.js';
import { groupEvents } from '../../../services/gateway/src/console/pages/job-events.js';
import { duration } from '../../../services/gateway/src/console/pages/jobs.js';
import { DEFAULT_VALUES, requestOf } from '../../../services/gateway/src/console/playground-request.js';
import { shellQuote, snippetsOf, toPython } from '../../../services/gateway/src/console/snippets.js';
import { evolve as evolveMap, mapJobsReadModel } from '../../../services/projector/src/read-models/map-jobs/index.js';
import type { MapJobDoc } from '../../../shared/src/infra/store/index.js';

const TRUE_STORY = 'https://news.example/a-true-story?draft=false&n=null';
const TRICKY = { url: TRUE_STORY, onlyMainContent: false, mobile: true, waitFor: "it's \"quoted\" \\ \n ünïcode ☃", timeout: 1500, nothing: null, list: [true, 1.5, []], empty: {} };

const python = (expression: string): unknown =>
  JSON.parse(execFileSync('python3', ['-c', `import json, sys\nvalue = ${expression}\nsys.stdout.write(json.dumps(value))`], { encoding: 'utf8' }));

describe('snippet serializers', () => {
  test('toPython gives a literal python3 reads back as the same value', () => {
    assert.deepEqual(python(toPython(TRICKY)), TRICKY);
    assert.match(toPython(TRICKY), /"https:\/\/news\.example\/a-true-story\?draft=false&n=null"/);
    assert.match(toPython(TRICKY), /"onlyMainContent": False/);
  });

  test('shellQuote survives sh, quotes and all', () => {
    const text = JSON.stringify(TRICKY);
    assert.equal(execFileSync('sh', ['-c', `printf %s ${shellQuote(text)}`], { encoding: 'utf8' }), text);
  });

  test('the Python and curl snippets of a scrape send the URL as given, and wait for the result', () => {
    const [curl, , js, py] = snippetsOf('http://127.0.0.1:3000', 'scrape', { url: TRUE_STORY, onlyMainContent: false });
    const body = /json=(\{[\s\S]*?\n\})\)/.exec(py!.code)?.[1];
    assert.ok(body, py!.code);
    assert.deepEqual(python(body), { url: TRUE_STORY, onlyMainContent: false, waitMs: 60_000 });
    const sent = /-d ('.*')$/m.exec(curl!.code)?.[1];
    assert.deepEqual(JSON.parse(execFileSync('sh', ['-c', `printf %s ${sent}`], { encoding: 'utf8' })), { url: TRUE_STORY, onlyMainContent: false, waitMs: 60_000 });
    assert.match(js!.code, /"waitMs": 60000/);
    assert.doesNotMatch(py!.code + curl!.code + js!.code, /a-True-story/);
  });

  test('a crawl\'s snippets poll with waitMs until the job is final; a map\'s do not wait', () => {
    const crawl = snippetsOf('http://h', 'crawl', { url: 'https://a.example', limit: 5 });
    assert.match(crawl.find((s) => s.id === 'curl')!.code, /crawl\/\$id\?waitMs=60000/);
    assert.match(crawl.find((s) => s.id === 'py')!.code, /while job\["status"\] not in/);
    assert.match(crawl.find((s) => s.id === 'sdk')!.code, /trawl\.crawl\("https:\/\/a\.example", \{\n  "limit": 5\n\}\)/);
    const map = snippetsOf('http://h', 'map', { url: 'https://a.example' });
    assert.doesNotMatch(map.map((s) => s.code).join(), /waitMs/);
  });
});

describe('the playground\'s request per tab', () => {
  test('each tab makes its endpoint\'s body; defaults are left out', () => {
    assert.deepEqual(requestOf({ ...DEFAULT_VALUES, url: 'https://a.example' }), { url: 'https://a.example' });
    assert.deepEqual(requestOf({ ...DEFAULT_VALUES, kind: 'crawl', url: 'https://a.example', limit: '5', formats: ['markdown', 'links'] }),
      { url: 'https://a.example', limit: 5, scrapeOptions: { formats: ['markdown', 'links'] } });
    assert.deepEqual(requestOf({ ...DEFAULT_VALUES, kind: 'batch', urls: ' https://a.example \r\n\nhttps://b.example\n' }), { urls: ['https://a.example', 'https://b.example'] });
    assert.deepEqual(requestOf({ ...DEFAULT_VALUES, kind: 'map', url: 'https://a.example', search: 'docs' }), { url: 'https://a.example', search: 'docs' });
    const extract = requestOf({ ...DEFAULT_VALUES, kind: 'extract', url: 'https://a.example' });
    assert.deepEqual(extract.formats, ['extract']);
    assert.equal(((extract.extract as { schema: { fields: Record<string, unknown> } }).schema.fields.title as { selector: string }).selector, 'h1');
  });

  test('a schema that is not JSON, or a limit that is not a number, is a validation error naming the field', () => {
    assert.throws(() => requestOf({ ...DEFAULT_VALUES, kind: 'extract', url: 'https://a.example', schema: '{fields:' }), /the schema is not JSON/);
    assert.throws(() => requestOf({ ...DEFAULT_VALUES, kind: 'crawl', url: 'https://a.example', limit: 'ten' }), /limit must be a whole number/);
  });
});

describe('job pages', () => {
  const ev = (seq: number, part: string, event: string, data: Record<string, unknown>): StoredEvent =>
    ({ kind: 'crawl', id: 'c', part, event, data, seq, eventId: `e${seq}`, occurredAt: '2026-11-01T00:00:00.000Z' }) as unknown as StoredEvent;

  test('events are grouped per page with its URL, the job\'s own first', () => {
    const groups = groupEvents([ev(1, 'p1', 'page_requested', { url: 'https://a.example/1' }), ev(2, 'job', 'crawl_started', {}), ev(3, 'p1', 'page_completed', {}),
      ev(4, 'p2', 'page_requested', { url: 'https://a.example/2' }), ev(5, 'job', 'crawl_finished', {})]);
    assert.deepEqual(groups.map((g) => [g.part, g.url, g.events.map((e) => e.seq)]), [['job', null, [2, 5]], ['p1', 'https://a.example/1', [1, 3]], ['p2', 'https://a.example/2', [4]]]);
  });

  test('the ZIP holds one markdown file a page and an index; file names are unique and safe', async () => {
    assert.equal(fileNameOf(0, 'https://a.example/docs/intro?x=1'), '0001-a.example-docs-intro-x-1.md');
    assert.equal(fileNameOf(9, 'https://a.example/'), '0010-a.example.md');
    const zip = await JSZip.loadAsync(await zipOf([
      { pageKey: 'a', url: 'https://a.example/', status: 'COMPLETED', markdown: '# A' },
      { pageKey: 'b', url: 'https://a.example/../../etc', status: 'FAILED', error: { code: 'NETWORK_ERROR', message: 'down', retryable: false } as never },
    ]));
    assert.deepEqual(Object.keys(zip.files).sort(), ['0001-a.example.md', 'pages.json']);
    assert.match(await zip.file('0001-a.example.md')!.async('string'), /^<!-- https:\/\/a\.example\/ -->\n\n# A$/);
    assert.equal(JSON.parse(await zip.file('pages.json')!.async('string'))[1].status, 'FAILED');
  });

  test('a batch\'s pages read from a real (in-memory) store in request order, cut at the content bound', async () => {
    const store = new SqliteStore(':memory:');
    await store.init();
    try {
      const pages = ['a', 'b', 'c'].map((k) => ({ url: `https://a.example/${k}`, pageKey: k, status: 'COMPLETED' as const }));
      const doc: BatchJobDoc = { id: 'B', apiKeyId: 'k', status: 'COMPLETED', createdAt: '2026-11-01T00:00:00.000Z', options: normalizeScrapeOptions({}), pages, totalUrls: 3, completedUrls: 3, failedUrls: 0, lastSeq: 1 };
      await store.batchJobs.put(doc);
      for (const p of pages) await store.saveBatchPage({ batchId: 'B', pageKey: p.pageKey, content: { markdown: `# ${p.pageKey} `.padEnd(10, '.') }, metadata: { sourceURL: p.url, statusCode: 200 } as never, resultSeq: 2, lastSeq: 2 });
      const job = { kind: 'batch' as const, doc, key: { id: 'k' } as ApiKeyDoc };
      const all = await jobPages(store, job);
      assert.deepEqual(all.pages.map((p) => p.url), pages.map((p) => p.url));
      assert.equal(all.truncated, false);
      const cut = await jobPages(store, job, 1000, 25);
      assert.deepEqual([cut.pages.length, cut.truncated], [2, true]);
      const zip = await JSZip.loadAsync(await zipOf(cut.pages, cut.truncated));
      assert.equal(JSON.parse(await zip.file('pages.json')!.async('string')).truncated, true);
    } finally {
      await store.close();
    }
  });

  test('durations read as people say them', () => {
    assert.equal(duration('2026-11-01T00:00:00.000Z', '2026-11-01T00:00:01.234Z'), '1.2 s');
    assert.equal(duration('2026-11-01T00:00:00.000Z', '2026-11-01T00:03:04.000Z'), '3 min 4 s');
    assert.equal(duration('2026-11-01T00:00:00.000Z', undefined), '');
  });
});

describe('map-jobs read model', () => {
  const ev = (seq: number, event: string, data: Record<string, unknown>): StoredEvent =>
    ({ kind: 'map', id: 'm', part: 'job', event, data, seq, eventId: `e${seq}`, occurredAt: '2026-11-01T00:00:00.000Z' }) as unknown as StoredEvent;
  const requested = ev(1, 'map_requested', { url: 'https://a.example', limit: 10, ignoreSitemap: false, includeSubdomains: false, apiKeyId: 'k', requestedAt: '2026-11-01T00:00:00.000Z', budgetMs: 30_000 });
  const fold = readModelSpec<MapJobDoc, StoredEvent>(evolveMap).given;

  test('requested, then completed with its inline links or failed with its error; a late answer changes nothing', () => {
    const done = fold([requested, ev(2, 'map_completed', { links: ['https://a.example/x'], count: 1, sources: ['crawl'], partial: false, sitemapsFetched: 0, pagesCrawled: 1, durationMs: 5, completedAt: '2026-11-01T00:00:01.000Z' })]);
    assert.deepEqual(done, { id: 'm', apiKeyId: 'k', url: 'https://a.example', status: 'COMPLETED', createdAt: '2026-11-01T00:00:00.000Z', completedAt: '2026-11-01T00:00:01.000Z', count: 1, partial: false, links: ['https://a.example/x'], lastSeq: 2 });
    const failed = fold([requested, ev(2, 'map_failed', { error: { code: 'NETWORK_ERROR', message: 'down' }, failedAt: '2026-11-01T00:00:02.000Z' })]);
    assert.equal(failed?.status, 'FAILED');
    assert.equal(evolveMap(failed, ev(3, 'map_completed', { count: 0, sources: [], partial: false, sitemapsFetched: 0, pagesCrawled: 0, durationMs: 1, completedAt: '2026-11-01T00:00:03.000Z' })), null);
    assert.equal(mapJobsReadModel.accepts?.({ ...requested, part: 'p1' } as StoredEvent), false, 'the browser fallback\'s pages are not the map');
  });
});
