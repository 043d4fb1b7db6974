// Consent dialogs with a settings layer, for the consent tests, written the way the vendors'
// SDKs draw them (docs/api.md "Page outcome", *Consent walls*): Usercentrics' Web CMP v3
// (`<aside id="usercentrics-cmp-ui">` with an open shadow root, buttons `#deny`, `#accept`,
// `#more`, `#save` carrying `data-action-type`), Usercentrics' Browser UI v2
// (`#usercentrics-root`, `data-testid` buttons, `uc-more-button` to the second layer), and
// OneTrust and Cookiebot banners whose first layer offers only "accept" and "settings".
// Each script does what the SDK does: a first-layer click answers; "settings" draws the
// second layer (after a moment, as the SDKs fetch their texts); "save" stores the purposes
// that are ticked; every answer removes the dialog and shows the page, and the page's
// `data-consent` says what was stored (`rejected`, `accepted`, or `saved:<purposes>`).

const ARTICLE = '<main id="content" hidden><h1>The article</h1><p>Behind the wall.</p></main>';
/** How long a second layer takes to draw once asked for (the SDKs load its texts first). */
const LAYER_DRAW_MS = 150;

/** Stores the answer the way the test reads it, and takes the wall down. */
const ANSWER = `function answer(choice, host) {
  host.remove();
  document.getElementById('content').hidden = false;
  document.body.dataset.consent = choice;
}
function saved(toggles) {
  var on = toggles.filter(function (t) { return t.checked || t.getAttribute('aria-checked') === 'true'; }).map(function (t) { return t.name || t.dataset.category; });
  return on.length ? 'saved:' + on.join(',') : 'saved:essential';
}`;

export interface LayerOptions {
  /** The first layer has a deny button (most set-ups); without it, only accept and settings. */
  denyOnFirstLayer: boolean;
  /** The second layer has its own deny-all button (else only save and accept). */
  denyOnSecondLayer?: boolean;
  /** Optional purposes the site ticks in advance (a set-up some sites use). */
  preTicked?: string[];
  /** "More" as the `a#uc-more-link` link some set-ups show in the message, not a button. */
  moreAsLink?: boolean;
}

/** Usercentrics Web CMP v3: the aside's shadow root holds the first layer, then the second. */
export function usercentricsV3Page(o: LayerOptions): string {
  const tick = (name: string) => (o.preTicked?.includes(name) ? ' checked' : '');
  const first = `<div class="cmp-wrapper cmp first-layer" role="dialog" aria-modal="true" aria-labelledby="uc-title">
<h2 id="uc-title">Privacy Settings</h2><p id="uc-message">We use cookies and similar technologies to run this site and, with your consent, for statistics and marketing.${o.moreAsLink ? ' <a href="#" id="uc-more-link" data-action-type="more" role="button">More Information</a>' : ''}</p>
<div class="cmp-buttons">${o.denyOnFirstLayer ? '<button id="deny" class="deny uc-deny-button" data-action-type="deny">Deny</button>' : ''}
${o.moreAsLink ? '' : '<button id="more" class="more uc-more-button" data-action-type="more">Settings</button>'}
<button id="accept" class="accept uc-accept-button" data-action-type="accept">Accept All</button></div></div>`;
  const second = `<div class="cmp-wrapper cmp second-layer" role="dialog" aria-modal="true"><h2>Privacy Settings</h2>
<ul class="categories"><li><label>Essential <input type="checkbox" name="essential" checked disabled></label></li>
<li><label>Functional <input type="checkbox" name="functional"${tick('functional')}></label></li>
<li><label>Marketing <input type="checkbox" name="marketing"${tick('marketing')}></label></li></ul>
<div class="cmp-buttons">${o.denyOnSecondLayer ? '<button id="deny" class="deny uc-deny-button" data-action-type="deny">Deny All</button>' : ''}
<button id="save" class="save uc-save-button" data-action-type="save">Save Settings</button>
<button id="accept" class="accept uc-accept-button" data-action-type="accept">Accept All</button></div></div>`;
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}<aside id="usercentrics-cmp-ui" class="uc-embedding"></aside>
<script>
  ${ANSWER}
  var host = document.getElementById('usercentrics-cmp-ui');
  var root = host.attachShadow({ mode: 'open' });
  function wire() {
    var deny = root.querySelector('#deny'), accept = root.querySelector('#accept'), more = root.querySelector('#more, #uc-more-link'), save = root.querySelector('#save');
    if (deny) deny.addEventListener('click', function () { answer('rejected', host); });
    accept.addEventListener('click', function () { answer('accepted', host); });
    if (more) more.addEventListener('click', function (e) { e.preventDefault(); setTimeout(function () { root.innerHTML = ${JSON.stringify(second)}; wire(); }, ${LAYER_DRAW_MS}); });
    if (save) save.addEventListener('click', function () { answer(saved(Array.from(root.querySelectorAll('input[type=checkbox]:not([disabled])'))), host); });
  }
  root.innerHTML = ${JSON.stringify(first)};
  wire();
