// Signs in served HTML that the page is built by JavaScript in the browser, so its HTTP
// HTML is not the page a user sees. A page showing any of them is rendered, whatever its
// host's profile says (host-profile.ts). Cheap by design: one htmlparser2 parse (cheerio),
// no script is run. False positives only cost a render; the host-level verification
// catches what these miss.
import * as cheerio from 'cheerio';

/** Ids single-page-app frameworks mount into (React, Next.js, Vue, Nuxt, Gatsby, Svelte...). */
const APP_ROOT_IDS = ['root', '__next', 'app', '__nuxt', '___gatsby', 'svelte', 'main-app'];
/** Below this much visible body text, a page that carries scripts is taken for an app shell. */
export const MIN_BODY_TEXT_CHARS = 200;
const NOSCRIPT_ASKS_FOR_JS = /(enable|turn on|activate|requires?|need)\s+(your\s+)?javascript|javascript\s+(is\s+)?(required|disabled|needed|must be enabled)/i;

export function csrMarkers(html: string): string[] {
  const $ = cheerio.load(html);
  const markers: string[] = [];
  if ($('meta[http-equiv]').filter((_, el) => ($(el).attr('http-equiv') ?? '').toLowerCase() === 'refresh').length > 0) {
    markers.push('meta refresh');
  }
  if ($('noscript').toArray().some((el) => NOSCRIPT_ASKS_FOR_JS.test($(el).text()))) markers.push('<noscript> asks for JavaScript');

  const scripts = $('script').toArray().filter((el) => isExecutable($(el).attr('type')));
  const inline = scripts.map((el) => $(el).text()).join('\n');
  for (const id of APP_ROOT_IDS) {
    const root = $(`[id="${id}"]`).first();
    if (root.length && isEmpty(root)) markers.push(`empty app root #${id}`);
  }
  // An empty element an inline script looks up by id: the script fills it.
  $('[id]').each((_, el) => {
    const id = $(el).attr('id') ?? '';
    if (!id || APP_ROOT_IDS.includes(id) || !isEmpty($(el))) return;
    if (referencesId(inline, id)) markers.push(`script fills empty #${id}`);
  });

  const body = $('body').clone();
  body.find('script, style, noscript, template').remove();
  const textChars = body.text().replace(/\s+/g, ' ').trim().length;
  const scriptChars = inline.length;
  const externalScripts = scripts.filter((el) => $(el).attr('src')).length;
  if (textChars < MIN_BODY_TEXT_CHARS && (scriptChars > 1000 || externalScripts > 0)) {
    markers.push(`little body text (${textChars} chars) beside scripts`);
  }
  return markers;
}

function isExecutable(type: string | undefined): boolean {
  if (!type) return true;
  const t = type.trim().toLowerCase();
  return t === '' || t === 'module' || t.includes('javascript') || t.includes('ecmascript');
}

type Selection = ReturnType<cheerio.CheerioAPI>;

function isEmpty(el: Selection): boolean {
  return el.children().length === 0 && el.text().trim() === '';
}

function referencesId(script: string, id: string): boolean {
  if (!script.includes(id)) return false;
  const quoted = id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`getElementById\\(\\s*['"\`]${quoted}['"\`]|querySelector(All)?\\(\\s*['"\`]#${quoted}['"\`]|\\$\\(\\s*['"\`]#${quoted}['"\`]`).test(script);
}
