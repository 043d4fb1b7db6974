// The run part of every process's INSTANCE_ID under one supervisor (`<run>-<service>-<slot>`),
// kept in DATA_DIR across supervisor restarts: when the whole supervisor died (killed,
// crashed, the machine rebooted), its processes come back under their old ids and take back
// their projector partition leases and fleet host slots at once, instead of waiting out
// their TTLs (10-12 s) under new ids. Two live processes must never share an id (two
// projectors would both hold a partition), so the run is reused only when the supervisor
// that last used it and every process that carries it are gone. The file names the
// supervisor and each process it started, with when each began: a recorded pid that is
// alive counts only if the process behind it began then (a pid is reused after a reboot),
// asked of `ps` (macOS has no /proc). Where /proc exists, every process's environment is
// also searched for the run (an orphan the file missed). Where it cannot tell, the run is a
// fresh random one.
import { execFileSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const FILE = 'supervisor-run.json';
/** How far a process's start read from `ps` (whole seconds) may be from the one recorded. */
const START_SLACK_MS = 2_000;

interface Started { pid: number; startedAt?: number }
interface Recorded extends Started { run: string; processes?: Started[] }

export interface RunOptions {
  /** Where the processes' environments are read (tests point it elsewhere, as on macOS). */
  procDir?: string;
}

/** The run of this supervisor, and the record of the processes it starts under it. */
export class SupervisorRun {
  private readonly live = new Map<number, number>();

  private constructor(private readonly file: string, readonly run: string, private readonly startedAt: number) {
    this.write();
  }

  /** This supervisor's run (`prefix` is the operator's own INSTANCE_ID, if any). */
  static open(dataDir: string, prefix: string | undefined, opts: RunOptions = {}): SupervisorRun {
    const file = path.join(dataDir, FILE);
    const previous = read(file);
    const fresh = `${prefix ? `${prefix}-` : ''}${randomBytes(4).toString('hex')}`;
    const run = previous && previous.run.startsWith(prefix ? `${prefix}-` : '') && !inUse(previous, opts.procDir ?? '/proc') ? previous.run : fresh;
    fs.mkdirSync(dataDir, { recursive: true });
    return new SupervisorRun(file, run, Math.round(Date.now() - process.uptime() * 1_000));
  }

  /** Records a process started under this run until it exits. */
  track(proc: ChildProcess): ChildProcess {
    const { pid } = proc;
    if (pid === undefined) return proc;
    this.live.set(pid, Date.now());
    this.write();
    proc.once('exit', () => { this.live.delete(pid); this.write(); });
    return proc;
  }

  private write(): void {
    const processes = [...this.live].map(([pid, startedAt]) => ({ pid, startedAt }));
    fs.writeFileSync(this.file, JSON.stringify({ run: this.run, pid: process.pid, startedAt: this.startedAt, processes } satisfies Recorded));
  }
}

/** The run for this supervisor, without recording its processes. */
export function supervisorRun(dataDir: string, prefix: string | undefined, opts: RunOptions = {}): string {
  return SupervisorRun.open(dataDir, prefix, opts).run;
}

function read(file: string): Recorded | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Recorded>;
    if (typeof parsed.run !== 'string' || !/^[A-Za-z0-9_-]+$/.test(parsed.run) || typeof parsed.pid !== 'number') return undefined;
    const processes = Array.isArray(parsed.processes) ? parsed.processes.filter((p) => typeof p?.pid === 'number') : [];
    return { run: parsed.run, pid: parsed.pid, ...(typeof parsed.startedAt === 'number' ? { startedAt: parsed.startedAt } : {}), processes };
  } catch {
    return undefined;
  }
}

/** Whether the recorded supervisor or any process carrying its run may still live (true when unsure). */
function inUse(recorded: Recorded, procDir: string): boolean {
  const own = recorded.pid === process.pid ? [] : [recorded];
  if ([...own, ...(recorded.processes ?? [])].some(stillRuns)) return true;
  let entries: string[];
  try {
    entries = fs.readdirSync(procDir).filter((e) => /^\d+$/.test(e));
  } catch {
    // No /proc (macOS): the record is all there is. A file written before it named the
    // processes (no start stamps) cannot say that none lives.
    return recorded.startedAt === undefined;
  }
  const mark = `INSTANCE_ID=${recorded.run}-`;
  return entries.some((e) => {
    try {
      return fs.readFileSync(`${procDir}/${e}/environ`, 'latin1').split('\0').some((v) => v.startsWith(mark));
    } catch {
      return false; // gone meanwhile, or another user's (no Trawl process of ours)
    }
  });
}

/**
 * Whether the recorded process lives: its pid answers, it is not a zombie (a process killed
 * with its supervisor stays one until its new parent reaps it), and (when recorded) it
 * began when it did.
 */
function stillRuns({ pid, startedAt }: Started): boolean {
  if (!alive(pid)) return false;
  const seen = psOf(pid);
  if (seen?.zombie) return false;
  if (startedAt === undefined) return true;
  return seen?.began === undefined || Math.abs(seen.began - startedAt) <= START_SLACK_MS;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `pid`'s state and when it began (ms, to the second), from `ps` (Linux and macOS alike); undefined when it cannot say. */
function psOf(pid: number): { zombie: boolean; began?: number } | undefined {
  try {
    const line = execFileSync('ps', ['-o', 'stat=,lstart=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, LC_ALL: 'C' } }).trim();
    const [, stat = '', lstart = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    const began = Date.parse(lstart);
    return { zombie: stat.startsWith('Z'), ...(Number.isNaN(began) ? {} : { began }) };
  } catch {
    return undefined;
  }
}
