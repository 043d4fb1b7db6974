// Names that bot managers, CAPTCHA widgets, consent platforms and paywall vendors put in
// the pages they serve: element ids and classes, script and iframe URLs, inline script
// globals. Each is taken from the vendor's public documentation or from the markup its
// widget injects (the fixture corpus in test/fixtures/page-outcome has one page each).
// A marker alone never decides: classify.ts weighs it with the status, the title and how
// much text the page has besides it, so a news page that embeds a login box or a
// reCAPTCHA'd comment form stays `ok`.

/**
 * `challenge`: the page *is* a bot check (seen only on interstitials).
 * `captcha`: a CAPTCHA widget, which ordinary forms carry too (decides only on a page with little else).
 * `block`: a vendor's block page element. `consent`: a consent platform's container.
 * `paywall`: a paywall vendor's container or script. `spa-root`: the mount point of a client-rendered app.
 */
export type MarkerKind = 'challenge' | 'captcha' | 'block' | 'consent' | 'paywall' | 'spa-root';

export interface Marker {
  vendor: string;
  kind: MarkerKind;
  /**
   * A bot manager's sensor, which it puts into ordinary pages too (PerimeterX's _pxAppId,
   * Imperva's _Incapsula_Resource script): names the vendor, never shows a challenge alone.
   */
  sensor?: true;
}

/** Element ids (exact) and their vendor. */
export const ID_MARKERS: Record<string, Marker> = {
  // Cloudflare's managed challenge / JS challenge interstitial ("Just a moment...").
  'challenge-form': { vendor: 'cloudflare', kind: 'challenge' },
  'challenge-running': { vendor: 'cloudflare', kind: 'challenge' },
  'challenge-stage': { vendor: 'cloudflare', kind: 'challenge' },
  'challenge-body-text': { vendor: 'cloudflare', kind: 'challenge' },
  'challenge-error-text': { vendor: 'cloudflare', kind: 'challenge' },
  'cf-challenge-running': { vendor: 'cloudflare', kind: 'challenge' },
  'cf-please-wait': { vendor: 'cloudflare', kind: 'challenge' },
  'cf-error-details': { vendor: 'cloudflare', kind: 'block' },
  // PerimeterX / HUMAN's "Press & Hold" block page.
  'px-captcha': { vendor: 'perimeterx', kind: 'challenge' },
  'px-captcha-wrapper': { vendor: 'perimeterx', kind: 'challenge' },
  // Akamai Bot Manager's crypto challenge / CAPTCHA interstitial.
  'sec-if-cpt-container': { vendor: 'akamai', kind: 'challenge' },
  'sec-cpt-if': { vendor: 'akamai', kind: 'challenge' },
  'sec-overlay': { vendor: 'akamai', kind: 'challenge' },
  // AWS WAF's CAPTCHA action page.
  'captcha-container': { vendor: 'aws-waf', kind: 'captcha' },
  // Consent platforms.
  'onetrust-consent-sdk': { vendor: 'onetrust', kind: 'consent' },
  'onetrust-banner-sdk': { vendor: 'onetrust', kind: 'consent' },
  'CybotCookiebotDialog': { vendor: 'cookiebot', kind: 'consent' },
  'didomi-host': { vendor: 'didomi', kind: 'consent' },
  'didomi-popup': { vendor: 'didomi', kind: 'consent' },
  'didomi-notice': { vendor: 'didomi', kind: 'consent' },
  'qc-cmp2-container': { vendor: 'quantcast', kind: 'consent' },
  'qc-cmp2-ui': { vendor: 'quantcast', kind: 'consent' },
  'truste-consent-track': { vendor: 'trustarc', kind: 'consent' },
  'consent_blackbar': { vendor: 'trustarc', kind: 'consent' },
  'truste_overlay': { vendor: 'trustarc', kind: 'consent' },
  'usercentrics-root': { vendor: 'usercentrics', kind: 'consent' },
  'usercentrics-cmp-ui': { vendor: 'usercentrics', kind: 'consent' },
  'uc-banner': { vendor: 'usercentrics', kind: 'consent' },
  'cmpbox': { vendor: 'consentmanager', kind: 'consent' },
  // Paywalls.
  'paywall': { vendor: 'paywall', kind: 'paywall' },
  'piano-paywall': { vendor: 'piano', kind: 'paywall' },
  'regwall': { vendor: 'paywall', kind: 'paywall' },
  // Client-rendered apps' mount points.
  'root': { vendor: 'spa', kind: 'spa-root' },
  'app': { vendor: 'spa', kind: 'spa-root' },
  '__next': { vendor: 'next.js', kind: 'spa-root' },
  '__nuxt': { vendor: 'nuxt', kind: 'spa-root' },
  'svelte': { vendor: 'svelte', kind: 'spa-root' },
  'ember-app': { vendor: 'ember', kind: 'spa-root' },
  // Discourse's splash, shown until its Ember app has loaded the topic.
  'd-splash': { vendor: 'discourse', kind: 'spa-root' },
};

