// Probe: the transform on both extraction dev sets, for speed work that must not change any
// output. The pages are decoded and tree-built as the bench does (bench/lib), once, into a
// cache directory, so that the loop measures the transform alone.
//
//   node dist/bench/probe/transform-probe.js dump DIR [--every N]
//       writes DIR/<set>/<id>.json: transformPage's markdown, metadata and links with the
//       bench's options (onlyMainContent, markdown), and for one page in four also the
//       markdown and html of the whole body (onlyMainContent false): `diff -r` two dumps.
//   node [--cpu-prof] dist/bench/probe/transform-probe.js loop [--rounds R] [--every N] [--set S]
//        [--extract] [--base DIR] [--readability]
//       runs transformPage (extractPage with --extract, as bench scenario 11 times it; bench
//       options) over the pages R times and prints the median CPU per page; --base DIR times
//       another build (a copy of dist/) beside it, --readability plain Readability -> turndown,
//       all interleaved round by round.
import fs from 'node:fs';
import path from 'node:path';
import { normalizeScrapeOptions } from '../../shared/src/domain/scrape-options.js';
import { transformPage } from '../../services/transformer/src/transform.js';
import { extractPage } from '../../packages/extract/src/index.js';
import { devSetDir, loadDevPages, readabilityExtractor, sharedDir, type DevPage } from '../lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from '../lib/wcxb-dev.js';
import { flag } from '../lib/cli-flags.js';

const args = process.argv.slice(2);
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
  // Interleaved rounds (the order reversed every other round), medians: one pass of anything
  // is noisy on a shared machine, and the first pass pays for the JIT.
  const rounds = Number(flag('rounds') ?? 1);
  const runners: Record<string, (p: CachedPage) => unknown> = {};
  const fn = args.includes('--extract') ? 'extractPage' : 'transformPage';
  const baseDir = flag('base');
  if (baseDir) {
    // Another build of the tree (a copy of dist/ before the change), timed beside this one.
    const other = args.includes('--extract')
      ? ((await import(path.resolve(baseDir, 'packages/extract/src/index.js'))) as { extractPage: typeof extractPage }).extractPage
      : ((await import(path.resolve(baseDir, 'services/transformer/src/transform.js'))) as { transformPage: typeof transformPage }).transformPage;
    runners[`${fn} (base)`] = (p) => other({ html: p.html, url: p.url, statusCode: 200, headers: {}, options: benchOptions });
  }
  runners[fn] = args.includes('--extract') ? (p) => extractPage({ html: p.html, url: p.url, options: benchOptions }) : (p) => transform(p);
  if (args.includes('--readability')) runners['Readability -> turndown'] = (p) => readabilityExtractor({ id: p.id, url: p.url, html: p.html, with: [], without: [] });
  const names = Object.keys(runners);
  const cpu: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? [...names].reverse() : names) {
      const start = process.cpuUsage();
      for (const p of list) runners[name]!(p);
      const used = process.cpuUsage(start);
      cpu[name]!.push((used.user + used.system) / 1000 / list.length);
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const last = cpu[names[names.length - 1]!]!;
  console.log(`${list.length} pages, ${rounds} rounds, CPU ms per page, median (rounds):`);
  for (const name of names) console.log(`  ${name.padEnd(26)} ${median(cpu[name]!).toFixed(1)} (${cpu[name]!.map((x) => x.toFixed(1)).join(' ')})  / last ${(median(cpu[name]!) / median(last)).toFixed(3)}`);
} else {
  console.error('usage: transform-probe.js dump DIR | loop [--rounds R] [--every N] [--set S] [--extract] [--base DIR] [--readability]');
  process.exit(2);
}
