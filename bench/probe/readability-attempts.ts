// Where Readability's CPU goes inside the service's transform: per page, the attempts
// (_grabArticle passes) it made and the CPU of parse() against the whole transform.
//   npx tsx bench/probe/readability-attempts.ts [--wcxb] [--every N] [--fold K]
import { Readability } from '@mozilla/readability';
import { devSetDir, loadDevPages, serviceExtractor, sharedDir, type DevPage } from '../lib/extraction-dev.js';
import { loadWcxbPages, wcxbDir } from '../lib/wcxb-dev.js';
import { hasFlag, wcxbFold } from '../lib/cli-flags.js';

const shared = sharedDir()!;
const { inFold } = wcxbFold();
const pages: DevPage[] = hasFlag('wcxb')
  ? loadWcxbPages(wcxbDir(shared)!, inFold)
  : loadDevPages(devSetDir(shared)!);
const proto = Readability.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const timers: Record<string, number> = {};
const counts: Record<string, number> = {};
for (const name of ['parse', '_grabArticle', '_prepArticle', '_getArticleMetadata', '_getJSONLD', '_prepDocument', '_postProcessContent', '_unwrapNoscriptImages']) {
  const orig = proto[name]!;
  proto[name] = function (this: unknown, ...a: unknown[]) {
    const t = cpuMs();
    try { return orig.apply(this, a); } finally { timers[name] = (timers[name] ?? 0) + cpuMs() - t; counts[name] = (counts[name] ?? 0) + 1; }
  };
}
const attemptsHist = new Map<number, number>();
let total = 0;
for (const page of pages) {
  const html = page.html;
  const n0 = counts._prepArticle ?? 0;
  const t = cpuMs();
  serviceExtractor({ ...page, html });
  total += cpuMs() - t;
  const n = (counts._prepArticle ?? 0) - n0;
  attemptsHist.set(n, (attemptsHist.get(n) ?? 0) + 1);
}
console.log(`pages ${pages.length}  transform CPU ${(total / pages.length).toFixed(1)} ms/page`);
for (const [k, v] of Object.entries(timers)) console.log(`  ${k.padEnd(22)} ${(v / pages.length).toFixed(2)} ms/page  (${counts[k]} calls)`);
// One _prepArticle per attempt: a page at 2-4 retried with fewer flags (0: a thread, which skips Readability; 5+: a second run, from extract-page's empty-content fallbacks).
console.log('  prepArticle calls per page:', [...attemptsHist].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}:${v}`).join(' '));
