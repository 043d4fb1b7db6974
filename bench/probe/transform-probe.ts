// Probe: the transform on both extraction dev sets, for speed work that must not change any
// output. The pages are decoded and tree-built as the bench does (bench/lib), once, into a
// cache directory, so that the loop measures the transform alone.
//
//   node dist/bench/probe/transform-probe.js dump DIR [--every N]
//       writes DIR/<set>/<id>.json: transformPage's markdown, metadata and links with the
//       bench's options (onlyMainContent, markdown), and for one page in four also the
//       markdown and html of the whole body (onlyMainContent false): `diff -r` two dumps.
//   node [--cpu-prof] dist/bench/probe/transform-probe.js loop [--rounds R] [--every N] [--set S]
//       runs transformPage (bench options) over the pages R times and prints the CPU per page;
//       with --readability also plain Readability -> turndown, interleaved round by round.
import fs from 'node:fs';
import path from 'node:path';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { transformPage } from '../../services/transformer/src/transform.js';
import { devSetDir, loadDevPages, readabilityExtractor, sharedDir, type DevPage } from '../lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from '../lib/wcxb-dev.js';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const CACHE = process.env.PROBE_PAGE_CACHE ?? '/tmp/trawl-transform-probe-pages';
const every = Number(flag('every') ?? 1);
const onlySet = flag('set');

interface CachedPage { set: string; id: string; url: string; html: string }

/** Both sets' pages as the bench hands them to the transform, from the cache (built on first use). */
function pages(): CachedPage[] {
  const index = path.join(CACHE, 'index.json');
  if (!fs.existsSync(index)) {
    const shared = sharedDir();
    const traf = devSetDir(shared);
    const wcxb = wcxbDir(shared);
    if (!traf || !wcxb) throw new Error('the extraction dev sets are not beside the repository');
    const entries: Array<Omit<CachedPage, 'html'>> = [];
    const keep = (set: string, list: DevPage[]): void => {
      fs.mkdirSync(path.join(CACHE, set), { recursive: true });
      for (const p of list) {
        fs.writeFileSync(path.join(CACHE, set, `${p.id}.html`), p.html);
        entries.push({ set, id: p.id, url: p.url });
      }
    };
    keep('trafilatura-eval', loadDevPages(traf));
    keep('wcxb-dev', loadWcxbPages(wcxb));
    fs.writeFileSync(index, JSON.stringify(entries));
  }
  const entries = JSON.parse(fs.readFileSync(index, 'utf8')) as Array<Omit<CachedPage, 'html'>>;
  return entries
    .filter((e, i) => i % every === 0 && (!onlySet || e.set === onlySet))
    .map((e) => ({ ...e, html: fs.readFileSync(path.join(CACHE, e.set, `${e.id}.html`), 'utf8') }));
}

const benchOptions = normalizeScrapeOptions({ formats: ['markdown'], onlyMainContent: true });
const wholeOptions = normalizeScrapeOptions({ formats: ['markdown', 'html'], onlyMainContent: false });

const transform = (p: CachedPage, options = benchOptions) => transformPage({ html: p.html, url: p.url, statusCode: 200, headers: {}, options });

const mode = args[0];
const list = pages();
if (mode === 'dump') {
  const out = args[1];
  if (!out) throw new Error('dump DIR');
  for (const [i, p] of list.entries()) {
    const dir = path.join(out, p.set);
    fs.mkdirSync(dir, { recursive: true });
    const main = transform(p);
    const whole = i % 4 === 0 ? transform(p, wholeOptions) : undefined;
    const record = { markdown: main.markdown, metadata: main.metadata, links: main.links, whole: whole && { markdown: whole.markdown, html: whole.html, metadata: whole.metadata } };
    fs.writeFileSync(path.join(dir, `${p.id}.json`), JSON.stringify(record, null, 1));
  }
  console.log(`${list.length} pages dumped to ${out}`);
} else if (mode === 'loop') {
  const rounds = Number(flag('rounds') ?? 1);
  const withReadability = args.includes('--readability');
  const cpuMs = (run: () => void): number => {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000 / list.length;
  };
  const ours: number[] = [];
  const base: number[] = [];
  for (let r = 0; r < rounds; r++) {
    ours.push(cpuMs(() => { for (const p of list) transform(p); }));
    if (withReadability) base.push(cpuMs(() => { for (const p of list) readabilityExtractor({ id: p.id, url: p.url, html: p.html, with: [], without: [] }); }));
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const f = (xs: number[]): string => `${median(xs).toFixed(1)} ms (${xs.map((x) => x.toFixed(1)).join(' / ')})`;
  console.log(`${list.length} pages, ${rounds} rounds: transformPage ${f(ours)}${withReadability ? `; Readability -> turndown ${f(base)}; ratio ${(median(ours) / median(base)).toFixed(2)}` : ''}`);
} else {
  console.error('usage: transform-probe.js dump DIR | loop [--rounds R] [--readability] [--every N] [--set S]');
  process.exit(2);
}
