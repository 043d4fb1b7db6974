// Realistic, deterministic test pages: an article (headings, paragraphs, lists, a table,
// code, a quote, images) inside the boilerplate of a news site (header navigation, cookie
// banner, sidebar, footer, inline CSS and scripts), grown to a target size. The same seed
// gives the same page, so a run is reproducible and the baseline sees the same bytes.
import zlib from 'node:zlib';

/** mulberry32: a tiny seeded PRNG; good enough to vary text. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her she there ' +
  'one all we their been has when who will more no if out so said what up its about into than them can only other new some could time ' +
  'these two may then do first any my now such like our over man me even most made after also did many before must through back years ' +
  'where much your way well down should because each just those people how too little state good very make world still own see men work ' +
  'long get here between both life being under never day same another know while last might us great old year off come since against go ' +
  'came right used take three system service queue browser render latency memory network process stream event consumer worker page ' +
  'content markdown extraction cluster storage request response cache document thread signal metric budget deploy release library'
).split(' ');

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const esc = (s: string): string => s.replace(/[&<>"]/g, (c) => HTML_ESCAPES[c]!);

class Text {
  constructor(private readonly next: () => number) {}
  int(min: number, max: number): number { return min + Math.floor(this.next() * (max - min + 1)); }
  pick<T>(list: readonly T[]): T { return list[Math.floor(this.next() * list.length)]!; }
  words(n: number): string { return Array.from({ length: n }, () => this.pick(WORDS)).join(' '); }
  title(n: number): string { return this.words(n).replace(/(^|\s)\S/g, (c) => c.toUpperCase()); }
  sentence(): string { const s = this.words(this.int(8, 22)); return `${s[0]!.toUpperCase()}${s.slice(1)}.`; }
  paragraph(): string { return Array.from({ length: this.int(3, 7) }, () => this.sentence()).join(' '); }
}

export interface Link { href: string; text: string }

export interface ArticleOptions {
  seed: number;
  /** Approximate size of the whole document in bytes. */
  targetBytes: number;
  title?: string;
  /** Header navigation; generated section links when absent. */
  navLinks?: Link[];
  /** Links placed inside the article's paragraphs and its "read next" list. */
  bodyLinks?: Link[];
  /** Footer links; generated boilerplate when absent. */
  footerLinks?: Link[];
  /** The sidebar's "Related" list; generated boilerplate when absent. */
  relatedLinks?: Link[];
}

const STYLE = `body{font-family:Georgia,serif;margin:0;color:#222}header,footer{background:#f4f4f4;padding:1rem}
nav a{margin-right:.8rem;color:#036}main{display:flex;max-width:72rem;margin:auto}article{flex:3;padding:1rem}
aside{flex:1;padding:1rem;font-size:.9rem}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3rem}
pre{background:#272822;color:#f8f8f2;padding:1rem;overflow:auto}.cookie{position:fixed;bottom:0;background:#333;color:#fff}`;

function boilerplateLinks(t: Text, n: number, prefix: string): Link[] {
  return Array.from({ length: n }, (_, i) => ({ href: `/${prefix}/${t.words(1)}-${i}`, text: t.title(t.int(1, 3)) }));
}

function linkList(links: Link[]): string {
  return links.map((l) => `<a href="${esc(l.href)}">${esc(l.text)}</a>`).join('\n');
}

