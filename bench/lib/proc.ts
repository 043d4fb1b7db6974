// CPU and memory of a whole process tree, from /proc (Linux only). The system under test is
// the supervisor started by the bench and everything below it: nats-server, six Node
// services, Chromium and its renderers. Sampling every 250 ms gives peak RSS and PSS of
// the sum over the tree; CPU is the difference of two readings of the tree's total.
//
// CPU of processes that exit between readings (Chromium renderers close with their
// context) is not lost: once their parent reaps them, the kernel adds their time to the
// parent's cutime/cstime, and those are part of the total (see proc(5)). Processes that are
// orphaned first (Chromium's zygote and renderers when the browser process goes) are reaped
// outside the tree: a sampler follows them and adds back what left with them (exited-cpu.ts).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { ExitedCpu } from './exited-cpu.js';
import { parseStat, type ProcStat } from './proc-stat.js';

export { parseStat, type ProcStat } from './proc-stat.js';

export interface MemoryRollup {
  rssKb: number;
  pssKb: number;
}

/** Parses /proc/<pid>/smaps_rollup (values in kB). */
export function parseSmapsRollup(text: string): MemoryRollup {
  const value = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { rssKb: value('Rss'), pssKb: value('Pss') };
}

/** The root and all its descendants, from a pid -> ppid table. */
export function descendants(rootPid: number, parentOf: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parentOf) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  const out: number[] = [];
  const queue = parentOf.has(rootPid) ? [rootPid] : [];
  while (queue.length) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

export type ProcessKind = 'chromium' | 'nats' | 'supervisor' | 'service' | 'other';

/** What a process is, from its command line (service processes are named by their entry). */
export function classify(cmdline: string): { kind: ProcessKind; name: string } {
  const service = /dist\/services\/([\w-]+)\//.exec(cmdline);
  if (service) return { kind: 'service', name: service[1]! };
  // Chromium's network service is started as `/proc/self/exe --type=utility …`: no name in it.
  if (/chrom|headless_shell|^\/proc\/self\/exe --type=/i.test(cmdline)) return { kind: 'chromium', name: 'chromium' };
  if (/nats-server/.test(cmdline)) return { kind: 'nats', name: 'nats-server' };
  if (/scripts\/start\.js/.test(cmdline)) return { kind: 'supervisor', name: 'supervisor' };
  if (/scripts\/service-host\.js/.test(cmdline)) return { kind: 'service', name: 'service-host' };
  return { kind: 'other', name: 'other' };
}

let ticksPerSecond: number | undefined;
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try { ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { ticksPerSecond = 100; }
  }
  return ticksPerSecond;
}

function readOr(file: string): string | undefined {
  try { return fs.readFileSync(file, 'utf8'); } catch { return undefined; }
}

/** Every process's stat (processes that vanish while being read are skipped). */
export function readAllStats(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const text = readOr(`/proc/${name}/stat`);
    if (text) out.set(Number(name), parseStat(text));
  }
  return out;
}

export interface TreeSnapshot {
  atMs: number;
  processes: number;
  cpuMs: number;
  rssKb: number;
  pssKb: number;
  chromiumProcesses: number;
  /** RSS, PSS and CPU so far per process name (service name, chromium, nats-server, supervisor). */
  byName: Record<string, MemoryRollup & { count: number; cpuMs: number }>;
}

