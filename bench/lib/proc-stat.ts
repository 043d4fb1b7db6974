// One process's line of /proc/<pid>/stat: the reading both the tree sampler (proc.ts) and
// the exited-CPU accounting (exited-cpu.ts) are built on.

export interface ProcStat {
  pid: number;
  comm: string;
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  cpuTicks: number;
  /** cutime + cstime: the CPU of reaped children, in clock ticks. */
  childTicks: number;
  /** When the process started (clock ticks after boot): a reused pid has another. */
  startTime: number;
}

/** Parses /proc/<pid>/stat. The command name may hold spaces and parentheses, so fields are counted from the last ')'. */
export function parseStat(text: string): ProcStat {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) throw new Error(`not a /proc stat line: ${text.slice(0, 80)}`);
  const pid = Number(text.slice(0, open).trim());
  const comm = text.slice(open + 1, close);
  // Fields after the name start at field 3 (state): ppid is field 4, utime..cstime 14..17.
  const rest = text.slice(close + 2).trim().split(/\s+/);
  const field = (n: number): number => Number(rest[n - 3]);
  return { pid, comm, ppid: field(4), cpuTicks: field(14) + field(15) + field(16) + field(17), childTicks: field(16) + field(17), startTime: field(22) };
}
