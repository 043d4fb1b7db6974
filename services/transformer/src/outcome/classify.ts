// The page outcome classifier (docs/api.md "Page outcome"): pure over PageSignals. A false
// `challenge`, `blocked` or `empty` fails a good page, so a rule needs both what the page
// names (a vendor's header, element or script, a title, a phrase) AND that it is thin:
// vendors inject their sensors into ordinary pages, and articles use the same words. Only
// Cloudflare's `cf-mitigated: challenge` and AWS WAF's `x-amzn-waf-action` decide alone.
import { MAX_EVIDENCE, type PageOutcome, type PageOutcomeVerdict } from '../../../../shared/src/domain/page-outcome/outcome.js';
import { NOSCRIPT_SAMPLE, type MarkerHit, type PageSignals } from './signals.js';

/**
 * A page is thin when its main text is under THIN_MAIN_CHARS and all its text (chrome
 * included) under THIN_WITH_MAIN_CHARS; without a main text (a request for links only), when
 * all its text is under THIN_PAGE_CHARS (lower: the chrome is in it).
 */
const THIN_MAIN_CHARS = 800;
const THIN_WITH_MAIN_CHARS = 5000;
const THIN_PAGE_CHARS = 1500;
/** Text besides a consent platform's container under this: the wall is all there is. */
const CONSENT_REST_CHARS = 400;
/** Text besides the login form under this: the form is the page. */
const LOGIN_REST_CHARS = 700;
/** A paywalled article's teaser: main text under this with a paywall named. */
const PAYWALL_MAIN_CHARS = 1200;
/**
 * No visible text at all (and at most one image) is an empty page. A page of one short line
 * ("none", "OK") is a page: only a shell says nothing, or only "Loading…".
 */
const EMPTY_CHARS = 1;
const LOADING_ONLY = /^(loading|please wait|laden|wird geladen|chargement|cargando|caricamento)\W*$/i;
/**
 * <noscript> text from this length on, besides its sentences about JavaScript, is content
 * served to readers without scripts; an app shell's "this site needs JavaScript, enable it
 * in your settings…" notice is not, however long.
 */
const NOSCRIPT_CONTENT_CHARS = 200;
const ABOUT_JAVASCRIPT = /\bjava ?script\b/i;
/** An error page with a site's full chrome still has little main text. */
const SOFT_404_MAIN_CHARS = 1000;
const SOFT_404_PAGE_CHARS = 4000;

