// CPU per thread of the services under a process tree, from /proc/<pid>/task/<tid>/stat
// (Linux only): the transformer's main thread (NATS, Object Store, events), its transform
// threads ("WorkerThread") and V8's helper threads ("V8Worker": parallel and concurrent GC,
// background compilation), and the same for the fetcher. Threads come and go (a transform
// thread retires when idle), so each is read every `intervalMs` and its last reading kept.
import fs from 'node:fs';
import { clockTicks, classify, descendants, readAllStats } from './proc.js';
import { parseStat } from './proc-stat.js';

export class ThreadCpu {
  /** Last CPU reading in ms per `<service>:<thread name>/<tid>`, since the sampler started. */
  private readonly last = new Map<string, number>();
  private readonly first = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private sampled = false;

  constructor(private readonly rootPid: number, private readonly services: readonly string[] = ['transformer', 'fetcher']) {}

  start(intervalMs = 250): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    return this;
  }

  /** CPU ms since start() per `<service>:<thread name>` (threads of one name summed). */
  stop(): Record<string, number> {
    clearInterval(this.timer);
    this.sample();
    const out: Record<string, number> = {};
    for (const [key, ms] of this.last) {
      const name = key.slice(0, key.lastIndexOf('/'));
      out[name] = (out[name] ?? 0) + ms - (this.first.get(key) ?? 0);
    }
    return out;
  }

  private sample(): void {
    const stats = readAllStats();
    const parentOf = new Map([...stats.values()].map((s) => [s.pid, s.ppid] as const));
    for (const pid of descendants(this.rootPid, parentOf)) {
      const cmdline = readOr(`/proc/${pid}/cmdline`)?.replaceAll('\0', ' ') ?? '';
      const { name } = classify(cmdline);
      if (!this.services.includes(name)) continue;
      let tids: string[] = [];
      try {
        tids = fs.readdirSync(`/proc/${pid}/task`);
      } catch {
        continue; // exited between the readings
      }
      for (const tid of tids) {
        const text = readOr(`/proc/${pid}/task/${tid}/stat`);
        if (!text) continue;
        const stat = parseStat(text);
        // A thread's own time: utime + stime (a thread reaps no children).
        const ms = ((stat.cpuTicks - stat.childTicks) * 1000) / clockTicks();
        const key = `${name}:${stat.comm}/${pid}.${tid}`;
        // A thread there at start() counts from its reading then; a later one from its start.
        if (!this.first.has(key)) this.first.set(key, this.sampled ? 0 : ms);
        this.last.set(key, ms);
      }
    }
    this.sampled = true;
  }
}

function readOr(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
