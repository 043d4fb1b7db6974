// Where the WCXB dev set's "must exclude" snippets that the markdown lets through sit: for
// each leaked snippet, the element of the page that holds it (its tag path with class and
// id tokens), the landmark it sits in (nav, header, footer, aside or their ARIA roles, if
// any), a guess at what it is from those tokens, and where it sits in the markdown (its
// offset as a share of the text: the head, the body or the tail of the extraction).
// Reads the markdown a bench run wrote (--out DIR of bench/extraction-wcxb.ts).
//
//   npx tsx bench/probe/wcxb-leaks.ts --md DIR/service [--type T] [--every N] [--fold K] [--page ID]
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from '../../packages/extract/src/dom.js';
import { loadMarkdownToText, sharedDir } from '../lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from '../lib/wcxb-dev.js';
import { flag, wcxbFold } from '../lib/cli-flags.js';

const shared = sharedDir()!;
const { inFold } = wcxbFold();
const type = flag('type');
const one = flag('page');
const mdDir = flag('md');
if (!mdDir) throw new Error('--md DIR (the service markdown of a bench run) is required');
const pages = loadWcxbPages(wcxbDir(shared)!, (id, t) => (!type || t === type) && (!one || id === one) && inFold(id));
const markdownToText = await loadMarkdownToText(shared);

const words = (s: string): string => (s.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).join(' ');
const LANDMARKS: Record<string, string> = { nav: 'nav', header: 'header', footer: 'footer', aside: 'aside', form: 'form' };
const ROLES: Record<string, string> = { navigation: 'nav', banner: 'header', contentinfo: 'footer', complementary: 'aside', search: 'form' };
const KINDS: Array<[string, RegExp]> = [
  ['breadcrumb', /breadcrumb|crumb/],
  ['share', /share|social|sharing|addthis|sharethis/],
  ['related', /related|recommend|more-?(stories|posts|articles)|popular|trending|read-?next|also/],
  ['author', /author|byline|bio\b|profile/],
  ['comment', /comment|reply|respond|disqus/],
  ['newsletter', /newsletter|subscribe|signup|sign-up|optin|mailchimp/],
  ['tags', /\btags?\b|tag-?list|categor|topics?/],
  ['cookie', /cookie|consent|gdpr/],
  ['nav', /\bnav|menu|sidebar|toc\b|pagination|pager/],
  ['footer', /footer|copyright|legal/],
  ['header', /header|masthead|topbar/],
  ['meta', /meta|date|time|posted|published/],
];

function chain(el: Element | null): Element[] {
  const out: Element[] = [];
  for (let e = el; e && e.localName !== 'body' && e.localName !== 'html'; e = e.parentElement) out.push(e);
  return out;
}
const tokens = (e: Element): string => `${e.localName} ${e.getAttribute('id') ?? ''} ${e.getAttribute('class') ?? ''} ${e.getAttribute('role') ?? ''}`.toLowerCase();
function describe(els: Element[]): string {
  return els
    .slice(0, 6)
    .map((e) => {
      const cls = (e.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2).join('.');
      const id = e.getAttribute('id');
      return `${e.localName}${id ? `#${id}` : ''}${cls ? `.${cls}` : ''}`;
    })
    .join(' < ');
}

const SKIP = new Set(['script', 'style', 'template']);
/** The deepest element whose text holds the snippet's words (not in a script: a framework's page data repeats the page's text). */
function holder(body: Element, key: string): Element | null {
  let best: Element | null = null;
  const walk = (el: Element): void => {
    if (!words(el.textContent ?? '').includes(key)) return;
    best = el;
    for (const child of el.children) if (!SKIP.has(child.localName)) walk(child);
  };
  walk(body);
  return best;
}

const counts = new Map<string, number>();
const mass = new Map<string, number>();
let weight = 0;
/** Counts a leak under k, and its weight in the without-rate (one page's rate is its leaks over its snippets). */
const bump = (k: string): void => {
  counts.set(k, (counts.get(k) ?? 0) + 1);
  mass.set(k, (mass.get(k) ?? 0) + weight);
};
let leaked = 0;
let total = 0;
for (const page of pages) {
  const file = path.join(mdDir, `${page.id}.md`);
  if (!fs.existsSync(file) || !page.without.length) continue;
  const text = markdownToText(fs.readFileSync(file, 'utf8'));
  const lower = text.toLowerCase();
  total += page.without.length;
  const leaks = page.without.filter((s) => lower.includes(s.toLowerCase()));
  if (!leaks.length) continue;
  const doc = parseDocument(page.html);
  weight = 1 / page.without.length;
  for (const s of leaks) {
    leaked++;
    const at = lower.indexOf(s.toLowerCase()) / Math.max(1, lower.length);
    const where = at < 0.1 ? 'head' : at > 0.9 ? 'tail' : 'body';
    const els = chain(holder(doc.body, words(s).split(' ').slice(0, 12).join(' ')));
    let landmark = 'none';
    for (const e of els) {
      const l = LANDMARKS[e.localName] ?? ROLES[(e.getAttribute('role') ?? '').toLowerCase()];
      if (l) {
        landmark = l;
        break;
      }
    }
    const all = els.map(tokens).join(' ');
    const kind = KINDS.find(([, re]) => re.test(all))?.[0] ?? (els.length ? 'unnamed' : 'not-found');
    const tag = els[0]?.localName ?? '-';
    bump(`type ${page.pageType}`);
    bump(`kind ${kind}`);
    bump(`landmark ${landmark}`);
    bump(`where ${where}`);
    bump(`tag ${tag}`);
    console.log(`${page.id} ${page.pageType} ${where} ${landmark} ${kind}: ${JSON.stringify(s.slice(0, 80))} @ ${describe(els)}`);
  }
}
console.log(`leaked ${leaked} of ${total} must-exclude snippets`);
const noSnippets = pages.filter((p) => !p.without.length).length;
console.log(`pages ${pages.length}; ${noSnippets} have no must-exclude snippet (each adds 1 to the rate: ${(noSnippets / pages.length).toFixed(3)} of it)`);
for (const [k, v] of [...counts].sort((a, b) => a[0].localeCompare(b[0]) || b[1] - a[1])) console.log(`${k}: ${v} leaks, ${((mass.get(k) ?? 0) / pages.length).toFixed(4)} of the rate`);
