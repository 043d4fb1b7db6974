// Hand-written pages with the tells the frameworks do not cover, built from articles.json:
// - /jquery/N.html: a server page that jQuery enhances (a class, and the year in an empty
//   <span id="year"> of the footer: a marker that changes one word, so the page agrees);
// - /letters/N.html: an article whose readers' letters load late (a fetch after a 300 ms
//   timer) into an empty #letters: the browser sees text the served HTML lacks (a block
//   named "comments" would be boilerplate to the transformer either way);
// - /hydrate/N.html: an app root served full that a script renders again to the same text;
// - /infinite.html: a list that grows when scrolled (an IntersectionObserver): its first
//   items are served, the rest only exist after scrolling.
import fs from 'node:fs';
// The first six articles, each linking to the other five: this site shows tells, not shares.
const articles = JSON.parse(fs.readFileSync('../articles.json', 'utf8')).slice(0, 6)
  .map((a, _, six) => ({ ...a, links: six.map((b) => b.id).filter((id) => id !== a.id) }));
fs.rmSync('out', { recursive: true, force: true });
for (const dir of ['out/jquery', 'out/letters', 'out/hydrate', 'out/data', 'out/js']) fs.mkdirSync(dir, { recursive: true });
fs.copyFileSync('node_modules/jquery/dist/jquery.min.js', 'out/js/jquery.min.js');
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const body = (a, kind, more = '') => `<article><h1>${esc(a.title)}</h1>${a.paragraphs.map((p) => `<p>${esc(p)}</p>`).join('')}${more}</article>
<nav>${a.links.map((m) => `<a href="/${kind}/${m}.html">Harbour notes ${m}</a>`).join(' ')}</nav>`;
const page = (title, inner) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>${inner}</body></html>\n`;
for (const a of articles) {
  fs.writeFileSync(`out/jquery/${a.id}.html`, page(a.title, `<main>${body(a, 'jquery')}</main><footer>Harbour notes, <span id="year"></span></footer>
<script src="/js/jquery.min.js"></script><script>$(function () { $('article').addClass('enhanced'); $('#year').text('2026'); });</script>`));
  fs.writeFileSync(`out/data/letters-${a.id}.json`, JSON.stringify([`A reader of note ${a.id} remembers the old ferry well.`, `Another reader of note ${a.id} asks when the pier opens.`]));
  fs.writeFileSync(`out/letters/${a.id}.html`, page(a.title, `<main>${body(a, 'letters', '<h2>Readers write</h2><section id="letters"></section>')}</main>
<script>setTimeout(() => fetch('/data/letters-${a.id}.json').then((r) => r.json()).then((cs) => { document.getElementById('letters').innerHTML = cs.map((c) => '<p>' + c + '</p>').join(''); }), 300);</script>`));
  fs.writeFileSync(`out/hydrate/${a.id}.html`, page(a.title, `<div id="app"><main>${body(a, 'hydrate')}</main></div>
<script>const app = document.getElementById('app'); const html = app.innerHTML; requestAnimationFrame(() => { app.innerHTML = html; });</script>`));
}
const items = (from, to) => Array.from({ length: to - from }, (_, i) => `<li>Harbour log entry ${from + i}: boats in and out of the harbour that day.</li>`).join('');
fs.writeFileSync('out/infinite.html', page('Harbour log', `<main><h1>Harbour log</h1><ul id="log">${items(1, 21)}</ul><div id="more">Loading more entries…</div></main>
<script>let next = 21; new IntersectionObserver((es) => { if (!es[0].isIntersecting) return; document.getElementById('log').insertAdjacentHTML('beforeend', ${JSON.stringify('')} + Array.from({ length: 20 }, (_, i) => '<li>Harbour log entry ' + (next + i) + ': boats in and out of the harbour that day.</li>').join('')); next += 20; }).observe(document.getElementById('more'));</script>`));
fs.writeFileSync('out/index.html', page('Harbour notes (hand-written)', `<main><h1>Harbour notes</h1><ul>${articles.map((a) => `<li><a href="/jquery/${a.id}.html">${esc(a.title)}</a> (<a href="/letters/${a.id}.html">letters</a>, <a href="/hydrate/${a.id}.html">hydrated</a>)</li>`).join('')}<li><a href="/infinite.html">Harbour log</a></li></ul></main>`));
