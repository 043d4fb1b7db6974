// `trawl mcp` driven by a real MCP client (the official SDK) over stdio, against the real
// system: the tool list (compact, described, annotated) and its TypeBox-derived schemas,
// every tool called, with truncation and cursors; and input that once ended the process
// (issue 20), each followed by a ping that must still answer.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { jsonShapeProblem, MCP_LIMITS } from '../../clients/mcp/stdio.js';
import { TOOLS, type ToolName } from '../../clients/mcp/tools.js';
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
    site.route('/products', page('Products', [], '<div class="product"><h2>Kettle</h2><span class="price">25.50</span><a href="/kettle">more</a><i class="tag">kitchen</i><i class="tag">steel</i></div>'
      + '<div class="product"><h2>Mug</h2><span class="price">4</span><a href="/mug">more</a></div>'));
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
    assert.deepEqual([...byName.keys()].sort(), [
      'batch_results', 'batch_scrape', 'crawl_cancel', 'crawl_results', 'crawl_start', 'crawl_status', 'map',
      'monitor_create', 'monitor_delete', 'monitor_list', 'recrawl', 'scrape', 'search_site',
    ]);
    const scrape = byName.get('scrape')!.inputSchema as { properties: Record<string, { items?: { enum?: string[] }; maximum?: number }>; required: string[] };
    assert.deepEqual(scrape.required, ['url']);
    assert.deepEqual(scrape.properties.formats?.items?.enum, ['markdown', 'html', 'rawHtml', 'links', 'screenshot', 'extract', 'changeTracking']);
    assert.ok('changeTrackingOptions' in scrape.properties);
    assert.ok('extract' in scrape.properties, 'the extraction schema option is offered too');
    assert.equal(scrape.properties.timeout?.maximum, 300_000);
    assert.ok(!('actions' in scrape.properties) && !('headers' in scrape.properties) && 'cursor' in scrape.properties);
    const crawl = byName.get('crawl_start')!.inputSchema as { properties: Record<string, { maximum?: number }> };
    assert.equal(crawl.properties.limit?.maximum, 1000);
    assert.ok(!('webhookUrl' in crawl.properties));
    assert.deepEqual((byName.get('search_site')!.inputSchema as { required: string[] }).required.sort(), ['search', 'url']);
  });

  test('tools/list for an agent: under 12 KB, every property described, annotated, with instructions and an extract example that works', async () => {
    const listed = await client.listTools();
    const bytes = Buffer.byteLength(JSON.stringify(listed));
    assert.ok(bytes < 12_000, `tools/list is ${bytes} bytes`);
    const undescribed: string[] = [];
    interface Listed { description?: string; properties?: Record<string, Listed> }
    const walk = (schema: Listed, at: string): void => {
      for (const [key, prop] of Object.entries(schema.properties ?? {})) {
        if (!prop.description?.trim()) undescribed.push(`${at}.${key}`);
        walk(prop, `${at}.${key}`);
      }
    };
    for (const tool of listed.tools) {
      walk(tool.inputSchema as never, tool.name);
      assert.ok(tool.description && tool.description.length > 40, tool.name);
      assert.equal(typeof tool.annotations?.readOnlyHint, 'boolean', `${tool.name} readOnlyHint`);
      assert.equal(typeof tool.annotations?.openWorldHint, 'boolean', `${tool.name} openWorldHint`);
      assert.ok(tool.title, `${tool.name} title`);
    }
    assert.deepEqual(undescribed, []);
    // The listing is the contract: the same argument names, and the same required ones, as the validation.
    for (const tool of listed.tools) {
      const contract = TOOLS[tool.name as ToolName].validate;
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}), Object.keys(contract.properties), tool.name);
      assert.deepEqual(tool.inputSchema.required ?? [], contract.required ?? [], tool.name);
    }
    assert.doesNotMatch(JSON.stringify(listed), /docs\/|\.md\b/, 'no pointer to a file the model cannot read');
    const byName = new Map(listed.tools.map((t) => [t.name, t]));
    assert.equal(byName.get('scrape')!.annotations?.readOnlyHint, true);
    assert.equal(byName.get('crawl_cancel')!.annotations?.destructiveHint, true);
    assert.match(client.getInstructions() ?? '', /scrape.*map.*crawl_start/s);

    // The one example in extract's description is a schema the API takes, and it extracts.
    const extract = (byName.get('scrape')!.inputSchema as { properties: Record<string, { description: string }> }).properties.extract!.description;
    assert.ok(extract.length < 1000, `${extract.length} characters`);
    const example = JSON.parse(/Example: (\{.*\})$/.exec(extract)![1]!) as unknown;
    const res = await call('scrape', { url: site.url('/products'), formats: ['extract'], extract: example });
    assert.ok(!res.isError, res.text);
    const json = JSON.parse(res.text.slice(res.text.indexOf('Extracted JSON:\n') + 16)) as unknown;
    assert.deepEqual(json, [
      { name: 'Kettle', price: 25.5, link: site.url('/kettle'), tags: ['kitchen', 'steel'] },
      { name: 'Mug', price: 4, link: site.url('/mug'), tags: [] },
    ]);
  });

  test('scrape with changeTracking: the status since the last scrape, in the text', async () => {
    const first = await call('scrape', { url: site.url('/c'), formats: ['changeTracking'] });
    assert.ok(!first.isError, first.text);
    assert.match(first.text, /Change tracking: (new|same)/);
    const second = await call('scrape', { url: site.url('/c'), formats: ['changeTracking'] });
    assert.match(second.text, /Change tracking: same since the scrape of \d{4}-\d{2}-\d{2}T/);
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
    const links = await call('batch_scrape', { urls: [site.url('/b')], scrapeOptions: { formats: ['links'] } });
    assert.match(links.text, new RegExp(`Links:\n${site.url('/a')}`), 'the page options in scrapeOptions reach the API');
    const missing = await call('batch_results', { id: 'AAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /NOT_FOUND/);
  });

  test('recrawl: a crawl run again reports what changed; report: true reads the report again', async () => {
    site.route('/r', page('Recrawl hub', ['/r/1', '/r/2']));
    site.route('/r/1', page('First', [], '<p>The first page says one thing.</p>'));
    site.route('/r/2', page('Second', [], '<p>The second page says another.</p>'));
    const crawl = /Crawl (\S+) started/.exec((await call('crawl_start', { url: site.url('/r'), maxDepth: 1 })).text)![1]!;
    assert.equal(JSON.parse((await call('crawl_status', { id: crawl, waitSeconds: 60 })).text).status, 'COMPLETED');
    const same = await call('recrawl', { id: crawl });
    assert.ok(!same.isError, same.text);
    assert.match(same.text, new RegExp(`^Recrawl (\\S+) of crawl ${crawl}: COMPLETED\\. 0 changed, 0 new, 0 removed, 3 same`));

    site.route('/r/2', page('Second', [], '<p>The second page now says something else entirely.</p>'));
    const changed = await call('recrawl', { id: crawl });
    const recrawlId = /^Recrawl (\S+) /.exec(changed.text)![1]!;
    assert.match(changed.text, /: COMPLETED\. 1 changed, 0 new, 0 removed, 2 same/);
    assert.match(changed.text, new RegExp(`\nChanged:\n  ${site.url('/r/2')}\n`));
    assert.match(changed.text, new RegExp(`crawl_results \\{"id": "${recrawlId}"\\}`));
    assert.equal((await call('recrawl', { id: recrawlId, report: true })).text, changed.text, 'report: true starts nothing, it reads the report');

    const unknown = await call('recrawl', { id: 'AAAAAAAAAAAAAAAAAAAAAA' });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /^NOT_FOUND/);
  });

  test('monitors: create, list, read one, delete; bad input is a tool error naming the field', async () => {
    const created = await call('monitor_create', {
      url: site.url('/a'), schedule: { intervalSeconds: 3600 }, webhookUrl: site.url('/hook'), scrapeOptions: { onlyMainContent: false },
    });
    assert.ok(!created.isError, created.text);
    const id = /^Monitor (\S+): scrape /.exec(created.text)?.[1];
    assert.ok(id, created.text);
    assert.match(created.text, new RegExp(`every 3600 s, ACTIVE; webhook ${site.url('/hook')}\\. Next run \\d{4}-`));
    assert.match(created.text, /\nNo run yet\.$/);
    assert.match((await call('monitor_list', {})).text, new RegExp(`${id}: scrape ${site.url('/a')}, every 3600 s, ACTIVE`));
    assert.equal((await call('monitor_list', { id })).text, created.text);

    const crawlMonitor = await call('monitor_create', { url: site.url('/'), crawl: { limit: 5 }, schedule: { cron: '0 8 * * 1', timezone: 'Europe/Paris' }, webhookUrl: site.url('/hook') });
    assert.match(crawlMonitor.text, /^Monitor \S+: crawl .*, cron "0 8 \* \* 1" \(Europe\/Paris\), ACTIVE/);

    const bad = await call('monitor_create', { url: site.url('/a'), schedule: { intervalSeconds: 5 }, webhookUrl: site.url('/hook') });
    assert.equal(bad.isError, true);
    assert.match(bad.text, /schedule/);
    const unknownField = await call('monitor_create', { url: site.url('/a'), schedule: { intervalSeconds: 3600 }, webhookUrl: site.url('/hook'), headers: {} });
    assert.match(unknownField.text, /^VALIDATION_ERROR: .*headers/);

    assert.equal((await call('monitor_delete', { id })).text, `Monitor ${id} is DELETED: no run starts after this.`);
    assert.doesNotMatch((await call('monitor_list', {})).text, new RegExp(id!));
    const again = await call('monitor_delete', { id });
    assert.equal(again.isError, true);
    assert.match(again.text, /NOT_FOUND/);
  });

  describe('input that once ended the process (issue 20): an error reply, then ping still answers', () => {
    let child: ChildProcessWithoutNullStreams;
    let raw: ProcessTransport;
    let robust: Client;

    before(async () => {
      child = spawn(process.execPath, [CLI, 'mcp'], { env: { PATH: process.env.PATH ?? '', TRAWL_API_URL: system.baseUrl, TRAWL_API_KEY: system.apiKey } });
      child.stderr.resume();
      raw = new ProcessTransport(child);
      robust = new Client({ name: 'trawl-robustness', version: '1.0.0' });
      await robust.connect(raw);
    });
    after(async () => {
      await robust?.close();
      if (child.exitCode === null) child.kill();
    });

    const stillServing = async (): Promise<void> => {
      assert.deepEqual(await robust.ping(), {});
      assert.equal(child.exitCode, null, 'the server is still running');
    };
    const rejection = async (p: Promise<unknown>): Promise<McpError> => {
      const err = await p.then(() => undefined, (e: unknown) => e);
      assert.ok(err instanceof McpError, `an MCP error, not ${String(err)}`);
      return err;
    };

    test('tools/list as it goes over the wire is under 12 KB', async () => {
      const from = raw.lines.length;
      await robust.listTools();
      const line = await raw.lineAfter(from, (l) => l.includes('"tools":['));
      assert.ok(Buffer.byteLength(line) < 12_000, `${Buffer.byteLength(line)} bytes`);
    });

    test('a tool call of 20 MB and one with a 1,000,000-key object: -32600, message too large', async () => {
      const big = await rejection(robust.callTool({ name: 'scrape', arguments: { url: site.url('/a'), pad: 'x'.repeat(20_000_000) } }));
      assert.equal(big.code, -32600);
      assert.match(big.message, /message too large: \d+ bytes, the limit is 1048576 bytes/);
      await stillServing();
      const keys = Object.fromEntries(Array.from({ length: 1_000_000 }, (_, i) => [`k${i}`, i]));
      const wide = await rejection(robust.callTool({ name: 'scrape', arguments: { url: site.url('/a'), keys } }));
      assert.equal(wide.code, -32600);
      await stillServing();
    });

    test('a 60 MB line, and 30 MB without a newline: discarded with an error, the server keeps reading', async () => {
      let from = raw.lines.length;
      await raw.write(Buffer.alloc(60 * 1024 * 1024, 'x'));
      await raw.write('\n');
      assert.match(await raw.lineAfter(from, (l) => l.includes('-32600')), /message too large: 62914560 bytes/);
      await stillServing();

      from = raw.lines.length;
      await raw.write(Buffer.alloc(30 * 1024 * 1024, 'z'));
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(child.exitCode, null, '30 MB without a newline did not end the process');
      await raw.write('\n');
      assert.match(await raw.lineAfter(from, (l) => l.includes('-32600')), /message too large: 31457280 bytes/);
      await stillServing();
    });

    test('broken JSON gets a parse error; JSON too deep or with too many values is refused', async () => {
      let from = raw.lines.length;
      await raw.write('{"jsonrpc":"2.0","id":9,"method":\n');
      const parse = JSON.parse(await raw.lineAfter(from, (l) => l.includes('-32700'))) as { error: { code: number; message: string } };
      assert.equal(parse.error.code, -32700);
      assert.match(parse.error.message, /^parse error: not JSON/);
      await stillServing();

      from = raw.lines.length;
      await raw.write(`{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"scrape","arguments":{"url":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}\n`);
      const deep = JSON.parse(await raw.lineAfter(from, (l) => l.includes('"deep"'))) as { error: { code: number; message: string } };
      assert.deepEqual(deep.error, { code: -32600, message: `message refused: JSON nests deeper than ${MCP_LIMITS.maxJsonDepth} levels` });
      await stillServing();
      const many = await rejection(robust.callTool({ name: 'batch_scrape', arguments: { urls: Array.from({ length: 50_000 }, () => 'x') } }));
      assert.equal(many.code, -32600);
      assert.match(many.message, /JSON holds more than 20000 values/);
      await stillServing();
    });

    test('unknown tool names are errors, prototype names included; unknown arguments are refused by name', async () => {
      for (const name of ['__proto__', 'toString', 'constructor', 'hasOwnProperty', 'nope']) {
        const err = await rejection(robust.callTool({ name, arguments: {} }));
        assert.equal(err.code, -32602, name);
        assert.match(err.message, new RegExp(`unknown tool "${name}"; the tools are scrape, map,`));
      }
      await stillServing();
      const refused = async (tool: string, args: Record<string, unknown>, field: string): Promise<void> => {
        const res = await robust.callTool({ name: tool, arguments: args }) as { isError?: boolean; content: { text: string }[] };
        assert.equal(res.isError, true, `${tool} ${field}`);
        assert.match(res.content[0]!.text, new RegExp(`^VALIDATION_ERROR: ${field.replace('.', '\\.')} is not a known field\\. ${tool} takes: `));
      };
      const url = site.url('/a');
      await refused('scrape', { url, headers: { cookie: 'a=b' } }, 'headers');
      await refused('scrape', { url, actions: [{ type: 'wait', milliseconds: 1 }] }, 'actions');
      await refused('scrape', { url, screenshotOptions: { fullPage: true } }, 'screenshotOptions');
      const from = raw.lines.length;
      await raw.write(`{"jsonrpc":"2.0","id":"proto","method":"tools/call","params":{"name":"scrape","arguments":{"url":"${url}","__proto__":{"x":1}}}}\n`);
      const proto = JSON.parse(await raw.lineAfter(from, (l) => l.includes('"proto"'))) as { error?: { code: number; message: string } };
      assert.deepEqual(proto.error, { code: -32600, message: 'message refused: a "__proto__" key is not allowed' });
      await refused('crawl_start', { url, webhookUrl: 'http://127.0.0.1:9/hook' }, 'webhookUrl');
      await refused('crawl_start', { url, scrapeOptions: { headers: { a: 'b' } } }, 'scrapeOptions.headers');
      await refused('batch_scrape', { urls: [url], webhookUrl: 'http://127.0.0.1:9/hook' }, 'webhookUrl');
      await refused('map', { url, cursor: undefined, depth: 2 }, 'depth');
      const typed = await robust.callTool({ name: 'crawl_results', arguments: { id: 'x', maxChars: 5 } }) as { isError?: boolean; content: { text: string }[] };
      assert.deepEqual([typed.isError, typed.content[0]!.text], [true, 'VALIDATION_ERROR: maxChars must be >= 1000.']);
      // The tools still work after all of the above.
      const ok = await robust.callTool({ name: 'scrape', arguments: { url } }) as { isError?: boolean; content: { text: string }[] };
      assert.ok(!ok.isError && ok.content[0]!.text.startsWith('## Page A'), ok.content[0]?.text);
    });

    test('credentials in TRAWL_API_URL appear in no error', async () => {
      const withUser = new URL(system.baseUrl);
      withUser.username = 'agent007';
      withUser.password = 'hunter2-Secret';
      const other = new Client({ name: 'trawl-creds', version: '1.0.0' });
      await other.connect(new StdioClientTransport({
        command: process.execPath, args: [CLI, 'mcp'],
        env: { PATH: process.env.PATH ?? '', TRAWL_API_URL: withUser.href, TRAWL_API_KEY: system.apiKey },
      }));
      try {
        const res = await other.callTool({ name: 'scrape', arguments: { url: site.url('/a') } }) as { isError?: boolean; content: { text: string }[] };
        assert.equal(res.isError, true);
        const text = res.content[0]!.text;
        assert.match(text, /^CONNECTION_ERROR: .*credentials/);
        assert.ok(!text.includes('hunter2') && !text.includes('agent007'), text);
      } finally {
        await other.close();
      }
    });
  });
});

