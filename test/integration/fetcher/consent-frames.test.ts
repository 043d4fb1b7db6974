// The consent option against consent dialogs drawn in iframes and CMPs that speak the IAB
// TCF API, in real Chromium (docs/api.md "Page outcome"). The pages come from one loopback
// site and the CMPs' frames from a second one (another port: cross-origin frames), or, for
// TrustArc's frame host, from the test through the browser context's router; all built like
// the real platforms in test/support/consent-cmp.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../../shared/src/infra/chromium.js';
import { answerConsent } from '../../../services/fetcher/src/consent/consent.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { BOT_CHECK_FRAME, botCheckPage, framedWallPage, MESSAGE_FRAME, ONETRUST_FRAME, oneTrustFramedPage, TCF_CMP_SCRIPT, tcfWallPage, TRUSTARC_FRAME, TRUSTARC_FRAME_URL, trustArcPage } from '../../support/consent-cmp.js';
import { startSite, type TestSite } from '../../support/site.js';
import { ctx, opts, startCapturer } from './helpers.js';

const ALL_PURPOSES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

describe('consent option: iframes and the IAB TCF API', () => {
  let site: TestSite;
  let cmpSite: TestSite;
  let browser: Browser;
  let capturer: PageCapturer;

  before(async () => {
    cmpSite = await startSite({ '/index.html': MESSAGE_FRAME, '/onetrust-frame': ONETRUST_FRAME, '/trustarc-lookalike': TRUSTARC_FRAME, '/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv0/0/abc123/light/normal': BOT_CHECK_FRAME });
    site = await startSite({
      '/framed': framedWallPage(cmpSite.origin),
      '/onetrust-framed': oneTrustFramedPage(cmpSite.origin),
      '/trustarc': trustArcPage(TRUSTARC_FRAME_URL),
      '/trustarc-lookalike': trustArcPage(`${cmpSite.origin}/trustarc-lookalike`),
      '/tcf-reject-command': tcfWallPage(cmpSite.origin, { rejectCommand: true }),
      '/tcf': tcfWallPage(cmpSite.origin, { rejectCommand: false }),
      '/tcf-stored': tcfWallPage(cmpSite.origin, { rejectCommand: true, stored: 'accepted' }),
      '/tcf-stub-only': tcfWallPage(cmpSite.origin, { rejectCommand: true }, '/cmp-not-served.js'),
      '/cmp.js': { body: TCF_CMP_SCRIPT, contentType: 'text/javascript', delayMs: 150 },
      '/bot-check': botCheckPage(cmpSite.origin),
    });
    browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: CHROMIUM_ARGS });
    capturer = await startCapturer();
  });
  after(async () => {
    await capturer?.stop();
    await browser?.close();
    await site?.close();
    await cmpSite?.close();
  });

  async function open(path: string): Promise<Page> {
    const context = await browser.newContext();
    // TrustArc's frame host, served by the test (the browser reaches nothing else).
    await context.route('https://consent-pref.trustarc.com/**', (route) => route.fulfill({ body: TRUSTARC_FRAME, contentType: 'text/html' }));
    const page = await context.newPage();
    await page.goto(site.url(path), { waitUntil: 'load' });
    return page;
  }
  const body = (page: Page) => page.evaluate(() => ({ ...document.body.dataset, contentShown: !document.getElementById('content')?.hidden }));

  test('reject clicks Sourcepoint\'s reject button inside its cross-origin message frame', async () => {
    const page = await open('/framed');
    const answer = await answerConsent(page, 'reject');
    assert.equal(answer.platform, 'sourcepoint');
    assert.equal(answer.via, 'button');
    assert.ok(answer.frameUrl?.startsWith(`${cmpSite.origin}/index.html?message_id=`), answer.frameUrl);
    assert.equal(answer.tcf, undefined);
    assert.deepEqual(await body(page), { consent: 'rejected', contentShown: true });
  });

  test('accept clicks the frame\'s accept button', async () => {
    const page = await open('/framed');
    assert.equal((await answerConsent(page, 'accept')).platform, 'sourcepoint');
    assert.deepEqual(await body(page), { consent: 'accepted', contentShown: true });
  });

  test('OneTrust\'s buttons are found in a cross-origin frame too', async () => {
    const page = await open('/onetrust-framed');
    const answer = await answerConsent(page, 'reject');
    assert.deepEqual({ platform: answer.platform, frame: answer.frameUrl }, { platform: 'onetrust', frame: `${cmpSite.origin}/onetrust-frame` });
    assert.deepEqual(await body(page), { consent: 'rejected', contentShown: true });
  });

  test('TrustArc\'s frame is answered by its classes; the same classes in a frame from elsewhere are not clicked', async () => {
    const page = await open('/trustarc');
    const answer = await answerConsent(page, 'reject');
    assert.deepEqual({ platform: answer.platform, via: answer.via }, { platform: 'trustarc', via: 'button' });
    assert.deepEqual(await body(page), { consent: 'rejected', contentShown: true });
    const lookalike = await open('/trustarc-lookalike');
    assert.deepEqual(await answerConsent(lookalike, 'reject'), { requested: 'reject', result: 'none-found' });
    assert.deepEqual(await body(lookalike), { contentShown: false });
  });

  test('through the capturer: the framed wall is answered before capture; without the option it stays', async () => {
    const answered = (await capturer.capture(site.url('/framed'), opts({ consent: 'reject' }), ctx())).html;
    assert.match(answered, /data-consent="rejected"/);
    assert.doesNotMatch(answered, /<div id="sp_message_container_1234"/);
    const untouched = (await capturer.capture(site.url('/framed'), opts(), ctx())).html;
    assert.match(untouched, /<div id="sp_message_container_1234"/);
    assert.doesNotMatch(untouched, /data-consent/);
  });

  test('a TCF CMP that offers postRejectAll is asked through __tcfapi, and reports every purpose refused', async () => {
    const page = await open('/tcf-reject-command');
    const answer = await answerConsent(page, 'reject');
    assert.deepEqual({ result: answer.result, platform: answer.platform, via: answer.via }, { result: 'rejected', platform: 'tcf', via: 'tcf' });
    assert.equal(answer.tcf?.cmpId, 6);
    assert.equal(answer.tcf?.eventStatus, 'useractioncomplete');
    assert.deepEqual(answer.tcf?.purposeConsents, []);
    assert.equal(answer.tcf?.vendorConsents, 0);
    assert.deepEqual(await body(page), { consent: 'rejected', consentVia: 'tcf', contentShown: true });
  });

  test('a TCF CMP with only the standard commands: its framed button is clicked, and the TCF state read after', async () => {
    const rejected = await open('/tcf');
    const answer = await answerConsent(rejected, 'reject');
    assert.deepEqual({ platform: answer.platform, via: answer.via }, { platform: 'sourcepoint', via: 'button' });
    assert.deepEqual({ status: answer.tcf?.eventStatus, purposes: answer.tcf?.purposeConsents, display: answer.tcf?.displayStatus }, { status: 'useractioncomplete', purposes: [], display: 'hidden' });
    assert.deepEqual(await body(rejected), { consent: 'rejected', consentVia: 'button', contentShown: true });

    const accepted = await open('/tcf-reject-command');
    const yes = await answerConsent(accepted, 'accept');
    assert.equal(yes.via, 'button');
    assert.deepEqual(yes.tcf?.purposeConsents, ALL_PURPOSES);
    assert.equal(yes.tcf?.vendorConsents, 3);
  });

  test('a stored choice (tcloaded, no dialog) is read and left alone', async () => {
    const page = await open('/tcf-stored');
    const answer = await answerConsent(page, 'reject');
    assert.equal(answer.via, undefined);
    assert.deepEqual({ result: answer.result, platform: answer.platform }, { result: 'already-answered', platform: 'tcf' });
    assert.deepEqual({ status: answer.tcf?.eventStatus, cmpStatus: answer.tcf?.cmpStatus, purposes: answer.tcf?.purposeConsents }, { status: 'tcloaded', cmpStatus: 'loaded', purposes: ALL_PURPOSES });
    assert.deepEqual(await body(page), { consent: 'accepted', contentShown: true });
  });

  test('a stub whose CMP never loads: its calls stay queued, the wait is bounded and nothing is answered', async () => {
    const page = await open('/tcf-stub-only');
    const answer = await answerConsent(page, 'reject');
    assert.deepEqual(answer, { requested: 'reject', result: 'none-found', tcf: { cmpStatus: 'stub', gdprApplies: true, purposeConsents: [], vendorConsents: 0 } });
    assert.ok(await page.evaluate(() => (window as unknown as { __tcfapi: () => unknown[] }).__tcfapi().length > 0), 'the stub queued the listener');
  });

  test('a bot check\'s frame is never looked into, even with a consent platform\'s button ids in it', async () => {
    const page = await open('/bot-check');
    assert.ok(page.frames().some((f) => f.url().includes('/cdn-cgi/challenge-platform/')), 'the bot check frame loaded');
    assert.deepEqual(await answerConsent(page, 'reject'), { requested: 'reject', result: 'none-found' });
    assert.equal(await page.evaluate(() => document.body.dataset.botCheck), undefined);
  });
});
