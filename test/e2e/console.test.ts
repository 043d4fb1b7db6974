// The web console end to end, in real Chromium against the real system (npm start's
// supervisor, every service): sign up from the start invite, sign in, make a key and use
// it, find the job with its events, usage, isolation between accounts (URL guessing too),
// CSRF refusals, revocation, and the sign-in limit. With CONSOLE_SCREENSHOTS_DIR set it
// also saves every page at desktop and phone widths there (docs/console/).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { SERVICES } from '../../scripts/services.js';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../shared/src/infra/chromium.js';
import { reportPdf } from '../support/documents.js';
import { freePortRange } from '../support/nats-server.js';
import { startSite, type TestSite } from '../support/site.js';
import { OTHER_API_KEY, startSystem, TEST_API_KEY, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';
import { apiKeyId } from '../../shared/src/infra/ids.js';
import { SHOTS, shoot } from './console-shots.js';

const ARTICLE = `<!doctype html><html lang="en"><head><title>Console test article</title></head><body>
<main><article><h1>Herring migrations</h1>
<p>Herring gather in large schools and move between feeding and spawning grounds every year. This paragraph is
long enough for the readability algorithm to keep it as the main content of the page.</p>
<p>See <a href="/second">the second page</a> and <a href="/third">the third page</a> for more about the fish.</p>
</article></main></body></html>`;
const PAGE = (title: string): string => `<!doctype html><html><head><title>${title}</title></head><body><main><article><h1>${title}</h1>
<p>${'A paragraph about fish and the sea, long enough to be content. '.repeat(4)}</p></article></main></body></html>`;

const ADMIN = { email: 'Admin@Example.com', password: 'correct horse battery staple' };
const MEMBER = { email: 'member@example.com', password: 'another long passphrase' };
describe('web console end to end', () => {
  let site: TestSite;
  let system: TrawlSystem;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;
  let apiKey = '';
  let keyId = '';
  let scrapeId = '';
  let crawlId = '';
  let memberInvite = '';

  before(async () => {
    site = await startSite({ '/article': ARTICLE, '/second': PAGE('Second page'), '/third': PAGE('Third page') });
    const healthBase = await freePortRange(SERVICES.length);
    system = await startSystem({ env: { HEALTH_PORT: String(healthBase), LOG_LEVEL: 'info' } });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
    admin = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await admin.newPage();
  });
  after(async () => {
    await browser?.close();
    await system?.stop();
    await site?.close();
  });

  const url = (p: string): string => `${system.baseUrl}${p}`;
  const api = (method: string, p: string, key: string, body?: unknown) => fetch(url(p), {
    method, headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body: JSON.stringify(body) } : {}),
  });

  test('npm start prints the console URL and an admin invite; / leads to the console', async () => {
    assert.match(system.logs(), new RegExp(`web console: ${system.baseUrl}/console`));
    const res = await fetch(url('/'), { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/console');
    await page.goto(url('/'));
    assert.match(page.url(), /\/console\/signin\?next=/);
    await shoot(browser, undefined, url('/console/signin'), 'signin');
  });

  test('sign up from the start invite: the first account is an admin on the top plan, with npm start\'s key and the next steps', async () => {
    const invite = /console admin invite[^:]*: (\S+)/.exec(system.logs())?.[1];
    assert.ok(invite, 'the invite link is printed');
    await shoot(browser, undefined, invite, 'signup');
    await page.goto(invite);
    await page.getByText('makes an admin account').waitFor();
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/console\/keys\?welcome=1$/);
    await page.getByRole('link', { name: 'Admin' }).waitFor();
    assert.match(await page.locator('.who').innerText(), /admin@example\.com · team · admin/, 'the operator\'s own server: the top plan');
    const steps = await page.getByTestId('next-steps').innerText();
    assert.match(steps, /Welcome: next steps/);
    assert.match(steps, /npx trawl login/);
    // The harness starts like npm start with BOOTSTRAP_API_KEYS: both keys are the admin's now.
    const printed = TEST_API_KEY;
    for (const key of [TEST_API_KEY, OTHER_API_KEY]) assert.match(steps, new RegExp(apiKeyId(key)), 'npm start\'s keys are in the account');
    assert.equal(await page.getByRole('row', { name: /from npm start/ }).count(), 2);
    const mcp = JSON.parse(await page.locator('#mcp-config').innerText()) as { mcpServers: { trawl: { args: string[]; env: Record<string, string> } } };
    assert.deepEqual(mcp.mcpServers.trawl.args, ['trawl', 'mcp']);
    assert.equal(mcp.mcpServers.trawl.env.TRAWL_API_URL, system.baseUrl);
    await shoot(browser, await admin.storageState(), url('/console/keys?welcome=1'), 'welcome');
    // What the CLI, the SDK or the MCP server does with that key is the admin's to see.
    const cli = await api('POST', '/api/v1/scrape', printed, { url: site.url('/third'), waitMs: 60_000 });
    assert.equal(((await cli.json()) as { status: string }).status, 'COMPLETED');
    await page.goto(url('/console/jobs'));
    await page.getByRole('link', { name: site.url('/third') }).waitFor();
    const cookies = await admin.cookies();
    const session = cookies.find((c) => c.name === 'trawl_session');
    assert.ok(session?.httpOnly, 'the session cookie is HttpOnly');
    assert.equal(session?.sameSite, 'Lax');
    // The invite is spent.
    await page.goto(invite);
    await page.getByText('has been used already').waitFor();
  });

  test('sign out, then sign in again', async () => {
    await page.goto(url('/console/keys'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/console\/signin\?signedOut=1$/);
    assert.match(await page.getByRole('status').innerText(), /You are signed out/);
    await page.goto(url('/console/usage'));
    await page.waitForURL(/\/console\/signin\?next=/);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/console\/usage$/);
  });

  test('an admin moves an account to another plan, and is told so; its keys take that plan', async () => {
    for (const plan of ['pro', 'team']) {
      await page.goto(url('/console/admin'));
      await page.getByLabel('Plan of admin@example.com').selectOption(plan);
      await page.getByRole('row', { name: /admin@example\.com/ }).getByRole('button', { name: 'Set plan' }).click();
      await page.waitForURL(/\/console\/admin\?plan=[0-9a-f]{20}$/);
      assert.match(await page.getByRole('status').innerText(), new RegExp(`admin@example\\.com is on the ${plan} plan now`));
      assert.match(await page.locator('.who').innerText(), new RegExp(`· ${plan} ·`));
    }
  });

  test('create a key (shown once, with a copy button) and use it with the API: the scrape completes', async () => {
    await page.goto(url('/console/keys'));
    await page.getByLabel('Label').fill('e2e key');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await page.locator('#new-key-value').innerText()).trim();
    assert.match(apiKey, /^trawl_[\w-]{32}$/);
    // "Try it" answers with the content: the body asks to wait for the result.
    const tryIt = await page.locator('#try-it').innerText();
    assert.ok(tryIt.includes(`Bearer ${apiKey}`));
    assert.deepEqual(JSON.parse(/-d '(.*)'$/.exec(tryIt)![1]!), { url: 'https://example.com', waitMs: 60_000 });
    assert.equal(await page.getByRole('button', { name: 'Copy', exact: true }).isVisible(), true, 'the script shows the copy button');
    const row = page.getByRole('row', { name: /e2e key/ });
    keyId = (await row.locator('td.mono').innerText()).trim();
    assert.match(await row.innerText(), /active/);
    assert.match(await row.innerText(), /team/, 'the key takes the account\'s plan');
    await page.goto(url('/console/keys'));
    assert.equal(await page.locator('#new-key-value').count(), 0, 'the key is not shown again');

    const res = await api('POST', '/api/v1/scrape', apiKey, { url: site.url('/article'), formats: ['markdown', 'links'] });
    assert.ok(res.status === 200 || res.status === 202, `scrape answered ${res.status}`);
    scrapeId = ((await res.json()) as { id: string }).id;
    await until(async () => ((await (await api('GET', `/api/v1/scrape/${scrapeId}`, apiKey)).json()) as { status: string }).status === 'COMPLETED', { timeoutMs: 60_000, intervalMs: 500 });
    const crawl = await api('POST', '/api/v1/crawl', apiKey, { url: site.url('/article'), limit: 3 });
    assert.equal(crawl.status, 202);
    crawlId = ((await crawl.json()) as { id: string }).id;
  });

  test('the jobs page lists the scrape; its page shows the result and its events from the log', async () => {
    await page.goto(url('/console/jobs'));
    await page.getByRole('link', { name: site.url('/article') }).first().waitFor();
    await page.goto(url('/console/jobs?kind=scrape&status=COMPLETED'));
    await page.locator(`a[href="/console/jobs/scrape/${scrapeId}"]`).click();
    await page.waitForURL(new RegExp(`/console/jobs/scrape/${scrapeId}$`));
    const text = await page.locator('main').innerText();
    assert.match(text, /completed/);
    assert.equal((await page.locator('main .rendered h2').first().innerText()).trim(), 'Herring migrations', 'the markdown is shown rendered, its headings one level down');
    await page.getByText('Show the raw markdown').click();
    assert.match(await page.locator('main').innerText(), /# Herring migrations/, 'and raw');
    // The event history is collapsed, grouped per page with its URL.
    assert.doesNotMatch(text, /page_fetched/, 'collapsed by default');
    await page.locator('details.events > summary').click();
    const groups = page.locator('details.event-group > summary');
    assert.ok(await groups.count() >= 1);
    for (let i = 0; i < await groups.count(); i++) await groups.nth(i).click();
    const events = await page.locator('details.events').innerText();
    for (const event of ['page_requested', 'page_started', 'page_fetched', 'page_completed']) assert.match(events, new RegExp(event));
    await page.goto(url('/console/jobs?kind=crawl'));
    assert.equal(await page.locator(`a[href="/console/jobs/scrape/${scrapeId}"]`).count(), 0, 'the kind filter holds');
    await page.locator(`a[href="/console/jobs/crawl/${crawlId}"]`).click();
    await page.locator('progress').waitFor();
    // A running crawl polls its progress; once done the page shows the final counts.
    await until(async () => { await page.reload(); return /completed/.test(await page.locator('h1').innerText()); }, { timeoutMs: 60_000, intervalMs: 500 });
    await page.locator('details.events > summary').click();
    await page.getByText('The job', { exact: true }).click();
    assert.match(await page.locator('details.events').innerText(), /crawl_finished/);
  });

  test('a document scrape\'s page offers the stored bytes, which only the account can download', async () => {
    const pdf = await reportPdf();
    site.route('/report', { body: pdf, contentType: 'application/octet-stream' });
    const res = await api('POST', '/api/v1/scrape', apiKey, { url: site.url('/report'), waitMs: 60_000 });
    const job = (await res.json()) as { id: string; status: string };
    assert.equal(job.status, 'COMPLETED');
    await page.goto(url(`/console/jobs/scrape/${job.id}`));
    const link = page.getByRole('link', { name: /Download the application\/pdf as served/ });
    assert.match(await page.locator('main').innerText(), /\d+ pages?\b/, 'the page count is shown');
    const download = await page.request.get(url(`/console/jobs/scrape/${job.id}/document`));
    assert.equal(download.status(), 200);
    assert.equal(download.headers()['content-disposition'], 'attachment');
    assert.deepEqual(Buffer.from(await download.body()), pdf, 'the bytes as served');
    assert.equal(await link.getAttribute('href'), `/console/jobs/scrape/${job.id}/document`);
    const anonymous = await fetch(url(`/console/jobs/scrape/${job.id}/document`), { redirect: 'manual' });
    assert.notEqual(anonymous.status, 200, 'not without signing in');
    await shoot(browser, await admin.storageState(), url(`/console/jobs/scrape/${job.id}`), 'job-document');
  });

  test('usage reflects the scrape', async () => {
    await page.goto(url('/console/usage'));
    const pages = Number(await page.getByTestId('month-pages').innerText());
    assert.ok(pages >= 1, `pages this month: ${pages}`);
    assert.ok(await page.locator('svg.chart rect[height]:not([height="0"])').count() >= 1, 'today has a bar');
    await page.goto(url('/console/api'));
    await page.getByText('/api/v1/scrape').first().waitFor();
  });

  test('the monitors page lists the account\'s monitors with their schedule and next run', async () => {
    await page.goto(url('/console/monitors'));
    await page.getByTestId('no-monitors').waitFor();
    const created = await api('POST', '/api/v1/monitors', apiKey, { url: site.url('/'), schedule: { cron: '0 6 * * *' }, webhookUrl: site.url('/hook') });
    const text = await created.text();
    assert.equal(created.status, 201, text);
    const monitor = JSON.parse(text) as { id: string; nextRunAt: string };
    await page.goto(url('/console/monitors'));
    const row = page.getByTestId(`monitor-${monitor.id}`);
    assert.match(await row.innerText(), /cron 0 6 \* \* \*/);
    // Times as people read them (html.ts `when`): 2026-11-27 06:00:00 UTC.
    assert.ok((await row.innerText()).includes(`${monitor.nextRunAt.replace('T', ' ').replace(/\.\d+Z$/, '')} UTC`), await row.innerText());
    assert.match(await row.innerText(), /not yet/);
    await api('DELETE', `/api/v1/monitors/${monitor.id}`, apiKey);
  });

  test('the playground scrapes a URL as one of the account\'s keys and shows the same request as code', async () => {
    await page.goto(url('/console/playground'));
    await page.getByLabel('URL', { exact: true }).fill(site.url('/second'));
    await page.getByLabel('Timeout (ms, 1000–300000)').fill('500');
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/console/playground') && r.request().method() === 'POST'), page.getByRole('button', { name: 'Scrape' }).click()]);
    assert.equal(refused.status(), 400);
    assert.match(await page.getByRole('alert').innerText(), /timeout must be >= 1000/);
    await page.getByLabel('Timeout (ms, 1000–300000)').fill('');
    await page.getByLabel('links').check();
    await page.getByRole('button', { name: 'Scrape' }).click();
    // The playground waits for the result: the job's page opens on the content, no reload.
    await page.waitForURL(/\/console\/jobs\/scrape\/[\w-]{22}$/, { timeout: 70_000 });
    assert.match(await page.locator('h1').innerText(), /completed/);
    assert.doesNotMatch(await page.locator('main').innerText(), /0 completed · 1 pages/);
    assert.equal((await page.locator('main .rendered h2').first().innerText()).trim(), 'Second page');
    assert.match(await page.locator('#snippet-curl').innerText(), /"formats":\["markdown","links"\],"waitMs":60000/);
    // The snippets are tabs: one shows at a time.
    assert.equal(await page.locator('#snippet-sdk').isVisible(), false);
    await page.getByRole('tab', { name: 'Trawl SDK' }).click();
    assert.equal(await page.locator('#snippet-curl').isVisible(), false);
    assert.match(await page.locator('#snippet-sdk').innerText(), /trawl\.scrape\("http:\/\/127\.0\.0\.1:\d+\/second", \{\s+"formats": \[\s+"markdown",\s+"links"\s+\]\s+\}\)/);
    assert.doesNotMatch(await page.locator('main').innerHTML(), /trawl_[\w-]{32}/, 'no key on the page');
  });

  test('an admin invites a member; the member cannot see the first account\'s keys or jobs, by URL guessing either', async () => {
    await page.goto(url('/console/admin'));
    await page.getByLabel('Role').selectOption('member');
    await page.getByRole('button', { name: 'Make an invite link' }).click();
    memberInvite = (await page.locator('#invite-link').innerText()).trim();
    const member = await browser.newContext();
    const mp = await member.newPage();
    await mp.goto(memberInvite);
    await mp.getByLabel('Email').fill(MEMBER.email);
    await mp.getByLabel('Password').fill(MEMBER.password);
    await mp.getByRole('button', { name: 'Create account' }).click();
    await mp.waitForURL(/\/console\/keys\?welcome=1$/);
    assert.match(await mp.getByTestId('next-steps').innerText(), /free plan\. An admin of this server can change it/);
    assert.equal(await mp.getByRole('link', { name: 'Admin' }).count(), 0);
    assert.doesNotMatch(await mp.locator('main').innerText(), /e2e key/);
    await mp.getByLabel('Label').fill('member key');
    await mp.getByRole('button', { name: 'Create key' }).click();
    const memberKey = (await mp.locator('#new-key-value').innerText()).trim();
    assert.match(await mp.getByRole('row', { name: /member key/ }).innerText(), /free/, 'a new account has the default plan');
    await mp.goto(url('/console/jobs'));
    assert.match(await mp.locator('main').innerText(), /No jobs yet/);
    assert.equal((await api('GET', '/api/v1/scrape', memberKey)).status, 200, 'the member\'s key works');
    for (const p of [`/console/jobs/scrape/${scrapeId}`, `/console/jobs/crawl/${crawlId}`, `/console/keys/${keyId}/webhook-secret`]) {
      const res = await mp.goto(url(p));
      assert.equal(res?.status(), 404, p);
      assert.match(await mp.locator('h1').innerText(), /Page not found/);
    }
    const progress = await mp.request.get(url(`/console/jobs/scrape/${scrapeId}/progress.json`));
    assert.equal(progress.status(), 404);
    assert.match(progress.headers()['content-type'] ?? '', /application\/problem\+json/);
    assert.equal(((await progress.json()) as { code: string }).code, 'NOT_FOUND');
    assert.equal((await mp.goto(url('/console/admin')))?.status(), 403);
    // Revoking someone else's key with a valid token of one's own: not found, nothing revoked.
    await mp.goto(url('/console/keys'));
    const csrf = await mp.locator('input[name=_csrf]').first().inputValue();
    const revoke = await mp.request.post(url(`/console/keys/${keyId}/revoke`), { form: { _csrf: csrf }, maxRedirects: 0 });
    assert.equal(revoke.status(), 404);
    assert.equal((await api('GET', `/api/v1/scrape/${scrapeId}`, apiKey)).status, 200, 'the key still works');

    // The admin disables the member: signed out at once, and signing in is refused.
    await page.goto(url('/console/admin'));
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('row', { name: /member@example\.com/ }).getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('row', { name: /member@example\.com/ }).getByText('disabled').waitFor();
    await mp.goto(url('/console/keys'));
    assert.match(mp.url(), /\/console\/signin\?next=/);
    await mp.getByLabel('Email').fill(MEMBER.email);
    await mp.getByLabel('Password').fill(MEMBER.password);
    const [refusedSignIn] = await Promise.all([mp.waitForResponse((r) => r.url().endsWith('/console/signin') && r.request().method() === 'POST'), mp.getByRole('button', { name: 'Sign in' }).click()]);
    assert.equal(refusedSignIn.status(), 403);
    assert.match(await mp.getByRole('alert').innerText(), /disabled/);
    await until(async () => (await api('GET', '/api/v1/scrape', memberKey)).status === 401, { timeoutMs: 10_000, intervalMs: 500 });
    await member.close();
  });

  test('screenshots of the signed-in pages', async () => {
    if (!SHOTS) return;
    const storage = await admin.storageState();
    for (const [p, name] of [['/console/keys', 'keys'], ['/console/jobs', 'jobs'], [`/console/jobs/scrape/${scrapeId}`, 'job-scrape'], [`/console/jobs/crawl/${crawlId}`, 'job-crawl'],
      ['/console/usage', 'usage'], ['/console/playground', 'playground'], ['/console/api', 'api'], ['/console/admin', 'admin'], [`/console/keys/${keyId}/webhook-secret`, 'webhook-secret'], ['/console/jobs/scrape/AAAAAAAAAAAAAAAAAAAAAA', 'not-found']] as const) {
      await shoot(browser, storage, url(p), name);
    }
  });

  test('a state change without the CSRF token, with a wrong one, or from another origin is refused', async () => {
    await page.goto(url('/console/keys'));
    const csrf = await page.locator('input[name=_csrf]').first().inputValue();
    const none = await page.request.post(url('/console/keys'), { form: { label: 'forged' }, maxRedirects: 0 });
    assert.equal(none.status(), 403);
    assert.match(await none.text(), /security token/);
    const wrong = await page.request.post(url('/console/keys'), { form: { label: 'forged', _csrf: 'x'.repeat(64) }, maxRedirects: 0 });
    assert.equal(wrong.status(), 403);
    const cross = await page.request.post(url('/console/keys'), { form: { label: 'forged', _csrf: csrf }, headers: { origin: 'https://evil.example' }, maxRedirects: 0 });
    assert.equal(cross.status(), 403);
    const json = await page.request.post(url(`/console/keys/${keyId}/revoke`), { headers: { accept: 'application/json' }, maxRedirects: 0 });
    assert.equal(json.status(), 403);
    assert.equal(((await json.json()) as { code: string }).code, 'FORBIDDEN');
    await page.goto(url('/console/keys'));
    assert.doesNotMatch(await page.locator('main').innerText(), /forged/);
    const signin = await fetch(url('/console/signin'), { method: 'POST', body: new URLSearchParams({ email: ADMIN.email, password: ADMIN.password }), redirect: 'manual' });
    assert.equal(signin.status, 403, 'sign-in without its pre-session token');
  });

  test('revoke the key: the list says revoked and the API answers 401', async () => {
    await page.goto(url('/console/keys'));
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Revoke key e2e key' }).click();
    await page.getByRole('row', { name: /e2e key/ }).getByText('revoked').waitFor();
    await until(async () => (await api('GET', `/api/v1/scrape/${scrapeId}`, apiKey)).status === 401, { timeoutMs: 10_000, intervalMs: 500 });
  });

  test('a wrong password is limited after 5 tries, per account', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const attempt = async (password: string): Promise<number> => {
      await p.goto(url('/console/signin'));
      await p.getByLabel('Email').fill(ADMIN.email);
      await p.getByLabel('Password').fill(password);
      const [res] = await Promise.all([p.waitForResponse((r) => r.url().endsWith('/console/signin') && r.request().method() === 'POST'), p.getByRole('button', { name: 'Sign in' }).click()]);
      return res.status();
    };
    for (let i = 0; i < 5; i++) {
      assert.equal(await attempt(`wrong password ${i}`), 401);
      assert.match(await p.getByRole('alert').innerText(), /wrong email or password/);
    }
    assert.equal(await attempt(ADMIN.password), 429, 'even the right password waits now');
    assert.match(await p.getByRole('alert').innerText(), /too many failed sign-ins/);
    await ctx.close();
  });

  test('passwords never reach the logs', () => {
    const logs = system.logs();
    for (const secret of [ADMIN.password, MEMBER.password, 'wrong password 0']) assert.equal(logs.includes(secret), false, 'a password is in the logs');
    assert.ok(logs.length > 0);
  });
});