</script></body></html>`;
}

/** Usercentrics Browser UI v2 whose first layer has only "Accept all" and "More": deny-all is on the second layer. */
export function usercentricsV2SettingsPage(): string {
  const first = `<div data-testid="uc-default-banner" role="dialog"><p>Wir verwenden Cookies.</p>
<button data-testid="uc-more-button" type="button">Einstellungen</button><button data-testid="uc-accept-all-button" type="button">Alle akzeptieren</button></div>`;
  const second = `<div data-testid="uc-default-settings" id="uc-center-container" role="dialog"><h2>Privatsphäre-Einstellungen</h2>
<button role="switch" aria-checked="true" data-category="functional">Funktional</button><button role="switch" aria-checked="false" data-category="marketing">Marketing</button>
<button data-testid="uc-deny-all-button" type="button">Alle ablehnen</button><button data-testid="uc-save-button" type="button">Speichern</button>
<button data-testid="uc-accept-all-button" type="button">Alle akzeptieren</button></div>`;
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}<div id="usercentrics-root"></div>
<script>
  ${ANSWER}
  var host = document.getElementById('usercentrics-root');
  var root = host.attachShadow({ mode: 'open' });
  root.innerHTML = ${JSON.stringify(first)};
  root.querySelector('[data-testid="uc-accept-all-button"]').addEventListener('click', function () { answer('accepted', host); });
  root.querySelector('[data-testid="uc-more-button"]').addEventListener('click', function () {
    setTimeout(function () {
      root.innerHTML = ${JSON.stringify(second)};
      root.querySelectorAll('[role=switch]').forEach(function (s) { s.addEventListener('click', function () { s.setAttribute('aria-checked', String(s.getAttribute('aria-checked') !== 'true')); }); });
      root.querySelector('[data-testid="uc-deny-all-button"]').addEventListener('click', function () { answer('rejected', host); });
      root.querySelector('[data-testid="uc-save-button"]').addEventListener('click', function () { answer(saved(Array.from(root.querySelectorAll('[role=switch]'))), host); });
      root.querySelector('[data-testid="uc-accept-all-button"]').addEventListener('click', function () { answer('accepted', host); });
    }, ${LAYER_DRAW_MS});
  });
</script></body></html>`;
}

/**
 * OneTrust with "Accept All Cookies" and "Cookie Settings" only: the preference center
 * (`#onetrust-pc-sdk`, in the DOM from the start, hidden) has category switches (some sites
 * tick Functional in advance) and "Confirm My Choices"; `refuseAll` adds its "Reject All".
 */
