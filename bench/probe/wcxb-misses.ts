// Where the WCXB dev set's "must include" snippets that the service misses sit: for each
// missed snippet, whether it is in the main-content markdown once whitespace and punctuation
// are ignored (a format quirk), in the whole-body markdown (dropped by the main-content
// choice or a pass after it), in the page's text only (lost by prepare or the markdown), or
// not in the page at all (an annotation quirk); for dropped ones, the element that holds it.
//
//   npx tsx bench/probe/wcxb-misses.ts [--type T] [--every N] [--fold K] [--page ID]
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { extractPage } from '../../packages/extract/src/index.js';
import { parseDocument } from '../../packages/extract/src/dom.js';
import { loadMarkdownToText, sharedDir } from '../lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from '../lib/wcxb-dev.js';
import { flag, wcxbFold } from '../lib/cli-flags.js';

const shared = sharedDir()!;
const { inFold } = wcxbFold();
const type = flag('type');
const one = flag('page');
const pages = loadWcxbPages(wcxbDir(shared)!, (id, t) => (!type || t === type) && (!one || id === one) && inFold(id));
const markdownToText = await loadMarkdownToText(shared);

const words = (s: string): string => (s.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).join(' ');
const markdown = (html: string, url: string, onlyMainContent: boolean): string =>
  extractPage({ html, url, options: normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent }) }).markdown ?? '';

function describe(el: Element | null): string {
  const parts: string[] = [];
  for (let e = el, i = 0; e && e.localName !== 'body' && i < 7; e = e.parentElement, i++) {
    const cls = (e.getAttribute('class') ?? '').trim().split(/\s+/).filter(Boolean).slice(0, 2).join('.');
    const id = e.getAttribute('id');
    parts.push(`${e.localName}${id ? `#${id}` : ''}${cls ? `.${cls}` : ''}`);
  }
  return parts.join(' < ');
}

/** The deepest element whose text holds the snippet's words (its first 8 words when the whole is split over blocks). */
function holder(body: Element, snippet: string): Element | null {
  const key = words(snippet).split(' ').slice(0, 8).join(' ');
  let best: Element | null = null;
  const walk = (el: Element): void => {
    if (!words(el.textContent ?? '').includes(key)) return;
    best = el;
    for (const child of el.children) walk(child);
  };
  walk(body);
  return best;
}

const counts = new Map<string, number>();
for (const page of pages) {
  const html = page.html;
  const main = markdownToText(markdown(html, page.url, true));
  const missed = page.with.filter((s) => !main.toLowerCase().includes(s.toLowerCase()));
  if (!missed.length) continue;
  const full = words(markdownToText(markdown(html, page.url, false)));
  const doc = parseDocument(html);
  const raw = words(doc.body.textContent ?? '');
  const mainWords = words(main);
  for (const s of missed) {
    const w = words(s);
    const cause = !w ? 'no words' : mainWords.includes(w) ? 'format' : full.includes(w) ? 'dropped' : raw.includes(w) ? 'lost-in-full' : 'not-in-page';
    counts.set(`${page.pageType} ${cause}`, (counts.get(`${page.pageType} ${cause}`) ?? 0) + 1);
    const where = cause === 'dropped' || cause === 'lost-in-full' ? `  @ ${describe(holder(doc.body, s))}` : '';
    console.log(`${page.id} ${page.pageType} ${cause}: ${JSON.stringify(s.slice(0, 100))}${where}`);
  }
}
for (const [k, v] of [...counts].sort()) console.log(`${k}: ${v}`);