describe('jsonShapeProblem: depth and value count without parsing', () => {
  test('given brackets, commas and colons inside strings (escaped quotes too), when scanned, then they are not counted', () => {
    const text = JSON.stringify({ a: '[[[[{{{{,,,,::::', b: 'say \\"[[[[\\" ok', c: [1, 2] });
    // { : , : , : [ , are the 8 counted; the strings' 16 brackets, commas and colons are not.
    assert.equal(jsonShapeProblem(text, { maxJsonDepth: 2, maxJsonValues: 8 }), undefined);
    assert.equal(jsonShapeProblem(text, { maxJsonDepth: 2, maxJsonValues: 7 }), 'JSON holds more than 7 values');
    assert.equal(jsonShapeProblem(text, { maxJsonDepth: 1, maxJsonValues: 8 }), 'JSON nests deeper than 1 levels');
  });
  test('given nesting one level past the limit, then it names the limit', () => {
    assert.equal(jsonShapeProblem('[[[]]]', { maxJsonDepth: 3, maxJsonValues: 100 }), undefined);
    assert.equal(jsonShapeProblem('[[[[]]]]', { maxJsonDepth: 3, maxJsonValues: 100 }), 'JSON nests deeper than 3 levels');
  });
  test('given more values than the limit, then it names the limit', () => {
    assert.equal(jsonShapeProblem('[1,2,3]', { maxJsonDepth: 3, maxJsonValues: 3 }), undefined);
    assert.equal(jsonShapeProblem('[1,2,3,4]', { maxJsonDepth: 3, maxJsonValues: 3 }), 'JSON holds more than 3 values');
  });
});

