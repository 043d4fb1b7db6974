// The run part of every process's INSTANCE_ID under one supervisor (`<run>-<service>-<slot>`),
// kept in DATA_DIR across supervisor restarts: when the whole supervisor died (killed,
// crashed, the machine rebooted), its processes come back under their old ids and take back
// their projector partition leases and fleet host slots at once, instead of waiting out
// their TTLs (10-12 s) under new ids. Two live processes must never share an id (two
// projectors would both hold a partition), so the run is reused only when the supervisor
// that last used it and every process that carries it are gone; otherwise, and where
// /proc cannot tell, the run is a fresh random one, as before.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const FILE = 'supervisor-run.json';

interface Recorded { run: string; pid: number }

/** The run for this supervisor (`prefix` is the operator's own INSTANCE_ID, if any). */
export function supervisorRun(dataDir: string, prefix: string | undefined): string {
  const file = path.join(dataDir, FILE);
  const previous = read(file);
  const fresh = `${prefix ? `${prefix}-` : ''}${randomBytes(4).toString('hex')}`;
  const run = previous && previous.run.startsWith(prefix ? `${prefix}-` : '') && !inUse(previous) ? previous.run : fresh;
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ run, pid: process.pid } satisfies Recorded));
  return run;
}

function read(file: string): Recorded | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Recorded>;
    return typeof parsed.run === 'string' && /^[A-Za-z0-9_-]+$/.test(parsed.run) && typeof parsed.pid === 'number' ? { run: parsed.run, pid: parsed.pid } : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the recorded supervisor or any process carrying its run may still live (true when unsure). */
function inUse({ run, pid }: Recorded): boolean {
  if (pid !== process.pid && alive(pid)) return true;
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return true; // no /proc (macOS): no way to know that none lives
  }
  const mark = `INSTANCE_ID=${run}-`;
  return entries.some((e) => {
    try {
      return fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0').some((v) => v.startsWith(mark));
    } catch {
      return false; // gone meanwhile, or another user's (no Trawl process of ours)
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
