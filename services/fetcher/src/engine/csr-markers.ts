// Signs in served HTML that the page is built by JavaScript in the browser, so its HTTP
// HTML may not be the page a user sees. They are hints, not verdicts: a page showing one is
// verified (rendered too and compared) until its host has learnt that marker kind, then
// rendered or served over HTTP as the kind verified (host-profile.ts). Cheap by design: one
// streaming htmlparser2 pass, no DOM is built and no script is run (its cost:
// docs/benchmarks.md "Third session"). The host-level verification catches what these miss.
import { Parser } from 'htmlparser2';

/** Ids single-page-app frameworks mount into (React, Next.js, Vue, Nuxt, Gatsby, Svelte...). */
const APP_ROOT_IDS = new Set(['root', '__next', 'app', '__nuxt', '___gatsby', 'svelte', 'main-app']);
/** Below this much visible body text, a page that carries scripts is taken for an app shell. */
export const MIN_BODY_TEXT_CHARS = 200;
const NOSCRIPT_ASKS_FOR_JS = /(enable|turn on|activate|requires?|need)\s+(your\s+)?javascript|javascript\s+(is\s+)?(required|disabled|needed|must be enabled)/i;
/** Elements whose text is not page text. */
const NOT_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
/**
 * Elements that are never "an empty element a script fills" however empty they look: a
 * <script> holds data or code, not page text (a data island such as Next.js's
 * `<script id="__NEXT_DATA__" type="application/json">`, Nuxt's __NUXT_DATA__, Remix's and
 * Astro's, JSON-LD or an import map, read by getElementById to hydrate a page the server
 * already rendered); <style> and <template> are not shown either.
 */
const NEVER_FILLED = new Set(['script', 'style', 'template']);
/**
 * Page chrome: a heading and links in here are what a client-rendered shell serves too (a
 * site name, a menu), so they say nothing about whether the page's own content was served.
 */
const CHROME = new Set(['header', 'nav', 'footer', 'aside']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/**
 * Links with text (outside the chrome) that, beside a heading with text, make a page with
 * little text a short page its server rendered (an index, a list of articles), not an app
 * shell: the two get kinds of their own, so that a shell that changed when rendered does
 * not leave the fleet distrusting every short served page, and the reverse.
 */
export const SERVED_LINKS_MIN = 3;
/** The detail of a little-text marker whose page served a heading and links: a kind of its own (host-profile.ts markerKind keeps it). */
export const SERVED_STRUCTURE = 'with a served heading and links';
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

interface Open {
  name: string;
  id?: string;
  /** Whether anything (an element or non-blank text) appeared inside. */
  filled: boolean;
  /** Whether non-blank page text outside the chrome appeared inside (counted only while the page's text is little). */
  texted?: boolean;
}

export function csrMarkers(html: string): string[] {
  const stack: Open[] = [];
  const emptyIds: string[] = [];
  let metaRefresh = false;
  let noscriptText = '';
  let inlineScripts = '';
  let externalScripts = 0;
  let bodyTextChars = 0;
  let lastWasSpace = true;
  let skipDepth = 0;
  let noscriptDepth = 0;
  let scriptExecutable = false;
  let chromeDepth = 0;
  let servedHeadings = 0;
  let servedLinks = 0;

  const parser = new Parser({
    onopentag(name, attrs) {
      mark(stack, 'filled');
      if (name === 'meta' && (attrs['http-equiv'] ?? '').toLowerCase() === 'refresh') metaRefresh = true;
      if (name === 'script') {
        scriptExecutable = isExecutable(attrs.type);
        if (scriptExecutable && attrs.src) externalScripts++;
      }
      if (NOT_TEXT.has(name)) skipDepth++;
      if (name === 'noscript') noscriptDepth++;
      if (CHROME.has(name)) chromeDepth++;
      if (!VOID.has(name)) stack.push({ name, ...(attrs.id ? { id: attrs.id } : {}), filled: false });
    },
    ontext(text) {
      const top = stack.at(-1);
      if (top?.name === 'script') {
        if (scriptExecutable) inlineScripts += text;
        return;
      }
      if (noscriptDepth > 0) noscriptText += text;
      if (skipDepth > 0) return;
      const blank = text.trim() === '';
      if (!blank) mark(stack, 'filled');
      // Whitespace-collapsed length, as the text of the body would read; only whether it
      // reaches MIN_BODY_TEXT_CHARS matters, so counting stops past it (a page's text is most of its bytes).
      if (bodyTextChars > MIN_BODY_TEXT_CHARS) return;
      if (!blank && chromeDepth === 0) mark(stack, 'texted');
      for (const ch of text) {
        const space = ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || ch === '\f';
        if (space) {
          if (!lastWasSpace) bodyTextChars++;
          lastWasSpace = true;
        } else {
          bodyTextChars++;
          lastWasSpace = false;
          if (bodyTextChars > MIN_BODY_TEXT_CHARS) break;
        }
      }
    },
    onclosetag(name) {
      if (VOID.has(name)) return;
      const index = stack.findLastIndex((o) => o.name === name);
      if (index === -1) return;
      for (const open of stack.splice(index)) {
        if (NOT_TEXT.has(open.name)) skipDepth = Math.max(0, skipDepth - 1);
        if (open.name === 'noscript') noscriptDepth--;
        if (CHROME.has(open.name)) chromeDepth = Math.max(0, chromeDepth - 1);
        if (open.texted && open.name === 'a') servedLinks++;
        else if (open.texted && HEADINGS.has(open.name)) servedHeadings++;
        if (open.id && !open.filled && !NEVER_FILLED.has(open.name)) emptyIds.push(open.id);
      }
    },
  }, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
  parser.end(html);

  const markers: string[] = [];
  if (metaRefresh) markers.push('meta refresh');
  if (NOSCRIPT_ASKS_FOR_JS.test(noscriptText)) markers.push('<noscript> asks for JavaScript');
  for (const id of emptyIds) {
    if (APP_ROOT_IDS.has(id)) markers.push(`empty app root #${id}`);
    // An empty element an inline script looks up by id: the script fills it.
    else if (referencesId(inlineScripts, id)) markers.push(`script fills empty #${id}`);
  }
  const textChars = Math.max(0, bodyTextChars - (lastWasSpace && bodyTextChars > 0 ? 1 : 0));
  if (textChars < MIN_BODY_TEXT_CHARS && (inlineScripts.length > 1000 || externalScripts > 0)) {
    const served = servedHeadings > 0 && servedLinks >= SERVED_LINKS_MIN;
    markers.push(`little body text (${textChars} chars) beside scripts${served ? `, ${SERVED_STRUCTURE}` : ''}`);
  }
  return markers;
}

/**
 * Everything open now has content (`filled`: an element or non-blank text; `texted`:
 * non-blank page text). An element marked had every element around it marked with it, so
 * the walk down from the innermost stops at the first one already marked.
 */
function mark(stack: Open[], flag: 'filled' | 'texted'): void {
  for (let i = stack.length - 1; i >= 0 && !stack[i]![flag]; i--) stack[i]![flag] = true;
}

function isExecutable(type: string | undefined): boolean {
  if (!type) return true;
  const t = type.trim().toLowerCase();
  return t === '' || t === 'module' || t.includes('javascript') || t.includes('ecmascript');
}

function referencesId(script: string, id: string): boolean {
  if (!script.includes(id)) return false;
  const quoted = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`getElementById\\(\\s*['"\`]${quoted}['"\`]|querySelector(All)?\\(\\s*['"\`]#${quoted}['"\`]|\\$\\(\\s*['"\`]#${quoted}['"\`]`).test(script);
}