export function oneTrustSettingsPage(o: { refuseAll: boolean; preTicked?: string[] }): string {
  const sw = (id: string, label: string) => `<div class="ot-accordion-layout ot-cat-item"><h4>${label}</h4><div class="ot-tgl">
<input type="checkbox" name="ot-group-id-${id}" id="ot-group-id-${id}" class="category-switch-handler" data-optanongroupid="${id}"${o.preTicked?.includes(id) ? ' checked' : ''}>
<label class="ot-switch" for="ot-group-id-${id}"><span class="ot-switch-nob"></span></label></div></div>`;
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="onetrust-consent-sdk">
<div class="onetrust-pc-dark-filter"></div>
<div id="onetrust-banner-sdk" class="otFlat" role="region" aria-label="Cookie banner"><p id="onetrust-policy-text">We use cookies to improve your experience.</p>
<div id="onetrust-button-group"><button id="onetrust-pc-btn-handler">Cookie Settings</button><button id="onetrust-accept-btn-handler">Accept All Cookies</button></div></div>
<div id="onetrust-pc-sdk" class="otPcCenter" role="dialog" style="display:none"><h2 id="ot-pc-title">Privacy Preference Center</h2>
<div class="ot-cat-item"><h4>Strictly Necessary Cookies</h4><div class="ot-always-active">Always Active</div></div>
${sw('C0002', 'Performance Cookies')}${sw('C0003', 'Functional Cookies')}${sw('C0004', 'Targeting Cookies')}
<div class="ot-pc-footer"><div class="ot-btn-container">${o.refuseAll ? '<button class="ot-pc-refuse-all-handler">Reject All</button>' : ''}
<button class="save-preference-btn-handler onetrust-close-btn-handler">Confirm My Choices</button></div></div></div></div>
<script>
  ${ANSWER}
  var sdk = document.getElementById('onetrust-consent-sdk');
  document.getElementById('onetrust-accept-btn-handler').addEventListener('click', function () { answer('accepted', sdk); });
  document.getElementById('onetrust-pc-btn-handler').addEventListener('click', function () {
    setTimeout(function () { document.getElementById('onetrust-pc-sdk').style.display = 'block'; }, ${LAYER_DRAW_MS});
  });
  var refuse = document.querySelector('.ot-pc-refuse-all-handler');
  if (refuse) refuse.addEventListener('click', function () { answer('rejected', sdk); });
  document.querySelector('.save-preference-btn-handler').addEventListener('click', function () {
    answer(saved(Array.from(document.querySelectorAll('#onetrust-pc-sdk input.category-switch-handler'))), sdk);
  });
</script></body></html>`;
}

/** Cookiebot's Swift dialog set up without "Deny": "Customize" opens the details, where "Allow selection" stores the ticked categories. */
export function cookiebotSettingsPage(o: { preTicked?: string[] }): string {
  const box = (name: string) => `<label><input type="checkbox" id="CybotCookiebotDialogBodyLevelButton${name}" name="${name.toLowerCase()}" class="CybotCookiebotDialogBodyLevelButton"${o.preTicked?.includes(name) ? ' checked' : ''}> ${name}</label>`;
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="CybotCookiebotDialog" name="CybotCookiebotDialog" role="dialog" aria-modal="true" class="CybotCookiebotDialogActive">
<div id="CybotCookiebotDialogBody"><h2 id="CybotCookiebotDialogBodyContentTitle">This website uses cookies</h2></div>
<div id="CybotCookiebotDialogTabContentDetails" style="display:none">
<label><input type="checkbox" id="CybotCookiebotDialogBodyLevelButtonNecessary" checked disabled> Necessary</label>${box('Preferences')}${box('Statistics')}${box('Marketing')}</div>
<div id="CybotCookiebotDialogFooter">
<button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowallSelection" style="display:none">Allow selection</button>
<button id="CybotCookiebotDialogBodyLevelButtonCustomize">Customize</button>
<button id="CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll">Allow all</button></div></div>
<script>
  ${ANSWER}
  var dialog = document.getElementById('CybotCookiebotDialog');
  var selection = document.getElementById('CybotCookiebotDialogBodyLevelButtonLevelOptinAllowallSelection');
  document.getElementById('CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll').addEventListener('click', function () { answer('accepted', dialog); });
  document.getElementById('CybotCookiebotDialogBodyLevelButtonCustomize').addEventListener('click', function () {
    setTimeout(function () {
      document.getElementById('CybotCookiebotDialogTabContentDetails').style.display = 'block';
      selection.style.display = 'inline-block';
      document.getElementById('CybotCookiebotDialogBodyLevelButtonCustomize').style.display = 'none';
    }, ${LAYER_DRAW_MS});
  });
  selection.addEventListener('click', function () { answer(saved(Array.from(dialog.querySelectorAll('#CybotCookiebotDialogTabContentDetails input:not([disabled])'))), dialog); });
</script></body></html>`;
}