function table(t: Text): string {
  const cols = ['Region', 'Requests', 'p50 (ms)', 'p95 (ms)', 'Errors'];
  const rows = Array.from({ length: t.int(6, 12) }, () =>
    `<tr><td>${t.title(1)}</td><td>${t.int(1000, 90000)}</td><td>${t.int(20, 400)}</td><td>${t.int(300, 2000)}</td><td>${t.int(0, 50)}</td></tr>`);
  return `<table><caption>${t.title(4)}</caption><thead><tr>${cols.map((c) => `<th>${c}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function code(t: Text): string {
  const fn = t.words(1);
  const lines = [
    `import { ${fn} } from './${t.words(1)}.js';`,
    '',
    `export async function handle${fn[0]!.toUpperCase()}${fn.slice(1)}(request) {`,
    `  const started = performance.now();`,
    `  const result = await ${fn}(request.url, { timeoutMs: ${t.int(1, 30) * 1000} });`,
    `  if (result.status >= 400) throw new Error(\`${t.words(4)}: \${result.status}\`);`,
    `  return { ...result, tookMs: performance.now() - started };`,
    '}',
  ];
  return `<pre><code class="language-js">${esc(lines.join('\n'))}</code></pre>`;
}

/** One section of the article; body links are spent into its paragraphs as they come. */
function section(t: Text, index: number, links: Link[]): string {
  const parts = [`<h2 id="section-${index}">${t.title(t.int(3, 7))}</h2>`];
  const paragraphs = t.int(3, 6);
  for (let p = 0; p < paragraphs; p++) {
    let text = esc(t.paragraph());
    const link = links.shift();
    if (link) text += ` See <a href="${esc(link.href)}">${esc(link.text)}</a>.`;
    parts.push(`<p>${text}</p>`);
  }
  switch (index % 5) {
    case 1: parts.push(`<ul>${Array.from({ length: t.int(3, 6) }, () => `<li>${esc(t.sentence())}</li>`).join('')}</ul>`); break;
    case 2: parts.push(table(t)); break;
    case 3: parts.push(code(t)); break;
    case 4: parts.push(`<h3>${t.title(4)}</h3><blockquote><p>${esc(t.paragraph())}</p></blockquote>`); break;
    default: parts.push(`<figure><img src="/img/${index}.png" alt="${esc(t.words(5))}" width="640" height="360"><figcaption>${esc(t.sentence())}</figcaption></figure>`);
  }
  return parts.join('\n');
}

/** A whole article page of about `targetBytes`. */
export function articleHtml(opts: ArticleOptions): string {
  const t = new Text(rng(opts.seed));
  const title = opts.title ?? t.title(t.int(5, 9));
  const nav = opts.navLinks ?? boilerplateLinks(t, 30, 'section');
  const footer = opts.footerLinks ?? boilerplateLinks(t, 40, 'company');
  const body = [...(opts.bodyLinks ?? [])];
  const related = (opts.relatedLinks ?? Array.from({ length: 12 }, () => ({ href: `/related/${t.words(1)}-${t.int(1, 9999)}`, text: t.title(6) })))
    .map((l) => `<li><a href="${esc(l.href)}">${esc(l.text)}</a></li>`).join('');
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="description" content="${esc(t.sentence())}"><meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"${esc(title)}"}</script>
<script>window.dataLayer=window.dataLayer||[];window.dataLayer.push({page:'article',seed:${opts.seed}});</script>
</head><body>
<header><div class="logo">The ${esc(t.title(2))} Gazette</div><nav>${linkList(nav)}</nav></header>
<div class="cookie">We use cookies to improve your experience. <button>Accept</button> <a href="/privacy">Privacy</a></div>
<main><article><h1>${esc(title)}</h1><p class="byline">By ${esc(t.title(2))} · ${t.int(1, 28)} March 2025 · ${t.int(3, 15)} min read</p>`;
  const tail = `</article><aside><h2>Related</h2><ul>${related}</ul><h2>Newsletter</h2><p>${esc(t.sentence())}</p><form><input type="email" placeholder="Email"><button>Subscribe</button></form></aside></main>
<footer><nav>${linkList(footer)}</nav><p>© 2025 ${esc(t.title(2))} Media. ${esc(t.sentence())}</p></footer>
<script>document.querySelector('.cookie button')?.addEventListener('click',()=>document.querySelector('.cookie').remove());</script>
</body></html>`;
  const readNext = () => body.length ? `<h2>Read next</h2><ul>${body.splice(0).map((l) => `<li><a href="${esc(l.href)}">${esc(l.text)}</a></li>`).join('')}</ul>` : '';
  const sections: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; size < opts.targetBytes; i++) {
    const s = section(t, i, body);
    sections.push(s);
    size += s.length;
  }
  return `${head}\n${sections.join('\n')}\n${readNext()}${tail}`;
}

/** A 1x1 transparent PNG, for the article images. */
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export function urlset(urls: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${
    urls.map((u) => `<url><loc>${esc(u)}</loc><lastmod>2025-01-01</lastmod></url>`).join('\n')}\n</urlset>\n`;
}

export function sitemapIndex(urls: readonly string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${
    urls.map((u) => `<sitemap><loc>${esc(u)}</loc></sitemap>`).join('\n')}\n</sitemapindex>\n`;
}

export interface SitemapSite {
  /** path -> body and content type */
  files: Map<string, { body: Buffer; contentType: string }>;
  urlCount: number;
}

/** A sitemap index at /sitemap.xml naming `children` sitemaps of `perChild` URLs each; the last one gzip-compressed. */
export function sitemapSite(origin: string, children: number, perChild: number): SitemapSite {
  const files: SitemapSite['files'] = new Map();
  const childUrls: string[] = [];
  for (let c = 0; c < children; c++) {
    const urls = Array.from({ length: perChild }, (_, i) => `${origin}/docs/s${c}/page-${i}`);
    const gz = c === children - 1;
    const path = `/sitemaps/part-${c}.xml${gz ? '.gz' : ''}`;
    const xml = Buffer.from(urlset(urls));
    files.set(path, gz ? { body: zlib.gzipSync(xml), contentType: 'application/gzip' } : { body: xml, contentType: 'application/xml' });
    childUrls.push(`${origin}${path}`);
  }
  files.set('/sitemap.xml', { body: Buffer.from(sitemapIndex(childUrls)), contentType: 'application/xml' });
  return { files, urlCount: children * perChild };
}