// Keyed by pid and start time: pids wrap (pid_max is 32768 here) and a bench run starts
// thousands of Chromium processes, so a pid alone would name a new process by an old one's
// command line. An empty one (a zombie, or a process between fork and exec) is not kept.
const cmdlines = new Map<string, string>();
function cmdlineOf(pid: number, startTime = 0): string {
  const key = `${pid}:${startTime}`;
  let line = cmdlines.get(key);
  if (line === undefined) {
    line = (readOr(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' ');
    if (line) cmdlines.set(key, line);
  }
  return line;
}

/**
 * One reading of the tree under rootPid. With `exited` (one per series of readings), the
 * processes seen before and orphaned since still count, and so does the CPU that left with
 * processes reaped outside the tree.
 */
export function snapshotTree(rootPid: number, exited?: ExitedCpu): TreeSnapshot {
  const stats = readAllStats();
  const parentOf = new Map([...stats.values()].map((s) => [s.pid, s.ppid] as const));
  const pids = exited ? [...exited.update(rootPid, stats, (pid) => classify(cmdlineOf(pid, stats.get(pid)?.startTime)).name)] : descendants(rootPid, parentOf);
  const snap: TreeSnapshot = { atMs: Date.now(), processes: 0, cpuMs: 0, rssKb: 0, pssKb: 0, chromiumProcesses: 0, byName: {} };
  for (const pid of pids) {
    const stat = stats.get(pid)!;
    const mem = parseSmapsRollup(readOr(`/proc/${pid}/smaps_rollup`) ?? '');
    const { kind, name } = classify(cmdlineOf(pid, stat.startTime));
    snap.processes++;
    const cpuMs = (stat.cpuTicks * 1000) / clockTicks();
    snap.cpuMs += cpuMs;
    snap.rssKb += mem.rssKb;
    snap.pssKb += mem.pssKb;
    if (kind === 'chromium') snap.chromiumProcesses++;
    const entry = (snap.byName[name] ??= { rssKb: 0, pssKb: 0, count: 0, cpuMs: 0 });
    entry.cpuMs += cpuMs;
    entry.rssKb += mem.rssKb;
    entry.pssKb += mem.pssKb;
    entry.count++;
  }
  for (const [name, ticks] of exited?.lostTicksByName ?? []) {
    const cpuMs = (ticks * 1000) / clockTicks();
    snap.cpuMs += cpuMs;
    (snap.byName[name] ??= { rssKb: 0, pssKb: 0, count: 0, cpuMs: 0 }).cpuMs += cpuMs;
  }
  return snap;
}

/** The pid of a direct child of `parentPid` whose command line matches. */
export function findChild(parentPid: number, cmdline: RegExp): number | undefined {
  for (const stat of readAllStats().values()) {
    if (stat.ppid === parentPid && cmdline.test(cmdlineOf(stat.pid, stat.startTime))) return stat.pid;
  }
  return undefined;
}

export interface TreeUsage {
  wallMs: number;
  cpuMs: number;
  peakRssKb: number;
  peakPssKb: number;
  samples: number;
  /** The sample with the highest RSS, with its per-process breakdown. */
  atPeak: TreeSnapshot;
  /** CPU milliseconds used between start() and stop(), per process name. */
  cpuByName: Record<string, number>;
}

/** CPU used between two snapshots per process name (a process that exited counts with its parent). */
export function cpuDelta(first: TreeSnapshot, last: TreeSnapshot): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, entry] of Object.entries(last.byName)) out[name] = Math.max(0, entry.cpuMs - (first.byName[name]?.cpuMs ?? 0));
  return out;
}

/** "projector 45%, gateway 30%, ...": shares of the CPU used, largest first. */
export function cpuShares(cpuByName: Record<string, number>, top = 5): string {
  const total = Object.values(cpuByName).reduce((a, b) => a + b, 0);
  if (total <= 0) return 'no CPU used';
  return Object.entries(cpuByName).sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, ms]) => `${name} ${Math.round((100 * ms) / total)}%`).join(', ');
}

/** Samples a process tree every intervalMs between start() and stop(). */
export class TreeSampler {
  private timer: NodeJS.Timeout | undefined;
  private first: TreeSnapshot | undefined;
  private last: TreeSnapshot | undefined;
  private peak: TreeSnapshot | undefined;
  private peakPssKb = 0;
  private samples = 0;
  private readonly exited = new ExitedCpu();

  constructor(private readonly rootPid: number, private readonly intervalMs = 250) {}

  start(): this {
    this.first = this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    return this;
  }

  stop(): TreeUsage {
    clearInterval(this.timer);
    const last = this.sample();
    const first = this.first ?? last;
    return {
      wallMs: last.atMs - first.atMs,
      cpuMs: Math.max(0, last.cpuMs - first.cpuMs),
      peakRssKb: this.peak?.rssKb ?? last.rssKb,
      peakPssKb: this.peakPssKb,
      samples: this.samples,
      atPeak: this.peak ?? last,
      cpuByName: cpuDelta(first, last),
    };
  }

  private sample(): TreeSnapshot {
    const snap = snapshotTree(this.rootPid, this.exited);
    this.samples++;
    this.last = snap;
    if (!this.peak || snap.rssKb > this.peak.rssKb) this.peak = snap;
    this.peakPssKb = Math.max(this.peakPssKb, snap.pssKb);
    return snap;
  }

  current(): TreeSnapshot | undefined {
    return this.last;
  }
}
