// A form on another site that auto-posts to /console/signout, in real Chromium (issue 20,
// item 6): the signed-in user stays signed in. The console is a gateway on 127.0.0.1 (the
// harness: real nats-server, store, projector) listening on a real socket; the other site
// is http://localhost:<port>, a different site to the browser, whose page submits a form
// to the console as soon as it loads. Chromium sends that POST with the other site's
// Origin and without the SameSite=Lax session cookie.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../shared/src/infra/chromium.js';
import { startGateway, type GatewayHarness } from '../support/gateway.js';
import { startSite, type TestSite } from '../support/site.js';
import { withEnv } from '../support/env.js';

const PASSWORD = 'a long enough password';

describe('console: a cross-site auto-posting form', () => {
  let gw: GatewayHarness;
  let base = '';
  let evil: TestSite;
  let browser: Browser;

  before(async () => {
    gw = await withEnv({ CONSOLE_SIGNUP: 'open' }, () => startGateway());
    base = await gw.app.listen({ port: 0, host: '127.0.0.1' });
    evil = await startSite({
      '/': `<!doctype html><html><body><form method="post" action="${base}/console/signout"><input type="hidden" name="x" value="1"></form>
<script>document.forms[0].submit()</script></body></html>`,
    }, 'localhost');
    browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
  });

  after(async () => {
    await browser?.close();
    await evil?.close();
    await gw?.close();
  });

  test('does not sign the user out', async () => {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    await page.goto(`${base}/console/signup`);
    await page.getByLabel('Email').fill('victim@example.org');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/console\/keys\?welcome=1$/);

    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url() === `${base}/console/signout` && r.request().method() === 'POST'),
      page.goto(evil.url('/')),
    ]);
    const sent = await answer.request().allHeaders();
    console.log('cross-site sign-out POST:', answer.status(), { origin: sent.origin, 'sec-fetch-site': sent['sec-fetch-site'], sessionCookie: /trawl_session=/.test(sent.cookie ?? '') });
    assert.equal(sent.origin, evil.origin, 'the other site\'s form did post');
    assert.ok((await ctx.cookies(`${base}/console/keys`)).some((c) => c.name === 'trawl_session' && c.value.length > 0), 'the session cookie is still there');
    const keys = await page.goto(`${base}/console/keys`);
    assert.equal(keys?.status(), 200);
    assert.match(page.url(), /\/console\/keys$/, 'still signed in');
    assert.equal(answer.status(), 403, 'refused by its Origin');
    await ctx.close();
  });
});
