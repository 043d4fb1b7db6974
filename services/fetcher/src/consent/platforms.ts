// The consent platforms the `consent` option answers (docs/api.md "Page outcome"): the
// buttons their SDKs render for "reject all" and "accept all", in the top document, in a
// shadow root, or inside the iframe some platforms draw their dialog in, and, for dialogs
// whose first layer offers only "accept" and "settings", the settings layer's "reject all"
// or "save" buttons. Only these buttons are ever clicked: a generic "find a button that
// says Accept" would click newsletter sign-ups and bot checks alike.
import type { ConsentChoice } from '../../../../shared/src/domain/page-outcome/consent.js';

export type { ConsentChoice };

export interface ConsentButtons {
  platform: string;
  /** CSS selectors, tried in order; the first visible match is clicked. */
  reject: string[];
  accept: string[];
  /**
   * The second layer, walked only to reject when the first has no reject button: `open`
   * shows it; there `reject` ("reject all") is clicked, else the `optional` toggles that
   * are on are switched off and `save` is clicked, which stores the minimum.
   */
  settings?: { open: string[]; reject: string[]; save: string[]; optional: string };
  /** The buttons live in this element's (open) shadow root. */
  shadowHost?: string;
}

/** Purpose toggles inside a platform's own container (a shadow root, or a scoped selector). */
const SWITCHES_ON = 'input[type="checkbox"]:checked:not([disabled]), [role="switch"][aria-checked="true"]:not([disabled]):not([aria-disabled="true"])';

/**
 * Platforms whose dialog is in the page's own document (ids and test ids their SDKs render).
 * The same ids are looked for inside every iframe too: OneTrust, Didomi and Cookiebot can be
 * set up to draw the dialog in a frame of their own.
 */
export const PAGE_PLATFORMS: readonly ConsentButtons[] = [
  {
    platform: 'onetrust', reject: ['#onetrust-reject-all-handler'], accept: ['#onetrust-accept-btn-handler'],
    // "Cookie Settings" opens the preference center: "Reject All", or "Confirm My Choices".
    settings: {
      open: ['#onetrust-pc-btn-handler'], reject: ['#onetrust-pc-sdk .ot-pc-refuse-all-handler'], save: ['#onetrust-pc-sdk .save-preference-btn-handler'],
      optional: '#onetrust-pc-sdk input.category-switch-handler:checked:not([disabled])',
    },
  },
  {
    platform: 'cookiebot', reject: ['#CybotCookiebotDialogBodyButtonDecline'], accept: ['#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll'],
    // "Customize" opens the details; "Allow selection" with the categories unticked keeps the necessary ones only.
    settings: {
      open: ['#CybotCookiebotDialogBodyLevelButtonCustomize'], reject: [], save: ['#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowallSelection'],
      optional: '#CybotCookiebotDialog input[type="checkbox"][id^="CybotCookiebotDialogBodyLevelButton"]:checked:not([disabled])',
    },
  },
  // "Disagree", or the "Continue without agreeing" link some set-ups show instead.
  { platform: 'didomi', reject: ['#didomi-notice-disagree-button', '#didomi-notice .didomi-continue-without-agreeing'], accept: ['#didomi-notice-agree-button'] },
  {
    platform: 'quantcast', reject: ['#qc-cmp2-ui #disagree-btn', '#qc-cmp2-ui .qc-cmp2-summary-buttons > button[mode="secondary"]:nth-of-type(2)'], accept: ['#qc-cmp2-ui .qc-cmp2-summary-buttons > button[mode="primary"]', '#qc-cmp2-ui button[mode="primary"]'],
    // "More options" alone beside "Agree": the purposes screen, its switches off, "Save & exit".
    settings: {
      open: ['#qc-cmp2-ui .qc-cmp2-summary-buttons > button[mode="secondary"]:nth-of-type(1)'], reject: [], save: ['#qc-cmp2-ui .qc-cmp2-buttons-desktop > button[mode="primary"]'],
      optional: '#qc-cmp2-ui .qc-cmp2-toggle-switch > button[aria-checked="true"]',
    },
  },
  { platform: 'trustarc', reject: ['#truste-consent-required'], accept: ['#truste-consent-button'] },
  // Usercentrics' Browser UI v2: `#usercentrics-root`; its second layer keeps the deny-all test id.
  {
    platform: 'usercentrics', reject: ['[data-testid="uc-deny-all-button"]'], accept: ['[data-testid="uc-accept-all-button"]'], shadowHost: '#usercentrics-root',
    settings: { open: ['[data-testid="uc-more-button"]', '[data-testid="uc-customize-button"]'], reject: [], save: ['[data-testid="uc-save-button"]'], optional: SWITCHES_ON },
  },
  // Usercentrics' Web CMP v3: `<aside id="usercentrics-cmp-ui">`, buttons named by id and data-action-type.
  {
    platform: 'usercentrics', reject: ['button#deny', 'button.uc-deny-button', 'button[data-action-type="deny"]'], accept: ['button#accept', 'button.uc-accept-button', 'button[data-action-type="accept"]'], shadowHost: '#usercentrics-cmp-ui',
    // "More" is a button on some set-ups and a link (`a#uc-more-link`) on others.
    settings: { open: ['#more', '#uc-more-link', '.uc-more-button', '[data-action-type="more"]'], reject: [], save: ['button#save', 'button.uc-save-button', 'button[data-action-type="save"]'], optional: SWITCHES_ON },
  },
  { platform: 'google-funding-choices', reject: ['.fc-consent-root .fc-cta-do-not-consent'], accept: ['.fc-consent-root .fc-cta-consent'] },
  { platform: 'consentmanager', reject: ['#cmpbox .cmpboxbtnno'], accept: ['#cmpbox .cmpboxbtnyes'] },
];

/**
 * Platforms that draw their dialog only inside an iframe of their own, recognised by the
 * frame's URL (their class names are too plain to look for in any frame). Sourcepoint's
 * message frame carries `message_id` in its query (and may be served from the site's own
 * CNAME); TrustArc's preference frame comes from consent-pref.trustarc.com.
 */
export const FRAME_PLATFORMS: ReadonlyArray<ConsentButtons & { frameUrl: RegExp }> = [
  {
    platform: 'sourcepoint',
    frameUrl: /[?&]message_id=\d+/,
    reject: ['button.sp_choice_type_13', 'button.sp_choice_type_REJECT_ALL'],
    accept: ['button.sp_choice_type_11', 'button.sp_choice_type_ACCEPT_ALL'],
  },
  { platform: 'trustarc', frameUrl: /^https:\/\/consent-pref\.trustarc\.com\//, reject: ['.rejectAll', '.required'], accept: ['.call'] },
];

/**
 * Frames of bot checks and CAPTCHAs: never looked into. The option removes consent dialogs;
 * it never answers a bot check.
 */
export const BOT_CHECK_FRAMES = /challenges\.cloudflare\.com|hcaptcha\.com|\/recaptcha\/|recaptcha\.net|captcha-delivery\.com|px-cdn\.net|px-cloud\.net|awswaf\.com|\/cdn-cgi\/challenge-platform\//i;