/**
 * The SDK client's side of stdio over a process we spawned ourselves, so that a test can
 * also write raw bytes to the server's stdin and read every raw line it answers.
 */
class ProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly lines: string[] = [];
  private buffer = '';
  private readonly waiters = new Set<() => void>();

  constructor(private readonly child: ChildProcessWithoutNullStreams) {}

  async start(): Promise<void> {
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (data: string) => {
      this.buffer += data;
      for (let nl = this.buffer.indexOf('\n'); nl !== -1; nl = this.buffer.indexOf('\n')) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        const parsed = JSONRPCMessageSchema.safeParse((() => { try { return JSON.parse(line) as unknown; } catch { return undefined; } })());
        if (parsed.success) this.onmessage?.(parsed.data);
      }
      for (const wake of this.waiters) wake();
    });
    this.child.once('exit', () => this.onclose?.());
  }

  send(message: JSONRPCMessage): Promise<void> { return this.write(`${JSON.stringify(message)}\n`); }

  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve, reject) => { this.child.stdin.write(data, (err) => (err ? reject(err) : resolve())); });
  }

  async close(): Promise<void> { this.child.stdin.end(); }

  /** The first line from index `from` on that passes `test`, waiting up to 30 s for it. */
  async lineAfter(from: number, test: (line: string) => boolean): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = this.lines.slice(from).find(test);
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`no such line; the server said:\n${this.lines.slice(from).join('\n').slice(0, 2000)}`);
      await new Promise<void>((resolve) => {
        const wake = (): void => { this.waiters.delete(wake); clearTimeout(timer); resolve(); };
        const timer = setTimeout(wake, 1000);
        this.waiters.add(wake);
      });
    }
  }
}