/** Id prefixes (ids carrying a generated suffix). */
export const ID_PREFIX_MARKERS: Array<[string, Marker]> = [
  ['cf-chl-', { vendor: 'cloudflare', kind: 'challenge' }],
  ['sp_message_container_', { vendor: 'sourcepoint', kind: 'consent' }],
];

/** Class tokens (exact). */
export const CLASS_MARKERS: Record<string, Marker> = {
  'cf-browser-verification': { vendor: 'cloudflare', kind: 'challenge' },
  'cf-im-under-attack': { vendor: 'cloudflare', kind: 'challenge' },
  'cf-turnstile': { vendor: 'turnstile', kind: 'captcha' },
  'g-recaptcha': { vendor: 'recaptcha', kind: 'captcha' },
  'h-captcha': { vendor: 'hcaptcha', kind: 'captcha' },
  'amzn-captcha-modal': { vendor: 'aws-waf', kind: 'captcha' },
  'tp-modal': { vendor: 'piano', kind: 'paywall' },
  'tp-backdrop': { vendor: 'piano', kind: 'paywall' },
  'paywall': { vendor: 'paywall', kind: 'paywall' },
  'pay-wall': { vendor: 'paywall', kind: 'paywall' },
  'regwall': { vendor: 'paywall', kind: 'paywall' },
  'subscription-wall': { vendor: 'paywall', kind: 'paywall' },
  'meteredContent': { vendor: 'paywall', kind: 'paywall' },
  'qc-cmp2-container': { vendor: 'quantcast', kind: 'consent' },
  'truste_box_overlay': { vendor: 'trustarc', kind: 'consent' },
  'fc-consent-root': { vendor: 'google-funding-choices', kind: 'consent' },
  'cmp-root': { vendor: 'cmp', kind: 'consent' },
};

/** Script and iframe URLs (matched against host + path). */
export const URL_MARKERS: Array<[RegExp, Marker]> = [
  // Not /scripts/jsd/: Cloudflare's JavaScript detections, injected into ordinary pages.
  [/\/cdn-cgi\/challenge-platform\/(?!scripts\/jsd\/)/, { vendor: 'cloudflare', kind: 'challenge' }],
  [/challenges\.cloudflare\.com\/turnstile\//, { vendor: 'turnstile', kind: 'captcha' }],
  [/(?:captcha-delivery\.com|geo\.captcha-delivery|ct\.captcha-delivery)/, { vendor: 'datadome', kind: 'challenge' }],
  [/captcha\.px-cdn?\.net|\/captcha\/captcha\.js|px-cloud\.net\/.*captcha/, { vendor: 'perimeterx', kind: 'challenge' }],
  [/\/_sec\/cp_challenge\//, { vendor: 'akamai', kind: 'challenge' }],
  [/\/_Incapsula_Resource/i, { vendor: 'imperva', kind: 'challenge' }],
  [/\.awswaf\.com\/|\/challenge\.compact\.js|\/captcha\.js\?.*awswaf/, { vendor: 'aws-waf', kind: 'challenge' }],
  [/(?:www\.)?(?:google|recaptcha)\.(?:com|net)\/recaptcha\//, { vendor: 'recaptcha', kind: 'captcha' }],
  [/(?:js\.)?hcaptcha\.com\/1\/api\.js|newassets\.hcaptcha\.com/, { vendor: 'hcaptcha', kind: 'captcha' }],
  [/(?:cdn\.)?tinypass\.com\/|experience\.piano\.io\/|\.piano\.io\/xbuilder/, { vendor: 'piano', kind: 'paywall' }],
  [/\/sorry\/index\?|google\.com\/sorry\//, { vendor: 'google', kind: 'challenge' }],
];

/** Inline scripts' globals (first 20 kB of each inline script). */
export const INLINE_SCRIPT_MARKERS: Array<[RegExp, Marker]> = [
  [/window\._cf_chl_opt|_cf_chl_ctx|__cf_chl_/, { vendor: 'cloudflare', kind: 'challenge' }],
  [/_pxCaptcha|pxCaptchaSrc|_pxBlockedUrl/, { vendor: 'perimeterx', kind: 'challenge' }],
  [/window\._pxAppId|_pxUuid|_pxHostUrl/, { vendor: 'perimeterx', kind: 'challenge', sensor: true }],
  [/var dd=\{['"]?rt['"]?:|captcha-delivery\.com/, { vendor: 'datadome', kind: 'challenge' }],
  [/AwsWafIntegration|window\.gokuProps|awsWafCookieDomainList/, { vendor: 'aws-waf', kind: 'challenge' }],
  [/bm-verify|_sec\/verify\?provider=|sec-if-cpt/, { vendor: 'akamai', kind: 'challenge' }],
  [/_Incapsula_Resource/, { vendor: 'imperva', kind: 'challenge', sensor: true }],
];
