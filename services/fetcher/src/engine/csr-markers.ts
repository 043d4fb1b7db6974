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
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);

interface Open {
  name: string;
  id?: string;
  /** Whether anything (an element or non-blank text) appeared inside. */
  filled: boolean;
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

  const parser = new Parser({
    onopentag(name, attrs) {
      markFilled(stack);
      if (name === 'meta' && (attrs['http-equiv'] ?? '').toLowerCase() === 'refresh') metaRefresh = true;
      if (name === 'script') {
        scriptExecutable = isExecutable(attrs.type);
        if (scriptExecutable && attrs.src) externalScripts++;
      }
      if (NOT_TEXT.has(name)) skipDepth++;
      if (name === 'noscript') noscriptDepth++;
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
      if (text.trim() !== '') markFilled(stack);
      // Whitespace-collapsed length, as the text of the body would read; only whether it
      // reaches MIN_BODY_TEXT_CHARS matters, so counting stops past it (a page's text is most of its bytes).
      if (bodyTextChars > MIN_BODY_TEXT_CHARS) return;
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
    markers.push(`little body text (${textChars} chars) beside scripts`);
  }
  return markers;
}

/**
 * Everything open now has content. An element marked filled had every element around it
 * marked with it, so the walk down from the innermost stops at the first one already filled.
 */
function markFilled(stack: Open[]): void {
  for (let i = stack.length - 1; i >= 0 && !stack[i]!.filled; i--) stack[i]!.filled = true;
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
