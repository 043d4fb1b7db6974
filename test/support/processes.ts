// The processes of this machine as /proc shows them, for tests about process lifetimes
// (a browser that must die with its fetcher, a nats-server the supervisor restarts).
import fs from 'node:fs';

export interface Proc {
  pid: number;
  ppid: number;
  /** R, S, D, T (stopped), Z (exited, not yet reaped)... */
  state: string;
  cmdline: string;
}

export function proc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(ppid), state: state ?? '?', cmdline: fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() };
  } catch {
    return undefined; // it ended while we looked
  }
}

export function processes(): Proc[] {
  return fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map((e) => proc(Number(e))).filter((p): p is Proc => p !== undefined);
}

/** Every live descendant of `root` (not root itself). */
export function descendants(root: number, all: Proc[] = processes()): Proc[] {
  const mine = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const p of all) {
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => p.pid !== root && mine.has(p.pid) && p.state !== 'Z');
}

/** Running or stopped: a zombie has exited and only waits to be reaped. */
export function alive(pid: number): boolean {
  const p = proc(pid);
  return p !== undefined && p.state !== 'Z' && p.state !== 'X';
}