const CHALLENGE_TITLES = [
  /^just a moment\b/i, /^attention required!? \| cloudflare$/i, /^one more step\b/i, /^security check\b/i,
  /^(please )?verify(ing)? (you are|you're|that you are) (a )?human/i, /^human verification$/i, /^are you a robot\??$/i,
  /^captcha\b/i, /^pardon our interruption/i, /^bot (check|verification)/i, /^checking your browser/i,
  /^un instant\b/i, /^einen moment\b/i, /^un momento\b/i, /^ddos-guard$/i,
];
const CHALLENGE_PHRASES = [
  /checking (if the site connection is secure|your browser before accessing)/i,
  /needs to review the security of your connection/i,
  /verify(ing)? (you are|you're|that you are) (a )?human/i,
  /please (complete|solve) the (security check|captcha)/i,
  /enable javascript and cookies to continue/i,
  /press (&|and) hold/i,
  /our systems have detected unusual traffic/i,
  /please confirm (that )?you are not a robot|prove you('| a)re not a robot/i,
  /we need to make sure (that )?you('| a)re not a robot/i,
  /as you were browsing something about your browser made us think you were a bot/i,
  /why (am i seeing|did this happen)\??.*(bot|automated)/i,
  /i am human|i'?m not a robot/i,
];
const BLOCK_TITLES = [
  /^access denied\b/i, /^403\b/i, /^forbidden\b/i, /^error 10(0[0-9]|1[0-9]|20)\b/i, /^request (blocked|rejected|unsuccessful)/i,
  /^(you have been|you are|you've been) blocked/i, /^attention required!? \| cloudflare$/i, /^too many requests\b/i, /^429\b/i,
  /^rate limit/i, /^blocked\b/i, /^(error: )?the request could not be satisfied/i, /^zugriff verweigert/i, /^acc[eè]s refus[eé]/i,
  /^acceso denegado/i, /^web page blocked/i, /^access to this page has been denied/i, /^unauthorized request blocked/i,
];
const BLOCK_PHRASES = [
  /sorry, you have been blocked/i, /you (are|have been|'ve been) blocked/i, /you don'?t have permission to access/i,
  /access (to this (page|resource|site) )?(has been|is) denied/i, /request (was )?blocked/i, /the request could not be satisfied/i,
  /too many requests/i, /rate limit(ed| exceeded)/i, /incapsula incident id/i, /(your|this) ip (address )?(has been|is) (temporarily )?(blocked|banned)/i,
  /blocked by (the )?(website'?s? )?(security|firewall)/i, /reference #\s?\d+\.[0-9a-f]+\.\d+/i, /error (code )?10(0[0-9]|1[0-9]|20)\b/i,
  /ray id: ?[0-9a-f]{12,}/i,
];
const NOT_FOUND_SEGMENTS = [
  /^(error )?404( error| not found| page)?!?$/i, /^(http )?404\b.{0,40}not found/i, /^not found!?$/i, /^page not found!?$/i,
  /^(oops|whoops|sorry)[!.,]* ?(that |this |the )?page (can'?t|cannot|could not|couldn'?t) be found\.?$/i,
  /^(that |this |the )?page (you (were|are) looking for )?(can'?t|cannot|could not|couldn'?t|does not|doesn'?t) (be found|exist)\.?!?$/i,
  /^(we|i) (can'?t|cannot|couldn'?t|could not) find (that|this|the) page\.?!?$/i, /^nothing (was )?found (here|for this page)\.?$/i,
  /^404: this page could not be found\.?$/i, /^page (introuvable|non trouvée)$/i, /^seite (wurde )?nicht gefunden$/i,
  /^fehler 404$/i, /^p[aá]gina no encontrada$/i, /^pagina non trovata$/i, /^pagina niet gevonden$/i, /^(strona nie (została )?znaleziona|nie znaleziono strony)$/i,
  /^erreur 404$/i, /^error 404 - page not found$/i, /^page does not exist$/i, /^this page does not exist\.?$/i,
];
const NOT_FOUND_PHRASES = [
  /the page you (are|were|'re) looking for (might have been removed|(does not|doesn'?t) exist|(can(no|')t|could not|couldn'?t) be found|is not available|was not found|has been moved)/i,
  /(we|i) (can'?t|cannot|couldn'?t|could not) find the page you/i, /the requested (url|page) (was not found|could not be found)/i,
  /this page (could not|can'?t|cannot) be found/i,
];
const PAYWALL_PHRASES = [
  /subscribe (now )?to (continue reading|read (the full|this|more))/i, /(this (article|story|content) is|is) (only )?(available|exclusive)? ?(to|for) (paying )?subscribers/i,
  /to continue reading,? (please )?(subscribe|sign in|log in)/i, /you('ve| have) reached your (limit of )?(free|monthly) (article|stor)/i,
  /already (a|an) (subscriber|member)\?\s*(sign|log) ?in/i, /become a (subscriber|member) to (read|continue)/i,
  /dieser (artikel|beitrag) ist (nur )?f[üu]r abonnent/i, /cet article est r[ée]serv[ée] aux abonn[ée]s/i,
  /unlock (this|the full) (article|story)/i, /start your (free )?trial to (read|continue)/i,
];
const CONSENT_HOSTS = /^(consent\.(google|youtube)\.[a-z.]+|consent\.yahoo\.com|guce\.yahoo\.com|myprivacy\.dpgmedia\.[a-z]+|cmp\.[a-z0-9-]+\.[a-z.]+)$/i;
const CONSENT_TITLES = [/^before you continue/i, /^bevor sie (zu google )?weitergehen/i, /^(we value|your) privacy/i, /^cookie (consent|settings|preferences)$/i, /^privacy (settings|center)$/i];
const LOGIN_TITLES = /^(log ?in|sign ?in|sign in to|log in to|login|anmelden|connexion|iniciar sesi[oó]n|accedi|inloggen|zaloguj)\b/i;
const LOGIN_PATH = /(^|\/)(log-?in|sign-?in|signin|auth(enticate)?|sso|account\/login|users?\/sign_in|session\/new)(\/|$|\.|\?)/i;

/** Rules in order, the first that holds wins: challenge, blocked, consent-wall, login-wall, paywall, soft-404, empty, ok. */
export function classifyPage(s: PageSignals): PageOutcomeVerdict {
  const e = new Evidence(s);
  return (
    challenge(s, e) ?? blocked(s, e) ?? consentWall(s, e) ?? loginWall(s, e) ?? paywall(s, e) ?? soft404(s, e) ?? empty(s, e) ?? e.verdict('ok', [])
  );
}

type Rule = (s: PageSignals, e: Evidence) => PageOutcomeVerdict | undefined;

const challenge: Rule = (s, e) => {
  const mitigated = s.headers['cf-mitigated']?.toLowerCase();
  if (mitigated === 'challenge') return e.verdict('challenge', [`header cf-mitigated: ${mitigated}`, ...e.vendorFacts('challenge', 'captcha')]);
  const waf = s.headers['x-amzn-waf-action']?.toLowerCase();
  if (waf === 'challenge' || waf === 'captcha') return e.verdict('challenge', [`header x-amzn-waf-action: ${waf}`, ...e.vendorFacts('challenge', 'captcha')]);
  if (!e.thin) return undefined;
  const title = firstMatch(CHALLENGE_TITLES, s.title);
  const phrase = firstMatch(CHALLENGE_PHRASES, s.text);
  const vendor = e.markers('challenge').filter((m) => !m.sensor);
  const sensor = e.markers('challenge').filter((m) => m.sensor);
  const captcha = e.markers('captcha');
  // A vendor's interstitial names itself and says what it is doing (or is served as an
  // error); a sensor, which ordinary pages carry too, counts only with the page's own words.
  if ((vendor.length && (title || phrase || s.status >= 400 || captcha.length || s.textLength < 300)) || (sensor.length && (title || phrase))) {
    return e.verdict('challenge', [...e.vendorFacts('challenge', 'captcha'), ...e.said(title, phrase)]);
  }
  // A bare CAPTCHA widget is a challenge only when the page says it is one.
  if ((captcha.length && (title || phrase)) || (title && phrase)) {
    return e.verdict('challenge', [...e.vendorFacts('captcha'), ...e.said(title, phrase)]);
  }
  return undefined;
};

const blocked: Rule = (s, e) => {
  const title = firstMatch(BLOCK_TITLES, s.title) ?? s.headings.map((h) => firstMatch(BLOCK_TITLES, h)).find(Boolean);
  const phrase = e.thin ? firstMatch(BLOCK_PHRASES, s.text) : undefined;
  if (s.status === 429) return e.verdict('blocked', [...e.said(title, phrase), ...e.vendorFacts('block')]);
  if ((s.status === 403 || s.status === 451) && (e.thin || title || phrase)) return e.verdict('blocked', [...e.said(title, phrase), ...e.vendorFacts('block', 'challenge')]);
  if (e.thin && (title || phrase) && (title || e.markers('block').length || s.textLength < 1200)) {
    return e.verdict('blocked', [...e.said(title, phrase), ...e.vendorFacts('block', 'challenge')]);
  }
  return undefined;
};

const consentWall: Rule = (s, e) => {
  const host = hostOf(s.url);
  if (host && CONSENT_HOSTS.test(host)) return e.verdict('consent-wall', [`final URL host ${host}`, ...e.vendorFacts('consent')]);
  const rest = s.textLength - s.consentTextLength;
  const cmp = e.markers('consent');
  const title = firstMatch(CONSENT_TITLES, s.title);
  if ((cmp.length && rest < CONSENT_REST_CHARS && (s.mainTextLength ?? 0) < THIN_MAIN_CHARS) || (title && e.thin && rest < CONSENT_REST_CHARS * 2)) {
    return e.verdict('consent-wall', [...e.vendorFacts('consent'), ...e.said(title), `text besides the consent dialog: ${Math.max(0, rest)} chars`]);
  }
  return undefined;
};

const loginWall: Rule = (s, e) => {
  if (s.status === 401) return e.verdict('login-wall', s.headers['www-authenticate'] ? [`header www-authenticate: ${s.headers['www-authenticate']}`] : []);
  if (s.passwordInputs === 0) return undefined;
  // Text a reader without scripts gets counts as content too (Discourse serves topics in <noscript>).
  const rest = s.textLength + s.noscriptTextLength - s.passwordFormTextLength;
  const title = LOGIN_TITLES.exec(s.title)?.[0];
  const path = LOGIN_PATH.exec(pathOf(s.url))?.[0];
  if (rest < LOGIN_REST_CHARS || ((title || path) && e.thin)) {
    return e.verdict('login-wall', [`${s.passwordInputs} password field(s)`, ...e.said(title), ...(path ? [`final URL path ${pathOf(s.url).slice(0, 80)}`] : []), `text besides the login form: ${Math.max(0, rest)} chars`]);
  }
  return undefined;
};

const paywall: Rule = (s, e) => {
  const main = s.mainTextLength ?? Math.max(0, s.textLength - s.paywallTextLength);
  if (main >= PAYWALL_MAIN_CHARS) return undefined;
  const named = e.markers('paywall');
  const phrase = firstMatch(PAYWALL_PHRASES, s.text);
  if ((named.length && (phrase || s.notFreeMarkup)) || (s.notFreeMarkup && phrase)) {
    return e.verdict('paywall', [...e.vendorFacts('paywall'), ...(s.notFreeMarkup ? ['JSON-LD isAccessibleForFree: false'] : []), ...e.said(undefined, phrase)]);
  }
  return undefined;
};

const soft404: Rule = (s, e) => {
  if (s.status < 200 || s.status >= 300) return undefined;
  // An error page is thin even with a site's full chrome around it; a tutorial about 404s is not.
  if (!e.thin || (s.mainTextLength ?? 0) >= SOFT_404_MAIN_CHARS || s.textLength >= SOFT_404_PAGE_CHARS) return undefined;
  const segment = titleSegments(s.title).find((t) => firstMatch(NOT_FOUND_SEGMENTS, t));
  const heading = s.headings.find((h) => firstMatch(NOT_FOUND_SEGMENTS, h.replace(/[.!]+$/, '')));
  const phrase = firstMatch(NOT_FOUND_PHRASES, s.text);
  const path = /(^|\/)(404|not-?found|error)(\.html?)?(\/|$)/i.test(pathOf(s.url));
  if (segment || heading || phrase) {
    return e.verdict('soft-404', [
      ...(segment ? [`title "${s.title.slice(0, 80)}"`] : []), ...(heading ? [`heading "${heading.slice(0, 80)}"`] : []),
      ...e.said(undefined, phrase), ...(path ? [`final URL path ${pathOf(s.url).slice(0, 80)}`] : []),
    ]);
  }
  return undefined;
};

const empty: Rule = (s, e) => {
  if (s.status < 200 || s.status >= 300) return undefined;
  const words = s.text.replace(/\s+/g, ' ').trim();
  const jsOnly = words.length < 200 && /\b(enable|turn on|requires?) javascript\b/i.test(words) && (s.mainTextLength ?? 0) < 200;
  const loadingOnly = LOADING_ONLY.test(words);
  // A page that serves its content in <noscript> (for readers without scripts) is not a shell.
  const noscript = noscriptContentChars(s);
  if (noscript >= NOSCRIPT_CONTENT_CHARS) return undefined;
  if ((s.textLength < EMPTY_CHARS && s.media < 2) || jsOnly || loadingOnly) {
    return e.verdict('empty', [
      ...(jsOnly || loadingOnly ? [`says only "${words.slice(0, 80)}"`] : []), ...e.vendorFacts('spa-root'), `media elements: ${s.media}`,
      ...(s.noscriptTextLength >= NOSCRIPT_CONTENT_CHARS ? [`<noscript> only asks for JavaScript: "${s.noscriptText.slice(0, 80)}"`] : []),
    ]);
  }
  return undefined;
};

/** <noscript> text besides its sentences about JavaScript (all of it when longer than its sample). */
function noscriptContentChars(s: PageSignals): number {
  if (s.noscriptTextLength < NOSCRIPT_CONTENT_CHARS || s.noscriptTextLength > NOSCRIPT_SAMPLE) return s.noscriptTextLength;
  return s.noscriptText.split(/(?<=[.!?])\s+/).filter((sentence) => !ABOUT_JAVASCRIPT.test(sentence)).join(' ').length;
}

/** Collects the evidence: the facts each verdict lists, then status, headers and text sizes. */
class Evidence {
  readonly thin: boolean;
  constructor(private readonly s: PageSignals) {
    this.thin = s.mainTextLength !== undefined ? s.mainTextLength < THIN_MAIN_CHARS && s.textLength < THIN_WITH_MAIN_CHARS : s.textLength < THIN_PAGE_CHARS;
  }
  markers(...kinds: MarkerHit['kind'][]): MarkerHit[] {
    return this.s.markers.filter((m) => kinds.includes(m.kind));
  }
  vendorFacts(...kinds: MarkerHit['kind'][]): string[] {
    return this.markers(...kinds).slice(0, 4).map((m) => `${m.vendor}: ${m.seen}`);
  }
  said(title?: string, phrase?: string): string[] {
    return [...(title ? [`title "${this.s.title.slice(0, 80)}"`] : []), ...(phrase ? [`text "${phrase.slice(0, 80)}"`] : [])];
  }
  verdict(outcome: PageOutcome, facts: string[]): PageOutcomeVerdict {
    const s = this.s;
    const headers = ['server', 'cf-ray', 'x-datadome', 'x-iinfo', 'x-cdn', 'akamai-grn', 'retry-after']
      .filter((h) => s.headers[h] !== undefined && !facts.some((f) => f.startsWith(`header ${h}:`)))
      .map((h) => `header ${h}: ${s.headers[h]}`);
    const cookies = s.headers['set-cookie'] ? [`set-cookie names: ${s.headers['set-cookie']}`] : [];
    const general = [`status ${s.status}`, ...(outcome === 'ok' ? [] : [...headers, ...cookies]), `text ${s.textLength} chars${s.mainTextLength !== undefined ? `, main ${s.mainTextLength}` : ''}`];
    const evidence = [...new Set([...facts, ...general])].slice(0, MAX_EVIDENCE).map((f) => f.slice(0, 200));
    return { outcome, evidence };
  }
}

function firstMatch(patterns: readonly RegExp[], text: string): string | undefined {
  for (const re of patterns) {
    const m = re.exec(text);
    if (m) return m[0];
  }
  return undefined;
}

/** "Page not found | Example" -> ["Page not found", "Example"], and the whole title. */
function titleSegments(title: string): string[] {
  const t = title.trim();
  return [t, ...t.split(/\s+[|\-–—:·»]\s+|\s*[|–—·»]\s*/).map((x) => x.trim().replace(/[.!]+$/, '')).filter(Boolean)];
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}
