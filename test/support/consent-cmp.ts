// Consent platforms for the consent tests, written the way real ones work (docs/api.md "Page
// outcome"): a page whose dialog is a cross-origin iframe on a second loopback site
// (Sourcepoint's message frame: `?message_id=` in its URL, `sp_choice_type_11/13` buttons,
// the choice posted to the parent), and an IAB TCF v2.2 CMP: the standard stub inline in the
// head (queues calls, answers `ping` with cmpStatus `stub`, adds the `__tcfapiLocator` frame
// and answers `__tcfapiCall` messages), then the CMP script loaded async, which takes over
// `__tcfapi` (ping, addEventListener, removeEventListener, getTCData and, optionally,
// Sourcepoint's `postRejectAll`), runs the queued calls and shows its dialog.

const ARTICLE = '<main id="content" hidden><h1>The article</h1><p>Behind the wall.</p></main>';

/** The message frame, served by the second site: posts the choice to its parent. */
export const MESSAGE_FRAME = `<!doctype html><html><head><title>Privacy message</title></head><body>
<div class="message-container"><p>We and our partners store and access information on your device.</p>
<button class="message-component message-button no-children sp_choice_type_12" title="Options">Options</button>
<button class="message-component message-button no-children sp_choice_type_13" title="Reject all">Reject all</button>
<button class="message-component message-button no-children sp_choice_type_11" title="Accept all">Accept all</button></div>
<script>
  document.querySelectorAll('button').forEach((b) => b.addEventListener('click', () => {
    const choice = b.classList.contains('sp_choice_type_11') ? 'accepted' : b.classList.contains('sp_choice_type_13') ? 'rejected' : null;
    if (choice) parent.postMessage({ spChoice: choice }, '*');
  }));
</script></body></html>`;

function messageFrame(frameOrigin: string): string {
  return `${frameOrigin}/index.html?message_id=1234&consentUUID=5e6f&requestUUID=7a8b`;
}

/** OneTrust's banner drawn in a frame of its own (a set-up some sites use): its ids, in the frame. */
export const ONETRUST_FRAME = `<!doctype html><html><body><div id="onetrust-consent-sdk"><div id="onetrust-banner-sdk">
<p>We value your privacy</p><button id="onetrust-reject-all-handler">Reject All</button><button id="onetrust-accept-btn-handler">Accept All Cookies</button></div></div>
<script>
  const post = (choice) => () => parent.postMessage({ otChoice: choice }, '*');
  document.getElementById('onetrust-reject-all-handler').addEventListener('click', post('rejected'));
  document.getElementById('onetrust-accept-btn-handler').addEventListener('click', post('accepted'));
</script></body></html>`;

export function oneTrustFramedPage(frameOrigin: string): string {
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<iframe id="ot-frame" src="${frameOrigin}/onetrust-frame" title="Cookie banner" style="position:fixed;inset:0;width:100%;height:100%"></iframe>
<script>
  addEventListener('message', (e) => {
    if (e.origin !== ${JSON.stringify(frameOrigin)} || !e.data || !e.data.otChoice) return;
    document.getElementById('ot-frame').remove();
    content.hidden = false;
    document.body.dataset.consent = e.data.otChoice;
  });
</script></body></html>`;
}

/** TrustArc's preference frame (consent-pref.trustarc.com): plain class names, so looked for only there. */
export const TRUSTARC_FRAME = `<!doctype html><html><body><div id="defaultpreferencemanager"><div class="mainContent" aria-hidden="false">
<h2>Your choices regarding cookies on this site</h2><a class="call" role="button" tabindex="0">Agree and Proceed</a>
<a class="rejectAll" role="button" tabindex="0">Reject all</a><a class="shp" role="button" tabindex="0">More information</a></div></div>
<script>
  const post = (choice) => () => parent.postMessage({ trustarcChoice: choice }, '*');
  document.querySelector('.rejectAll').addEventListener('click', post('rejected'));
  document.querySelector('.call').addEventListener('click', post('accepted'));
</script></body></html>`;

export const TRUSTARC_FRAME_URL = 'https://consent-pref.trustarc.com/?type=example&site=example.com&action=notice&country=de&locale=en&behavior=expressed&layout=default_eu';

/** A page with TrustArc's overlay and frame (from `frameUrl`: TrustArc's, or any other origin). */
export function trustArcPage(frameUrl: string): string {
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="truste_overlay"><div id="truste_box_overlay" class="truste_box_overlay"><iframe class="truste_popframe" src="${frameUrl}" title="TrustArc Cookie Consent Manager"></iframe></div></div>
<script>
  addEventListener('message', (e) => {
    if (!e.data || !e.data.trustarcChoice) return;
    document.getElementById('truste_overlay').remove();
    content.hidden = false;
    document.body.dataset.consent = e.data.trustarcChoice;
  });
</script></body></html>`;
}

