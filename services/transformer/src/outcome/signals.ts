// What the page outcome classifier reads from a page: one walk over the untouched document
// (before any clean-up removes the scripts and widgets that name their vendor), plus the
// response's status and headers. The classifier itself (classify.ts) is pure over this.
import { classOf, collapsedLength } from '../../../../packages/extract/src/index.js';
import { CLASS_MARKERS, ID_MARKERS, ID_PREFIX_MARKERS, INLINE_SCRIPT_MARKERS, URL_MARKERS, type Marker, type MarkerKind } from './markers.js';

export interface MarkerHit extends Marker {
  /** What was seen, for the evidence: "element #challenge-form", "script challenges.cloudflare.com/turnstile/v0/api.js". */
  seen: string;
}

export interface PageSignals {
  status: number;
  /** Lower-cased names (shared/src/domain/page-outcome pickOutcomeHeaders); {} when not recorded. */
  headers: Record<string, string>;
  /** The final URL after redirects. */
  url: string;
  title: string;
  /** Text of the first few <h1> (and, when there is none, <h2>) elements. */
  headings: string[];
  /** Visible text, whitespace collapsed: its length and its first TEXT_SAMPLE characters. */
  textLength: number;
  text: string;
  /** Length of the extracted main content's text, when the transform made one (onlyMainContent). */
  mainTextLength?: number;
  markers: MarkerHit[];
  /** Visible text inside consent-platform containers and inside paywall containers. */
  consentTextLength: number;
  paywallTextLength: number;
  /** <input type=password> count, and the visible text of the forms holding one. */
  passwordInputs: number;
  passwordFormTextLength: number;
  /**
   * Text inside <noscript>: what the page gives readers without scripts (a Discourse forum
   * serves its whole topic there). Not in textLength: a browser running scripts hides it.
   */
  noscriptTextLength: number;
  /** Its first NOSCRIPT_SAMPLE characters, whitespace collapsed: whether it is content or only asks for JavaScript. */
  noscriptText: string;
  /** Images, videos, canvases, pictures and embedded objects: a page of media is not empty. */
  media: number;
  /** JSON-LD says the content is not accessible for free (Google's paywalled-content markup). */
  notFreeMarkup: boolean;
}

export const TEXT_SAMPLE = 6000;
export const NOSCRIPT_SAMPLE = 2000;
const SKIPPED = new Set(['script', 'style', 'template', 'head', 'svg', 'math']);
/** Inline styles that hide an element (clean.ts drops the same before extraction). */
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;
const MEDIA = new Set(['img', 'video', 'canvas', 'picture', 'object', 'embed']);
const MAX_INLINE_SCRIPT = 20_000;

export interface ResponseFacts {
  status: number;
  headers?: Record<string, string>;
  url: string;
  title: string;
}

/** The signals of a parsed (untouched) document. */
export function readSignals(document: Document, response: ResponseFacts, html: string): PageSignals {
  const state: WalkState = {
    text: [], sampled: 0, textLength: 0, markers: new Map(), consentText: 0, paywallText: 0,
    passwordInputs: 0, passwordFormText: 0, media: 0, h1: [], h2: [], noscriptText: 0, noscriptSample: [], noscriptSampled: 0, classMarkers: new Map(),
  };
  const root = document.documentElement as Element | null;
  const body = document.body as Element | null;
  const standaloneSvg = body !== null && body.children.length === 1 && body.firstElementChild?.localName === 'svg' && !/<html[\s>]/i.test(html);
  if (root && (root.localName !== 'html' || standaloneSvg)) {
    // Not an HTML page (an SVG file the browser showed as it is): its text is its content.
    const text = plain((standaloneSvg ? body : root)!.textContent ?? '');
    state.textLength = text.length;
    state.text.push(text.slice(0, TEXT_SAMPLE));
  } else if (root) {
    walk(root, state, { consent: false, paywall: false, passwordForm: false, hidden: false, styleHidden: false, noscript: false });
  }
  return {
    status: response.status,
    headers: response.headers ?? {},
    url: response.url,
    title: plain(response.title),
    headings: (state.h1.length ? state.h1 : state.h2).slice(0, 3),
    textLength: state.textLength,
    text: plain(state.text.join(' ').slice(0, TEXT_SAMPLE)),
    markers: [...state.markers.values()],
    consentTextLength: state.consentText,
    paywallTextLength: state.paywallText,
    passwordInputs: state.passwordInputs,
    passwordFormTextLength: state.passwordFormText,
    noscriptTextLength: state.noscriptText,
    noscriptText: plain(state.noscriptSample.join(' ')).slice(0, NOSCRIPT_SAMPLE),
    media: state.media,
    notFreeMarkup: /"isAccessibleForFree"\s*:\s*"?false"?/i.test(html),
  };
}

interface WalkState {
  text: string[];
  sampled: number;
  textLength: number;
  markers: Map<string, MarkerHit>;
  consentText: number;
  paywallText: number;
  passwordInputs: number;
  passwordFormText: number;
  media: number;
  h1: string[];
  h2: string[];
  noscriptText: number;
  noscriptSample: string[];
  noscriptSampled: number;
  /** Per distinct class attribute, its tokens that are markers. */
  classMarkers: Map<string, string[]>;
}

interface Context {
  consent: boolean;
  paywall: boolean;
  passwordForm: boolean;
  hidden: boolean;
  styleHidden: boolean;
  noscript: boolean;
}

