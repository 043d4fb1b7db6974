// The `consent` scrape option (docs/api.md "Page outcome"): before capture, click the
// reject (default choice) or accept button of a common consent platform's dialog, so the
// page behind a cookie wall is what gets captured. Only the platforms' own documented
// buttons are clicked; nothing else on the page is touched, and a bot check is never
// answered (that is not a consent dialog).
import type { Page } from 'playwright-core';

export type ConsentChoice = 'reject' | 'accept';

/**
 * Per platform, the button for each choice (ids and test ids their SDKs render: OneTrust,
 * Cookiebot, Didomi, Quantcast Choice, TrustArc, Usercentrics (in its shadow root)).
 */
export const CONSENT_BUTTONS: ReadonlyArray<{ platform: string; reject: string; accept: string; shadowHost?: string }> = [
  { platform: 'onetrust', reject: '#onetrust-reject-all-handler', accept: '#onetrust-accept-btn-handler' },
  { platform: 'cookiebot', reject: '#CybotCookiebotDialogBodyButtonDecline', accept: '#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll' },
  { platform: 'didomi', reject: '#didomi-notice-disagree-button', accept: '#didomi-notice-agree-button' },
  { platform: 'quantcast', reject: '#qc-cmp2-ui button[mode="secondary"]:nth-of-type(2)', accept: '#qc-cmp2-ui button[mode="primary"]' },
  { platform: 'trustarc', reject: '#truste-consent-required', accept: '#truste-consent-button' },
  { platform: 'usercentrics', reject: '[data-testid="uc-deny-all-button"]', accept: '[data-testid="uc-accept-all-button"]', shadowHost: '#usercentrics-root' },
];

/** How long the dialog is given to go away after the click (its SDK saves the choice, then removes it). */
const SETTLE_AFTER_CLICK_MS = 500;

/**
 * Clicks the chosen button of the first platform whose dialog is on the page; returns the
 * platform, or undefined when none was found. Never throws: a page without a known dialog,
 * or one that changed while we looked, is captured as it is.
 */
export async function answerConsent(page: Page, choice: ConsentChoice): Promise<string | undefined> {
  try {
    const platform = await page.evaluate(({ buttons, choice }) => {
      for (const b of buttons) {
        const root: ParentNode | null | undefined = b.shadowHost ? document.querySelector(b.shadowHost)?.shadowRoot : document;
        const button = root?.querySelector<HTMLElement>(choice === 'reject' ? b.reject : b.accept);
        if (button) {
          button.click();
          return b.platform;
        }
      }
      return undefined;
    }, { buttons: CONSENT_BUTTONS, choice });
    if (platform) await page.waitForTimeout(SETTLE_AFTER_CLICK_MS);
    return platform;
  } catch {
    return undefined;
  }
}
