// Probe (not part of `npm run bench`): where a process tree's CPU goes, from V8 CPU profiles.
// Run a crawl with every Node process profiled, then split the profiles' self time by
// process (from the entry module each profile holds) and by package or module:
//   NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" PROBE_PAGES=200 PROBE_HTTP=1 node dist/bench/probe/crawl-probe.js
//   node dist/bench/probe/cpu-profile-split.js /tmp/prof <pages> [top functions] [from to]
// `from` and `to` (epoch ms, the probe's "crawl posted at" and "crawl finished at") keep only
// the samples of the crawl's window: V8 stamps samples with the monotonic clock, which
// process.hrtime reads too.
// Worker threads write their own profile (the transformer's transform threads). A process
// must exit cleanly for its profile to be written (the supervisor's stop does that).
import fs from 'node:fs';
import path from 'node:path';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number }

/** Which process (or thread) a profile is of, from the entry modules it saw. */
const ENTRIES: [RegExp, string][] = [
  [/transform-thread\.js$/, 'transformer thread'],
  [/services\/transformer\/src\/main\.js$/, 'transformer main'],
  [/services\/fetcher\/src\/main\.js$/, 'fetcher'],
  [/services\/gateway\/src\/main\.js$/, 'gateway'],
  [/scripts\/service-host\.js$/, 'service-host'],
  [/scripts\/start\.js$/, 'supervisor'],
  [/bench\/http-crawler\.js$/, 'HTTP crawler (baseline)'],
  [/page-outcome-worker\.js$/, 'bench worker'],
  [/bench\/probe\/.*\.js$/, 'probe (client)'],
];

/** A frame's package or module: a node_modules package, our own folder, a Node module, or V8's own. */
export function moduleOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : functionName.startsWith('RegExp:') ? 'native RegExp' : `native ${functionName || '(anonymous)'}`;
  if (url.startsWith('node:')) return url.replace(/^node:(internal\/)?/, 'node:').split('/').slice(0, 2).join('/');
  const nm = url.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0]!.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  const dist = url.indexOf('/dist/');
  if (dist !== -1) {
    const parts = url.slice(dist + '/dist/'.length).split('/');
    // packages/extract/src/x.js -> packages/extract; services/transformer/src/outcome/x.js -> services/transformer/outcome
    const top = parts[0] === 'shared' ? parts.slice(0, 4) : parts.slice(0, 2);
    const sub = parts[0] !== 'shared' && parts[2] === 'src' && parts.length > 4 ? `/${parts[3]}` : '';
    return `ours ${top.join('/').replace(/\.js$/, '')}${sub}`;
  }
  return url;
}

function processOf(profile: Profile): string {
  for (const node of profile.nodes) {
    for (const [re, name] of ENTRIES) if (re.test(node.callFrame.url)) return name;
  }
  return 'other';
}

interface Split { byModule: Map<string, number>; byFunction: Map<string, number>; totalMs: number; profiles: number }

/** Epoch ms to V8's profile timestamps (CLOCK_MONOTONIC, µs). */
const monotonicOffsetUs = Date.now() * 1000 - Number(process.hrtime.bigint() / 1000n);
const toMonotonicUs = (epochMs: number): number => epochMs * 1000 - monotonicOffsetUs;

function splitOf(file: string, window: [number, number]): { proc: string; byModule: Map<string, number>; byFunction: Map<string, number>; totalMs: number } {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n] as const));
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let totalMs = 0;
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i]!;
    const node = byId.get(profile.samples[i]!);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000; // a sample's time runs until the next one
    if (!node || node.callFrame.functionName === '(idle)' || at < window[0] || at > window[1]) continue;
    totalMs += ms;
    const mod = moduleOf(node.callFrame);
    byModule.set(mod, (byModule.get(mod) ?? 0) + ms);
    const fn = `${mod} ${(node.callFrame.functionName || '(anonymous)').slice(0, 60)}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + ms);
  }
  return { proc: processOf(profile), byModule, byFunction, totalMs };
}

function add(into: Map<string, number>, from: Map<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

function main(): void {
  const [dir, pagesArg, topArg, from, to] = process.argv.slice(2);
  const window: [number, number] = from && to ? [toMonotonicUs(Number(from)), toMonotonicUs(Number(to))] : [-Infinity, Infinity];
  if (!dir || !pagesArg) throw new Error('usage: cpu-profile-split.js <profile dir> <pages> [top functions]');
  const pages = Number(pagesArg);
  const top = Number(topArg ?? 25);
  const byProc = new Map<string, Split>();
  for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    const s = splitOf(path.join(dir, f), window);
    const p = byProc.get(s.proc) ?? { byModule: new Map(), byFunction: new Map(), totalMs: 0, profiles: 0 };
    add(p.byModule, s.byModule);
    add(p.byFunction, s.byFunction);
    p.totalMs += s.totalMs;
    p.profiles += 1;
    byProc.set(s.proc, p);
  }
  const per = (ms: number) => (ms / pages).toFixed(1);
  const procs = [...byProc].sort((a, b) => b[1].totalMs - a[1].totalMs);
  console.log(`CPU ms per page (${pages} pages), sampled self time by process:`);
  for (const [name, s] of procs) console.log(`  ${name.padEnd(26)} ${per(s.totalMs).padStart(7)}  (${s.profiles} profile${s.profiles > 1 ? 's' : ''})`);
  for (const [name, s] of procs) {
    if (s.totalMs / pages < 1) continue;
    console.log(`\n${name}: ${per(s.totalMs)} ms/page by module`);
    for (const [m, ms] of [...s.byModule].sort((a, b) => b[1] - a[1]).filter(([, ms]) => ms / pages >= 0.2)) console.log(`  ${per(ms).padStart(7)}  ${m}`);
    console.log(`  top functions:`);
    for (const [f, ms] of [...s.byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${per(ms).padStart(7)}  ${f}`);
  }
}

main();
