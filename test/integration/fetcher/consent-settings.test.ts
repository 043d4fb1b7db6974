// The consent option against Usercentrics' Web CMP v3 and dialogs whose first layer has only
// "accept" and "settings", in real Chromium (docs/api.md "Page outcome", *Consent walls*):
// to reject, the settings layer is opened and its "reject all" clicked, or every optional
// purpose switched off and the choice saved; and what was done is the page's consent record
// (metadata.consent): rejected, accepted, none found, or not possible and why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../../shared/src/infra/chromium.js';
import { answerConsent } from '../../../services/fetcher/src/consent/consent.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { cookiebotSettingsPage, DIDOMI_CONTINUE_WITHOUT_AGREEING, NO_DIALOG, quantcastSettingsPage, ONETRUST_ACCEPT_ONLY, oneTrustSettingsPage, usercentricsV2SettingsPage, usercentricsV3Page } from '../../support/consent-layers.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

describe('consent option: Usercentrics v3 and settings layers', () => {
  let site: TestSite;
  let browser: Browser;
  let capturer: PageCapturer;

  before(async () => {
    site = await startSite({
      '/uc3': usercentricsV3Page({ denyOnFirstLayer: true }),
      '/uc3-settings': usercentricsV3Page({ denyOnFirstLayer: false, preTicked: ['functional'] }),
      '/uc3-settings-deny': usercentricsV3Page({ denyOnFirstLayer: false, denyOnSecondLayer: true }),
      '/uc3-more-link': usercentricsV3Page({ denyOnFirstLayer: false, moreAsLink: true }),
      '/uc2-settings': usercentricsV2SettingsPage(),
      '/onetrust-settings': oneTrustSettingsPage({ refuseAll: true }),
      '/onetrust-save': oneTrustSettingsPage({ refuseAll: false, preTicked: ['C0003'] }),
      '/cookiebot-settings': cookiebotSettingsPage({ preTicked: ['Preferences'] }),
      '/quantcast-settings': quantcastSettingsPage(),
      '/didomi-continue': DIDOMI_CONTINUE_WITHOUT_AGREEING,
      '/accept-only': ONETRUST_ACCEPT_ONLY,
      '/open': NO_DIALOG,
    });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
    capturer = await startCapturer();
  });
  after(async () => {
    await capturer?.stop();
    await browser?.close();
    await site?.close();
  });

  async function open(path: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(site.url(path), { waitUntil: 'load' });
    return page;
  }
  const body = (page: Page) => page.evaluate(() => ({ ...document.body.dataset, contentShown: !document.getElementById('content')?.hidden }));

  test('Usercentrics v3: the deny button in the aside\'s shadow root', async () => {
    const page = await open('/uc3');
    assert.deepEqual(await answerConsent(page, 'reject'), { requested: 'reject', result: 'rejected', platform: 'usercentrics', via: 'button' });
    assert.deepEqual(await body(page), { consent: 'rejected', contentShown: true });
    const other = await open('/uc3');
    assert.equal((await answerConsent(other, 'accept')).result, 'accepted');
    assert.deepEqual(await body(other), { consent: 'accepted', contentShown: true });
  });

  test('Usercentrics v3 without deny: its settings layer is opened, the ticked purpose switched off and the minimum saved', async () => {
    const page = await open('/uc3-settings');
    assert.deepEqual(await answerConsent(page, 'reject'), { requested: 'reject', result: 'rejected', platform: 'usercentrics', via: 'settings' });
    assert.deepEqual(await body(page), { consent: 'saved:essential', contentShown: true });
    const link = await open('/uc3-more-link');
    assert.equal((await answerConsent(link, 'reject')).via, 'settings', 'its "More Information" link opens the settings too');
    assert.deepEqual(await body(link), { consent: 'saved:essential', contentShown: true });
  });

  test('a settings layer\'s own deny-all button is preferred to saving (Usercentrics v3 and v2)', async () => {
    const v3 = await open('/uc3-settings-deny');
    assert.equal((await answerConsent(v3, 'reject')).via, 'settings');
    assert.deepEqual(await body(v3), { consent: 'rejected', contentShown: true });
    const v2 = await open('/uc2-settings');
    assert.deepEqual(await answerConsent(v2, 'reject'), { requested: 'reject', result: 'rejected', platform: 'usercentrics', via: 'settings' });
    assert.deepEqual(await body(v2), { consent: 'rejected', contentShown: true });
  });

  test('OneTrust with "Cookie Settings" only: "Reject All" in the preference center, else its switches off and "Confirm My Choices"', async () => {
    const refuse = await open('/onetrust-settings');
    assert.deepEqual(await answerConsent(refuse, 'reject'), { requested: 'reject', result: 'rejected', platform: 'onetrust', via: 'settings' });
    assert.deepEqual(await body(refuse), { consent: 'rejected', contentShown: true });
    const save = await open('/onetrust-save');
    assert.equal((await answerConsent(save, 'reject')).result, 'rejected');
    assert.deepEqual(await body(save), { consent: 'saved:essential', contentShown: true });
  });

  test('Cookiebot without "Deny": "Customize", the ticked category off, "Allow selection"', async () => {
    const page = await open('/cookiebot-settings');
    assert.deepEqual(await answerConsent(page, 'reject'), { requested: 'reject', result: 'rejected', platform: 'cookiebot', via: 'settings' });
    assert.deepEqual(await body(page), { consent: 'saved:essential', contentShown: true });
  });

  test('Quantcast with "More options" and "Agree": the purposes screen, its switches off, "Save & exit"', async () => {
    const page = await open('/quantcast-settings');
    assert.deepEqual(await answerConsent(page, 'reject'), { requested: 'reject', result: 'rejected', platform: 'quantcast', via: 'settings' });
    assert.deepEqual(await body(page), { consent: 'saved:essential', contentShown: true });
    const agreed = await open('/quantcast-settings');
    assert.equal((await answerConsent(agreed, 'accept')).result, 'accepted');
    assert.deepEqual(await body(agreed), { consent: 'accepted', contentShown: true });
  });

  test('Didomi\'s "Continue without agreeing" link is its reject', async () => {
    const page = await open('/didomi-continue');
    assert.deepEqual(await answerConsent(page, 'reject'), { requested: 'reject', result: 'rejected', platform: 'didomi', via: 'button' });
    assert.deepEqual(await body(page), { consent: 'rejected', contentShown: true });
  });

  test('accept is the first layer\'s accept button: the settings layer is never opened for it', async () => {
    const page = await open('/onetrust-save');
    assert.deepEqual(await answerConsent(page, 'accept'), { requested: 'accept', result: 'accepted', platform: 'onetrust', via: 'button' });
    assert.deepEqual(await body(page), { consent: 'accepted', contentShown: true });
  });

  test('a dialog with nothing to reject with is not possible, and left as it is; no dialog is none found', async () => {
    const page = await open('/accept-only');
    const record = await answerConsent(page, 'reject');
    assert.deepEqual({ ...record, reason: undefined }, { requested: 'reject', result: 'not-possible', platform: 'onetrust', reason: undefined });
    assert.match(record.reason ?? '', /no reject button/);
    assert.deepEqual(await body(page), { contentShown: false });
    assert.deepEqual(await answerConsent(await open('/open'), 'reject'), { requested: 'reject', result: 'none-found' });
  });

  test('through the capturer: the record rides on the capture; without the option there is none', async () => {
    const answered = await capturer.capture(site.url('/uc3-settings'), opts({ consent: 'reject' }), ctx());
    assert.deepEqual(answered.consent, { requested: 'reject', result: 'rejected', platform: 'usercentrics', via: 'settings' });
    assert.match(answered.html, /data-consent="saved:essential"/);
    const untouched = await capturer.capture(site.url('/uc3-settings'), opts(), ctx());
    assert.equal(untouched.consent, undefined);
    assert.doesNotMatch(untouched.html, /data-consent/);
  });
});