/** A page whose dialog is only the cross-origin message frame (no TCF API). */
export function framedWallPage(frameOrigin: string): string {
  return `<!doctype html><html><head><title>Walled</title></head><body>${ARTICLE}
<div id="sp_message_container_1234" style="position:fixed;inset:0"><iframe id="sp_message_iframe_1234" title="SP Consent Message" src="${messageFrame(frameOrigin)}" style="width:100%;height:100%"></iframe></div>
<script>
  addEventListener('message', (e) => {
    if (e.origin !== ${JSON.stringify(frameOrigin)} || !e.data || !e.data.spChoice) return;
    document.getElementById('sp_message_container_1234').remove();
    content.hidden = false;
    document.body.dataset.consent = e.data.spChoice;
  });
</script></body></html>`;
}

/** The TCF stub, as IAB's reference stub behaves (inline in the head, before any CMP code). */
const TCF_STUB = `<script>
(function () {
  var queue = [];
  function addLocator() {
    if (window.frames.__tcfapiLocator) return;
    if (!document.body) return setTimeout(addLocator, 5);
    var f = document.createElement('iframe');
    f.style.display = 'none';
    f.name = '__tcfapiLocator';
    document.body.appendChild(f);
  }
  addLocator();
  window.__tcfapi = function (command, version, callback, parameter) {
    if (!arguments.length) return queue;
    if (command === 'ping') { if (typeof callback === 'function') callback({ gdprApplies: true, cmpLoaded: false, cmpStatus: 'stub' }, true); return; }
    queue.push([command, version, callback, parameter]);
  };
  window.addEventListener('message', function (event) {
    var call = event.data && event.data.__tcfapiCall;
    if (!call) return;
    window.__tcfapi(call.command, call.version, function (returnValue, success) {
      event.source.postMessage({ __tcfapiReturn: { returnValue: returnValue, success: success, callId: call.callId } }, '*');
    }, call.parameter);
  });
})();
</script>`;

export interface TcfCmpConfig {
  /** Offer Sourcepoint's `postRejectAll` command. */
  rejectCommand: boolean;
  /** A choice already stored (the CMP reports `tcloaded` and shows no dialog). */
  stored?: 'rejected' | 'accepted';
}

