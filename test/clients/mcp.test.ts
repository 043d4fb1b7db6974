// `trawl mcp` driven by a real MCP client (the official SDK) over stdio, against the real
// system: the tool list and its TypeBox-derived schemas, and every tool called, with
// truncation and cursors.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { TestSite } from '../support/site.js';
import type { TrawlSystem } from '../support/system.js';
import { page, startClientSite, startClientSystem } from './helpers.js';

const CLI = path.resolve('dist/clients/cli/main.js');

describe('trawl mcp over stdio', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let client: Client;

  before(async () => {
    site = await startClientSite(500);
    site.route('/long', page('Long page', [], Array.from({ length: 400 }, (_, i) => `<p>Paragraph number ${i} of the long page, with some words.</p>`).join('\n')));
    system = await startClientSystem();
    client = new Client({ name: 'trawl-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({
      command: process.execPath, args: [CLI, 'mcp'],
      env: { PATH: process.env.PATH ?? '', TRAWL_API_URL: system.baseUrl, TRAWL_API_KEY: system.apiKey },
    }));
  });
  after(async () => {
    await client?.close();
    await system?.stop();
    await site?.close();
  });

  const call = async (name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean; content: { type: string; [k: string]: unknown }[] }> => {
    const res = await client.callTool({ name, arguments: args }) as { content: { type: string; text?: string }[]; isError?: boolean };
    return { text: res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n'), isError: res.isError === true, content: res.content };
  };
  const cursorOf = (text: string): string | undefined => /cursor "([^"]+)"/.exec(text)?.[1];

  test('lists every tool with the JSON schema of the API', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([...byName.keys()].sort(), ['batch_results', 'batch_scrape', 'crawl_cancel', 'crawl_results', 'crawl_start', 'crawl_status', 'map', 'scrape', 'search_site']);
    const scrape = byName.get('scrape')!.inputSchema as { properties: Record<string, { items?: { enum?: string[] }; maximum?: number }>; required: string[] };
    assert.deepEqual(scrape.required, ['url']);
    assert.deepEqual(scrape.properties.formats?.items?.enum, ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'extract']);
    assert.ok('extract' in scrape.properties, 'the extraction schema option is offered too');
    assert.equal(scrape.properties.timeout?.maximum, 300_000);
    assert.ok(!('actions' in scrape.properties) && !('headers' in scrape.properties) && 'cursor' in scrape.properties);
    const crawl = byName.get('crawl_start')!.inputSchema as { properties: Record<string, { maximum?: number }> };
    assert.equal(crawl.properties.limit?.maximum, 1000);
    assert.deepEqual((byName.get('search_site')!.inputSchema as { required: string[] }).required.sort(), ['search', 'url']);
  });

  test('scrape: markdown, truncated with a cursor that continues exactly; errors are tool errors', async () => {
    const whole = await call('scrape', { url: site.url('/long'), maxChars: 200_000 });
    assert.ok(!whole.isError, whole.text);
    assert.match(whole.text, /^## Long page\nURL: /);
    assert.match(whole.text, /Paragraph number 399/);
    let text = '';
    let args: Record<string, unknown> = { url: site.url('/long'), maxChars: 5000 };
    let calls = 0;
    for (;;) {
      const part = await call('scrape', args);
      calls++;
      const cursor = cursorOf(part.text);
      text += cursor ? part.text.slice(0, part.text.lastIndexOf('\n\n[truncated:')) : part.text;
      if (!cursor) break;
      args = { url: site.url('/long'), cursor, maxChars: 5000 };
    }
    assert.ok(calls >= 3, `${calls} calls`);
    assert.equal(text, whole.text);

    const failed = await call('scrape', { url: site.url('/c'), waitFor: '#never', timeout: 1000 });
    assert.equal(failed.isError, true);
    assert.match(failed.text, /SELECTOR_NOT_FOUND/);
    const invalid = await call('scrape', { url: 'notaurl' });
    assert.equal(invalid.isError, true);
    assert.match(invalid.text, /INVALID_URL \(400\)/);
    const shot = await call('scrape', { url: site.url('/a'), formats: ['markdown', 'screenshot'] });
    assert.ok(shot.content.some((c) => c.type === 'image' && c.mimeType === 'image/png' && typeof c.data === 'string' && c.data.length > 100));
  });

  test('map and search_site', async () => {
    const map = await call('map', { url: site.url('/') });
    assert.match(map.text, /^4 URLs:/);
    for (const p of ['/a', '/b', '/c']) assert.ok(map.text.includes(site.url(p)));
    const search = await call('search_site', { url: site.url('/'), search: 'b' });
    assert.equal(search.text, `1 matching URLs, best first:\n${site.url('/b')}`);
  });

  test('crawl: start, status, results paged, cancel', async () => {
    const started = await call('crawl_start', { url: site.url('/'), maxDepth: 1 });
    const id = /Crawl (\S+) started/.exec(started.text)?.[1];
    assert.ok(id, started.text);
    const status = JSON.parse((await call('crawl_status', { id, waitSeconds: 60 })).text);
    assert.equal(status.status, 'COMPLETED');
    assert.equal(status.completedUrls, 4);
    const results = await call('crawl_results', { id });
    assert.match(results.text, new RegExp(`^Job ${id} COMPLETED: 4 pages done`));
    for (const title of ['Home', 'Page A', 'Page B', 'Page C']) assert.match(results.text, new RegExp(`## ${title}\\n`));
    const first = await call('crawl_results', { id, maxChars: 1000 });
    const cursor = cursorOf(first.text);
    assert.ok(cursor, first.text);
    const second = await call('crawl_results', { id, cursor, maxChars: 1000 });
    assert.equal(first.text.slice(0, first.text.indexOf('\n\n[truncated:')) + second.text.slice(0, 1000), results.text.slice(0, 2000));

    const slow = /Crawl (\S+) started/.exec((await call('crawl_start', { url: site.url('/slow'), limit: 13 })).text)![1];
    const running = await call('crawl_results', { id: slow, waitSeconds: 0 });
    assert.match(running.text, /is (PENDING|PROCESSING)/);
    assert.match((await call('crawl_cancel', { id: slow })).text, /CANCELLED/);
    assert.match((await call('crawl_results', { id: slow })).text, new RegExp(`^Job ${slow} CANCELLED`));
  });

  test('batch_scrape waits and answers the pages; batch_results reads them again', async () => {
    const res = await call('batch_scrape', { urls: [site.url('/a'), site.url('/b'), 'nope'], ignoreInvalidUrls: true });
    assert.match(res.text, /^Skipped invalid URLs: nope\nJob (\S+) COMPLETED: 2 pages done/);
    assert.match(res.text, /## Page A\n/);
    assert.match(res.text, /## Page B\n/);
    const id = /Job (\S+) COMPLETED/.exec(res.text)![1];
    const again = await call('batch_results', { id });
    assert.equal(again.text, res.text.replace('Skipped invalid URLs: nope\n', ''));
    const missing = await call('batch_results', { id: 'AAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /NOT_FOUND/);
  });
});
