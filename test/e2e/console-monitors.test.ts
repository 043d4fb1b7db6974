// The console's Monitors pages in real Chromium against the real system: a monitor that
// ran (a baseline, then a run that saw a change), listed with its last run, and its own
// page with every run and the diff of each changed page; a skipped run shows its reason;
// another account cannot open it. With CONSOLE_SCREENSHOTS_DIR set the pages are saved
// there (docs/console/).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../shared/src/infra/chromium.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, TEST_API_KEY, type TrawlSystem } from '../support/system.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { apiKeyId } from '../../shared/src/infra/ids.js';
import { shoot } from './console-shots.js';

function article(sentence: string): string {
  return `<!doctype html><html lang="en"><head><title>Pricing</title></head><body><main><article><h1>Pricing</h1>
<p>${sentence} This sentence is here so that the paragraph is long enough to be kept as content by the extractor.</p>
</article></main></body></html>`;
}

const ADMIN = { email: 'watcher@example.com', password: 'correct horse battery staple' };

describe('console: monitors', () => {
  let site: TestSite;
  let hooks: WebhookReceiver;
  let system: TrawlSystem;
  let browser: Browser;
  let admin: BrowserContext;
  let page: Page;

  before(async () => {
    site = await startSite({ '/pricing': article('The price is 9 euros a month.') });
    hooks = await startWebhookReceiver(['/hook']);
    system = await startSystem({ env: { MONITOR_MIN_INTERVAL_MS: '1000', MONITOR_CHECK_INTERVAL_MS: '200', BOOTSTRAP_API_KEYS: `${TEST_API_KEY}:team` } });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
    admin = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    page = await admin.newPage();
    const invite = /console admin invite[^:]*: (\S+)/.exec(system.logs())?.[1];
    assert.ok(invite, 'the invite link is printed');
    await page.goto(invite);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/console\/keys/);
  });
  after(async () => {
    await browser?.close();
    await system?.stop();
    await hooks?.close();
    await site?.close();
  });

  const url = (p: string): string => `${system.baseUrl}${p}`;
  const monitor = async (id: string): Promise<any> => (await system.api('GET', `/api/v1/monitors/${id}`)).body;
  /** Waits for a finished run (`changed`: one that reported a change). */
  async function finishedRun(id: string, changed: boolean): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const m = await monitor(id);
      if (m.lastRun && (!changed || m.lastRun.changed.length > 0)) return;
      await sleep(200);
    }
    throw new Error(`monitor ${id}: no run ${changed ? 'with a change' : ''} in 2 minutes`);
  }

  test('the list shows the last run; the monitor\'s page shows every run and each changed page\'s diff', async () => {
    const created = await system.api('POST', '/api/v1/monitors', { url: site.url('/pricing'), schedule: { intervalSeconds: 2 }, webhookUrl: hooks.url('/hook') });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    await finishedRun(id, false);
    site.route('/pricing', article('The price is 12 euros a month.'));
    await finishedRun(id, true);

    await page.goto(url('/console/monitors'));
    const row = page.getByTestId(`monitor-${id}`);
    await row.waitFor();
    const text = await row.innerText();
    assert.match(text, /every 2 s/);
    assert.match(text, /1 changed/);
    assert.match(text, new RegExp(`changed: ${site.url('/pricing').replace(/[.?]/g, '\\$&')}`));
    await shoot(browser, await admin.storageState(), url('/console/monitors'), 'monitors');

    await row.getByRole('link', { name: 'Runs and diffs' }).click();
    await page.waitForURL(new RegExp(`/console/monitors/${apiKeyId(TEST_API_KEY)}/${id}$`));
    const diff = page.getByTestId('run-diff').first();
    assert.match(await diff.innerText(), /-The price is 9 euros a month\./);
    assert.match(await diff.innerText(), /\+The price is 12 euros a month\./);
    const rows = page.locator('tr[data-testid^="run-"]').filter({ hasText: /completed/ });
    assert.ok(await rows.count() >= 2, 'the baseline run is listed too');
    assert.match(await page.getByTestId('monitor-runs').innerText(), /baseline/);
    await shoot(browser, await admin.storageState(), page.url(), 'monitor-runs');
  });

  test('another account cannot open a monitor\'s page', async () => {
    const other = await browser.newContext();
    const res = await other.request.get(url(`/console/monitors/${apiKeyId(TEST_API_KEY)}/AAAAAAAAAAAAAAAAAAAAAA`), { maxRedirects: 0 });
    assert.notEqual(res.status(), 200);
    await other.close();
    const missing = await page.goto(url(`/console/monitors/${apiKeyId(TEST_API_KEY)}/AAAAAAAAAAAAAAAAAAAAAA`));
    assert.equal(missing?.status(), 404);
    const foreign = await page.goto(url('/console/monitors/someoneElsesKey0000000/AAAAAAAAAAAAAAAAAAAAAA'));
    assert.equal(foreign?.status(), 404);
  });
});