/** A OneTrust banner set up with "Accept" alone: nothing to reject with. */
export const ONETRUST_ACCEPT_ONLY = `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk"><p>By using this site you agree to our use of cookies.</p>
<button id="onetrust-accept-btn-handler">Accept</button></div></div>
<script>document.getElementById('onetrust-accept-btn-handler').addEventListener('click', function () { document.getElementById('onetrust-consent-sdk').remove(); content.hidden = false; document.body.dataset.consent = 'accepted'; });</script></body></html>`;

/** A page with no consent dialog at all. */
export const NO_DIALOG = `<!doctype html><html><head><title>Open</title></head><body><main id="content"><h1>The article</h1><p>Nothing in the way.</p></main></body></html>`;

/**
 * Quantcast Choice with "More options" and "Agree" only: "More options" redraws the dialog
 * as its purposes screen (switches, some on by default for legitimate interest, and
 * "Save & exit"). A Didomi notice whose reject is the "Continue without agreeing" link.
 */
export function quantcastSettingsPage(): string {
  const summary = `<div class="qc-cmp2-summary-section"><h2>We value your privacy</h2><p>We and our partners store and/or access information on a device.</p></div>
<div class="qc-cmp2-footer"><div class="qc-cmp2-summary-buttons"><button mode="secondary" size="large" class=" css-47sehv"><span>MORE OPTIONS</span></button><button mode="primary" size="large" class=" css-47sehv"><span>AGREE</span></button></div></div>`;
  const sw = (purpose: number, on: boolean) => `<div class="qc-cmp2-toggle-switch"><button role="switch" aria-checked="${on}" data-category="purpose-${purpose}" class="qc-cmp2-toggle"><span></span></button></div>`;
  const purposes = `<div class="qc-cmp2-consent-info"><h2>Purposes</h2>
<div>Store and/or access information on a device ${sw(1, false)}</div><div>Use limited data to select advertising ${sw(2, true)}</div><div>Measure content performance ${sw(8, true)}</div></div>
<div class="qc-cmp2-footer"><div class="qc-cmp2-buttons-desktop"><button mode="primary" size="large" class=" css-1hy2vtq"><span>SAVE &amp; EXIT</span></button></div></div>`;
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="qc-cmp2-container" data-nosnippet=""><div class="qc-cmp2-main" id="qc-cmp2-main"><div id="qc-cmp2-ui" role="dialog" aria-label="qc-cmp2-ui" aria-modal="true"></div></div></div>
<script>
  ${ANSWER}
  var box = document.getElementById('qc-cmp2-container');
  var ui = document.getElementById('qc-cmp2-ui');
  ui.innerHTML = ${JSON.stringify(summary)};
  var buttons = ui.querySelectorAll('.qc-cmp2-summary-buttons > button');
  buttons[1].addEventListener('click', function () { answer('accepted', box); });
  buttons[0].addEventListener('click', function () {
    setTimeout(function () {
      ui.innerHTML = ${JSON.stringify(purposes)};
      ui.querySelectorAll('[role=switch]').forEach(function (s) { s.addEventListener('click', function () { s.setAttribute('aria-checked', String(s.getAttribute('aria-checked') !== 'true')); }); });
      ui.querySelector('.qc-cmp2-buttons-desktop > button').addEventListener('click', function () { answer(saved(Array.from(ui.querySelectorAll('[role=switch]'))), box); });
    }, ${LAYER_DRAW_MS});
  });
</script></body></html>`;
}

export const DIDOMI_CONTINUE_WITHOUT_AGREEING = `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="didomi-host" data-nosnippet="true"><div class="didomi-popup-container"><div id="didomi-notice" class="didomi-regular-notice didomi-popup-notice" role="dialog">
<a href="javascript:void(0)" class="didomi-continue-without-agreeing">Continuer sans accepter &rarr;</a>
<p id="didomi-notice-title">Nous respectons votre vie privée</p>
<button id="didomi-notice-learn-more-button" class="didomi-components-button">Personnaliser</button>
<button id="didomi-notice-agree-button" class="didomi-components-button">Accepter &amp; Fermer</button></div></div></div>
<script>
  ${ANSWER}
  var host = document.getElementById('didomi-host');
  document.querySelector('.didomi-continue-without-agreeing').addEventListener('click', function () { answer('rejected', host); });
  document.getElementById('didomi-notice-agree-button').addEventListener('click', function () { answer('accepted', host); });
</script></body></html>`;