/** The CMP script (served async, like a CMP's SDK), configured by `window.__cmpConfig`. */
export const TCF_CMP_SCRIPT = `(function () {
  var cfg = window.__cmpConfig;
  var queued = typeof window.__tcfapi === 'function' ? window.__tcfapi() || [] : [];
  var listeners = new Map();
  var nextListener = 1;
  var state = { eventStatus: undefined, displayStatus: 'hidden', purposes: {}, vendors: {} };
  function tcData(listenerId) {
    return {
      tcString: state.eventStatus ? 'CQBcDEAQBcDEAAGABCENBLFgAP_AAEPAAAAAAAA' : '', tcfPolicyVersion: 5, cmpId: 6, cmpVersion: 1,
      gdprApplies: true, eventStatus: state.eventStatus, cmpStatus: 'loaded', listenerId: listenerId,
      isServiceSpecific: true, useNonStandardStacks: false, publisherCC: 'DE', purposeOneTreatment: false,
      purpose: { consents: Object.assign({}, state.purposes), legitimateInterests: {} },
      vendor: { consents: Object.assign({}, state.vendors), legitimateInterests: {} },
      specialFeatureOptins: {}, publisher: { consents: {}, legitimateInterests: {}, customPurpose: { consents: {}, legitimateInterests: {} }, restrictions: {} },
    };
  }
  function notify() { listeners.forEach(function (cb, id) { cb(tcData(id), true); }); }
  function record(choice) {
    for (var p = 1; p <= 11; p++) state.purposes[p] = choice === 'accepted';
    [1, 2, 755].forEach(function (v) { state.vendors[v] = choice === 'accepted'; });
  }
  function reveal(choice, via) {
    var box = document.querySelector('[id^="sp_message_container_"]');
    if (box) box.remove();
    document.getElementById('content').hidden = false;
    document.body.dataset.consent = choice;
    if (via) document.body.dataset.consentVia = via;
  }
  function choose(choice, via) {
    if (state.eventStatus === 'useractioncomplete') return;
    record(choice);
    state.eventStatus = 'useractioncomplete';
    state.displayStatus = 'hidden';
    reveal(choice, via);
    notify();
  }
  var commands = {
    ping: function (cb) { cb({ gdprApplies: true, cmpLoaded: true, cmpStatus: 'loaded', displayStatus: state.displayStatus, apiVersion: '2.2', cmpVersion: 1, cmpId: 6, gvlVersion: 120, tcfPolicyVersion: 5 }, true); },
    addEventListener: function (cb) { var id = nextListener++; listeners.set(id, cb); cb(tcData(id), true); },
    removeEventListener: function (cb, id) { cb(listeners.delete(id)); },
    getTCData: function (cb) { cb(tcData(undefined), true); },
  };
  if (cfg.rejectCommand) commands.postRejectAll = function (cb) { choose('rejected', 'tcf'); cb(tcData(undefined), true); };
  window.__tcfapi = function (command, version, cb, parameter) {
    if (typeof cb !== 'function') return;
    var run = commands[command];
    if (!run) return cb(null, false);
    run(cb, parameter);
  };
  addEventListener('message', function (e) {
    if (e.origin === cfg.frameOrigin && e.data && e.data.spChoice) choose(e.data.spChoice, 'button');
  });
  if (cfg.stored) {
    record(cfg.stored);
    state.eventStatus = 'tcloaded';
    reveal(cfg.stored);
  } else {
    var box = document.createElement('div');
    box.id = 'sp_message_container_1234';
    box.style.cssText = 'position:fixed;inset:0';
    var frame = document.createElement('iframe');
    frame.id = 'sp_message_iframe_1234';
    frame.title = 'SP Consent Message';
    frame.src = cfg.messageUrl;
    frame.style.cssText = 'width:100%;height:100%';
    frame.addEventListener('load', function () { state.eventStatus = 'cmpuishown'; notify(); });
    box.appendChild(frame);
    document.body.appendChild(box);
    state.displayStatus = 'visible';
  }
  queued.forEach(function (args) { window.__tcfapi.apply(null, args); });
})();`;

/**
 * A page with the TCF stub, a CMP script (at `/cmp.js` unless told) and its dialog in the
 * cross-origin frame. A script path the site does not serve leaves only the stub.
 */
export function tcfWallPage(frameOrigin: string, config: TcfCmpConfig, cmpScript = '/cmp.js'): string {
  const cfg = { ...config, frameOrigin, messageUrl: messageFrame(frameOrigin) };
  return `<!doctype html><html><head><title>Walled</title>${TCF_STUB}
<script>window.__cmpConfig = ${JSON.stringify(cfg)};</script><script src="${cmpScript}" async></script></head><body>${ARTICLE}</body></html>`;
}

/**
 * A bot check whose frame (from a bot-check path) happens to carry a consent platform's
 * button ids: the option must not look into it.
 */
export const BOT_CHECK_FRAME = `<!doctype html><html><body><p>Verify you are human</p>
<button id="onetrust-reject-all-handler">Continue</button><button id="onetrust-accept-btn-handler">Continue</button>
<script>document.querySelectorAll('button').forEach((b) => b.addEventListener('click', () => parent.postMessage({ botCheckClicked: true }, '*')));</script></body></html>`;

export function botCheckPage(frameOrigin: string): string {
  return `<!doctype html><html><head><title>Just a moment...</title></head><body><h1>Checking your browser</h1>
<iframe src="${frameOrigin}/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv0/0/abc123/light/normal" title="Widget containing a Cloudflare security challenge"></iframe>
<script>addEventListener('message', (e) => { if (e.data && e.data.botCheckClicked) document.body.dataset.botCheck = 'clicked'; });</script></body></html>`;
}