function walk(el: Element, state: WalkState, ctx: Context): void {
  const tag = el.localName;
  const found = markersOf(el, tag, state);
  if (SKIPPED.has(tag)) return;
  const hidden = ctx.hidden || (el.hasAttribute('hidden') && !isStreamedSegment(el, tag));
  // A login form hidden by an inline style is kept for scripts (Discourse's), not shown. Text
  // under such a style still counts: pages hide their body until their scripts run.
  const style = ctx.styleHidden ? null : el.getAttribute('style');
  const styleHidden = ctx.styleHidden || (style !== null && HIDDEN_STYLE.test(style));
  const seen = !hidden && !ctx.noscript;
  if (seen && !styleHidden && tag === 'input' && (el.getAttribute('type') ?? '').toLowerCase() === 'password') state.passwordInputs++;
  if (seen && MEDIA.has(tag)) state.media++;
  const consent = ctx.consent || (found !== undefined && found.has('consent'));
  const paywall = ctx.paywall || (found !== undefined && found.has('paywall'));
  const passwordForm = ctx.passwordForm || (tag === 'form' && !styleHidden && el.querySelector('input[type=password]') !== null);
  const noscript = ctx.noscript || tag === 'noscript';
  // Most elements change nothing: their children share the parent's context (no object per element).
  const inner: Context = consent === ctx.consent && paywall === ctx.paywall && passwordForm === ctx.passwordForm && hidden === ctx.hidden && styleHidden === ctx.styleHidden && noscript === ctx.noscript
    ? ctx
    : { consent, paywall, passwordForm, hidden, styleHidden, noscript };
  if (tag === 'h1' || tag === 'h2') {
    const list = tag === 'h1' ? state.h1 : state.h2;
    if (list.length < 3) list.push(plain(el.textContent ?? '').slice(0, 200));
  }
  for (let child = el.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1) walk(child as Element, state, inner);
    else if (child.nodeType === 3 && !inner.hidden) addText((child as Text).data, state, inner);
  }
}

/**
 * React's streamed server rendering (Next.js app router and any React 18+ stream) sends a
 * Suspense boundary's content as `<div hidden id="S:0">`, and the page's own inline script
 * moves it into place as soon as it arrives: it is the page's content, hidden only until
 * that script runs (a browser runs it before capture; an HTTP-engine page never does).
 */
const STREAMED_SEGMENT_ID = /^S:\d+$/;
function isStreamedSegment(el: Element, tag: string): boolean {
  return tag === 'div' && STREAMED_SEGMENT_ID.test(el.getAttribute('id') ?? '');
}

function addText(data: string, state: WalkState, ctx: Context): void {
  // Counted without building the collapsed string, which only the samples need.
  const length = collapsedLength(data);
  if (!length) return;
  const n = length + 1;
  if (ctx.noscript) {
    state.noscriptText += n;
    if (state.noscriptSampled < NOSCRIPT_SAMPLE) {
      state.noscriptSample.push(collapse(data));
      state.noscriptSampled += n;
    }
    return;
  }
  state.textLength += n;
  if (ctx.consent) state.consentText += n;
  if (ctx.paywall) state.paywallText += n;
  if (ctx.passwordForm) state.passwordFormText += n;
  if (state.sampled < TEXT_SAMPLE) {
    state.text.push(collapse(data));
    state.sampled += n;
  }
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Records the element's markers; returns their kinds (undefined when it has none, as most elements). */
function markersOf(el: Element, tag: string, state: WalkState): Set<MarkerKind> | undefined {
  let kinds: Set<MarkerKind> | undefined;
  const id = el.getAttribute('id');
  if (id) {
    const byId = Object.hasOwn(ID_MARKERS, id) ? ID_MARKERS[id] : undefined;
    if (byId) kinds = addMarker(state, kinds, byId, `element #${id}`);
    for (const [prefix, marker] of ID_PREFIX_MARKERS) if (id.startsWith(prefix)) kinds = addMarker(state, kinds, marker, `element #${prefix}…`);
  }
  const cls = classOf(el);
  if (cls) {
    // A page repeats a few class attributes on most of its elements: each is split once.
    let tokens = state.classMarkers.get(cls);
    if (!tokens) {
      tokens = cls.split(/\s+/).filter((token) => token && Object.hasOwn(CLASS_MARKERS, token));
      state.classMarkers.set(cls, tokens);
    }
    for (const token of tokens) kinds = addMarker(state, kinds, CLASS_MARKERS[token]!, `element .${token}`);
  }
  if (tag === 'script' || tag === 'iframe') {
    const src = el.getAttribute('src');
    if (src) {
      const where = src.replace(/^[a-z]+:\/\//i, '').replace(/^\/\//, '').split(/[?#]/)[0]!.slice(0, 100);
      // Imperva's script is on every page it protects; its iframe is the challenge.
      const sensor = tag === 'script' && /_Incapsula_Resource/.test(src);
      for (const [re, marker] of URL_MARKERS) if (re.test(src)) kinds = addMarker(state, kinds, sensor ? { ...marker, sensor: true } : marker, `${tag} ${where}`);
    } else if (tag === 'script') {
      const code = (el.textContent ?? '').slice(0, MAX_INLINE_SCRIPT);
      for (const [re, marker] of INLINE_SCRIPT_MARKERS) {
        const m = re.exec(code);
        if (m) kinds = addMarker(state, kinds, marker, `inline script ${m[0].slice(0, 40)}`);
      }
    }
  }
  return kinds;
}

function addMarker(state: WalkState, kinds: Set<MarkerKind> | undefined, marker: Marker, seen: string): Set<MarkerKind> {
  const out = kinds ?? new Set<MarkerKind>();
  out.add(marker.kind);
  if (!state.markers.has(seen) && state.markers.size < 40) state.markers.set(seen, { ...marker, seen });
  return out;
}

/** Whitespace collapsed and typographic apostrophes made plain, so "can’t" reads as "can't". */
function plain(text: string): string {
  return text.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/\s+/g, ' ').trim();
}
