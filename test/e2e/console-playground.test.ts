// The console's playground and job pages as a user drives them, in real Chromium against
// the real system (issue 24, items 1 and 3): every tab (scrape, extract, crawl, batch,
// map) runs and shows its result; the snippets of a URL with "true" in it keep it; a
// crawl's and a batch's pages open (rendered, raw) and download as JSON and as a ZIP of
// markdown; maps are listed; the jobs list shows pages and durations; the 404 page has a
// way on; an invite is revoked; phones get a compact nav. With CONSOLE_SCREENSHOTS_DIR set it saves those pages there.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import JSZip from 'jszip';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SERVICES } from '../../scripts/services.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../shared/src/infra/chromium.js';
import { freePortRange } from '../support/nats-server.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, TEST_API_KEY, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';
import { shoot } from './console-shots.js';

// Asynchronous: the test site answers from this process, so it must not block while a snippet runs.
const run = async (file: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<string> =>
  (await promisify(execFile)(file, args, { ...opts, encoding: 'utf8', timeout: 120_000 })).stdout;

const PAGE = (title: string, links: string[] = []): string => `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1>
<p>${'A paragraph about fish and the sea, long enough to be content. '.repeat(4)}</p>
${links.map((l) => `<p><a href="${l}">${l.slice(1)}</a></p>`).join('')}</article></main></body></html>`;

describe('console playground and job pages end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let crawlId = '';

  before(async () => {
    site = await startSite({
      '/a-true-story': PAGE('A true story'), '/start': PAGE('Start', ['/one', '/two']), '/one': PAGE('Page one'), '/two': PAGE('Page two'),
    });
    system = await startSystem({ env: { HEALTH_PORT: String(await freePortRange(SERVICES.length)), LOG_LEVEL: 'info' } });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
    ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await ctx.newPage();
    const invite = /console admin invite[^:]*: (\S+)/.exec(system.logs())![1]!;
    await page.goto(invite);
    await page.getByLabel('Email').fill('pat@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/console\/keys\?welcome=1$/);
  });
  after(async () => {
    await browser?.close();
    await system?.stop();
    await site?.close();
  });

  const url = (p: string): string => `${system.baseUrl}${p}`;
  const tab = async (name: string): Promise<void> => {
    await page.goto(url('/console/playground'));
    await page.getByRole('navigation', { name: 'Request kind' }).getByRole('link', { name }).click();
  };

  test('scrape: the result on the first request, and snippets that keep a URL with "true" in it', async () => {
    await tab('Scrape');
    const target = site.url('/a-true-story');
    await page.getByLabel('URL', { exact: true }).fill(target);
    await page.getByLabel('only the main content').uncheck();
    await page.getByRole('button', { name: 'Scrape' }).click();
    await page.waitForURL(/\/console\/jobs\/scrape\/[\w-]{22}$/, { timeout: 70_000 });
    assert.match(await page.locator('h1').innerText(), /completed/, 'the page opens on the result');
    await page.getByRole('tab', { name: 'Python' }).click();
    const py = await page.locator('#snippet-py').innerText();
    assert.ok(py.includes(`"url": "${target}"`), py);
    assert.match(py, /"onlyMainContent": False/);
    assert.match(py, /"waitMs": 60000/);
    assert.doesNotMatch(py, /a-True-story/);
    // Each snippet, run as a user would with their key in TRAWL_API_KEY, prints the page's content.
    const env = { ...process.env, TRAWL_API_KEY: TEST_API_KEY };
    // (The SDK's snippet imports it from the checkout's dist/, so it runs from the checkout.)
    for (const [id, file, args] of [['curl', 'sh', ['-c']], ['py', 'python3', ['-c']], ['js', process.execPath, ['--input-type=module', '-e']], ['sdk', process.execPath, ['--input-type=module', '-e']]] as const) {
      const code = await page.locator(`#snippet-${id}`).textContent();
      assert.match(await run(file, [...args, code!], { env, cwd: process.cwd() }), /# A true story/, `the ${id} snippet returns the content`);
    }
  });

  test('extract: the schema editor starts with an example; the job shows the extracted JSON', async () => {
    await tab('Extract');
    assert.match(await page.getByLabel('Extraction schema (JSON)').inputValue(), /"selector": "h1"/);
    await page.getByLabel('URL', { exact: true }).fill(site.url('/start'));
    await page.getByLabel('Extraction schema (JSON)').fill('{"fields": {"nope": ');
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/playground') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Extract' }).click()]);
    assert.equal(refused.status(), 400);
    assert.match(await page.getByRole('alert').innerText(), /the schema is not JSON/);
    await page.getByLabel('Extraction schema (JSON)').fill(JSON.stringify({ fields: { title: { selector: 'h1' }, links: { selector: 'a', type: 'url', list: true } } }));
    await page.getByRole('button', { name: 'Extract' }).click();
    await page.waitForURL(/\/console\/jobs\/scrape\/[\w-]{22}$/, { timeout: 70_000 });
    const json = JSON.parse(await page.locator('section', { has: page.getByRole('heading', { name: 'Extracted JSON' }) }).locator('pre').innerText()) as { title: string; links: string[] };
    assert.deepEqual(json, { title: 'Start', links: [site.url('/one'), site.url('/two')] });
  });

  test('crawl: its pages open rendered and raw, and download whole as JSON and as a ZIP of markdown', async () => {
    await tab('Crawl');
    await page.getByLabel('Start URL').fill(site.url('/start'));
    await page.getByLabel('Most pages (1–1000)').fill('3');
    // "Show as code" shows the typed request; its curl, run as is, polls until the crawl is done.
    await page.getByRole('button', { name: 'Show as code' }).click();
    const curl = await page.locator('#snippet-curl').textContent();
    assert.ok(curl!.includes(`"url":"${site.url('/start')}","limit":3`), curl!);
    const printed = await run('sh', ['-c', curl!], { env: { ...process.env, TRAWL_API_KEY: TEST_API_KEY }, cwd: fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-snippet-')) });
    for (const p of ['/start', '/one', '/two']) assert.ok(printed.includes(site.url(p)), printed);
    assert.equal(await page.getByLabel('Start URL').inputValue(), site.url('/start'), 'the form keeps what was typed');
    await page.getByRole('button', { name: 'Start the crawl' }).click();
    await page.waitForURL(/\/console\/jobs\/crawl\/[\w-]{22}$/);
    crawlId = page.url().split('/').at(-1)!;
    await until(async () => { await page.reload(); return /completed/.test(await page.locator('h1').innerText()); }, { timeoutMs: 60_000, intervalMs: 500 });
    assert.match(await page.locator('#pages').innerText(), /Pages \(3\)/);
    await shoot(browser, await ctx.storageState(), page.url(), 'job-crawl', { open: 'details.events > summary' });
    await page.getByRole('link', { name: site.url('/one') }).click();
    await page.waitForURL(/\/pages\/[\w-]+$/);
    assert.equal((await page.locator('.rendered h2').first().innerText()).trim(), 'Page one');
    await page.getByText('Show the raw markdown').click();
    assert.match(await page.locator('main pre').first().innerText(), /^# Page one/);
    await shoot(browser, await ctx.storageState(), page.url(), 'crawl-page');

    const json = await page.request.get(url(`/console/jobs/crawl/${crawlId}/pages.json`));
    assert.equal(json.status(), 200);
    assert.match(json.headers()['content-disposition'] ?? '', /attachment/);
    const data = ((await json.json()) as { data: { url: string; markdown: string }[] }).data;
    assert.deepEqual(data.map((p) => p.url).sort(), [site.url('/one'), site.url('/start'), site.url('/two')].sort());
    const zipRes = await page.request.get(url(`/console/jobs/crawl/${crawlId}/pages.zip`));
    assert.equal(zipRes.headers()['content-type'], 'application/zip');
    const zip = await JSZip.loadAsync(await zipRes.body());
    const md = Object.keys(zip.files).filter((f) => f.endsWith('.md'));
    assert.equal(md.length, 3);
    assert.ok((await Promise.all(md.map((f) => zip.file(f)!.async('string')))).some((t) => t.includes('# Page two')));
    const other = await browser.newContext();
    assert.notEqual((await other.request.get(url(`/console/jobs/crawl/${crawlId}/pages.zip`), { maxRedirects: 0 })).status(), 200, 'not without signing in');
    await other.close();
  });

  test('batch: its pages are listed and open', async () => {
    await tab('Batch');
    await page.getByLabel('URLs, one a line (1–100)').fill(`${site.url('/one')}\n${site.url('/two')}`);
    await page.getByRole('button', { name: 'Start the batch' }).click();
    await page.waitForURL(/\/console\/jobs\/batch\/[\w-]{22}$/);
    await until(async () => { await page.reload(); return /completed/.test(await page.locator('h1').innerText()); }, { timeoutMs: 60_000, intervalMs: 500 });
    await page.getByRole('link', { name: site.url('/two') }).click();
    assert.equal((await page.locator('.rendered h2').first().innerText()).trim(), 'Page two');
  });

  test('map: the links show on the playground', async () => {
    await tab('Map');
    await page.getByLabel('URL', { exact: true }).fill(site.url('/start'));
    await page.getByRole('button', { name: 'Map' }).click();
    const result = page.getByTestId('map-result');
    await result.waitFor({ timeout: 60_000 });
    assert.match(await result.innerText(), new RegExp(site.url('/one').replace(/[.]/g, '\\.')));
    // And it is listed under Jobs (the map-jobs read model), opening on its links.
    await until(async () => {
      await page.goto(url('/console/jobs?kind=map'));
      return /\d+ URLs found/.test(await page.locator('main').innerText());
    }, { timeoutMs: 10_000, intervalMs: 300 });
    await page.getByRole('link', { name: site.url('/start') }).click();
    await page.waitForURL(/\/console\/jobs\/map\/[\w-]{22}$/);
    assert.match(await page.locator('#links').innerText(), /Links \(\d+\)/);
    assert.match(await page.locator('main').innerText(), new RegExp(site.url('/two').replace(/[.]/g, '\\.')));
    await shoot(browser, await ctx.storageState(), url('/console/playground?tab=extract'), 'playground-extract');
  });

  test('the jobs list shows pages and how long each job took; the 404 page offers a way on', async () => {
    await page.goto(url('/console/jobs'));
    const row = page.getByRole('row', { name: new RegExp(site.url('/start').replace(/[.]/g, '\\.')) }).filter({ hasText: 'crawl' }).first();
    assert.match(await row.innerText(), /3 of 3/);
    assert.match(await row.innerText(), /\d+(\.\d)? s|\d+ min/);
    const missing = await page.goto(url('/console/jobs/crawl/AAAAAAAAAAAAAAAAAAAAAA'));
    assert.equal(missing?.status(), 404);
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    await page.getByRole('link', { name: 'Your jobs' }).click();
    await page.waitForURL(/\/console\/jobs$/);
  });

  test('an admin revokes an open invite: told so, and its link no longer works', async () => {
    await page.goto(url('/console/admin'));
    await page.getByRole('button', { name: 'Make an invite link' }).click();
    const link = (await page.locator('#invite-link').innerText()).trim();
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: /^Revoke the member invite/ }).click();
    assert.match(await page.getByRole('status').innerText(), /The invite is revoked/);
    const other = await browser.newContext();
    const p = await other.newPage();
    assert.equal((await p.goto(link))?.status(), 403);
    assert.match(await p.getByRole('alert').innerText(), /revoked by an admin/);
    await other.close();
  });

  test('on a phone (390 px) the nav is one compact row and nothing scrolls sideways', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, storageState: await ctx.storageState() });
    const p = await phone.newPage();
    for (const path of ['/console/jobs', `/console/jobs/crawl/${crawlId}`, '/console/playground?tab=crawl']) {
      await p.goto(url(path));
      const nav = (await p.locator('nav.main').boundingBox())!;
      assert.ok(nav.height < 40, `${path}: the nav is one row (${nav.height} px)`);
      assert.ok(((await p.locator('header.top').boundingBox())!).height < 110, `${path}: the header stays short`);
      assert.equal(await p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `${path}: no sideways scroll`);
    }
    await phone.close();
  });
});
