// scripts/instance-run.ts: the supervisor's run id (the first part of every process's
// INSTANCE_ID) is kept in DATA_DIR for the next supervisor, but only once no process of
// the last run lives: two live processes must never share an id, told from the processes
// the supervisor recorded with when each began (where there is no /proc, as on macOS) and
// from every process's environment (where there is). Real processes.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { SupervisorRun, supervisorRun } from '../../../scripts/instance-run.js';

describe('the supervisor run id', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const dataDir = (): string => { const d = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-run-')); dirs.push(d); return d; };
  /** A live process, with `env` (kept until the test ends). */
  const live = (env: NodeJS.ProcessEnv = {}): ChildProcess => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { env: { ...process.env, ...env }, stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const record = (dir: string, run: string, pid: number): void => fs.writeFileSync(path.join(dir, 'supervisor-run.json'), JSON.stringify({ run, pid }));
  after(() => {
    for (const c of children) c.kill('SIGKILL');
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test('kept across supervisors on one DATA_DIR when nothing of the last one lives; under the operator\'s prefix', () => {
    const dir = dataDir();
    const first = supervisorRun(dir, undefined);
    assert.match(first, /^[0-9a-f]{8}$/);
    record(dir, first, 2 ** 22 + 1); // a supervisor that is gone (no such pid)
    assert.equal(supervisorRun(dir, undefined), first);
    const prefixed = supervisorRun(dir, 'node-a');
    assert.match(prefixed, /^node-a-[0-9a-f]{8}$/, 'a run of another prefix is not reused');
    assert.equal(supervisorRun(dir, 'node-a'), prefixed);
  });

  test('a fresh run while the last supervisor, or any process carrying its run, still lives', async () => {
    const dir = dataDir();
    const run = 'cafe0001';
    const supervisor = live();
    record(dir, run, supervisor.pid!);
    assert.notEqual(supervisorRun(dir, undefined), run, 'its supervisor lives');
    const orphan = live({ INSTANCE_ID: `${run}-projector-0` });
    await new Promise((r) => setTimeout(r, 200)); // the child's environment is in /proc once it runs
    record(dir, run, 2 ** 22 + 1);
    assert.notEqual(supervisorRun(dir, undefined), run, 'a projector of that run outlived its supervisor');
    orphan.kill('SIGKILL');
    await new Promise((r) => orphan.once('exit', r));
    record(dir, run, 2 ** 22 + 1);
    assert.equal(supervisorRun(dir, undefined), run, 'nothing of it lives any more');
  });

  test('without /proc (macOS): the processes the supervisor recorded, each with when it began', async () => {
    const noProc = { procDir: path.join(os.tmpdir(), 'no-such-proc') };
    const dir = dataDir();
    const run = 'beef0001';
    const gone = 2 ** 22 + 1;
    const write = (recorded: object): void => fs.writeFileSync(path.join(dir, 'supervisor-run.json'), JSON.stringify({ run, ...recorded }));
    write({ pid: gone, startedAt: Date.now() - 60_000, processes: [{ pid: gone + 1, startedAt: Date.now() - 60_000 }] });
    assert.equal(supervisorRun(dir, undefined, noProc), run, 'its supervisor and processes are gone');
    const startedAt = Date.now();
    const child = live({ INSTANCE_ID: `${run}-projector-0` });
    await new Promise((r) => setTimeout(r, 1_200)); // its start, as ps tells it, to the second
    write({ pid: gone, startedAt: startedAt - 60_000, processes: [{ pid: child.pid, startedAt }] });
    assert.notEqual(supervisorRun(dir, undefined, noProc), run, 'a process it started still runs');
    write({ pid: child.pid, startedAt, processes: [] });
    assert.notEqual(supervisorRun(dir, undefined, noProc), run, 'the supervisor itself still runs');
    write({ pid: gone, startedAt: startedAt - 60_000, processes: [{ pid: child.pid, startedAt: startedAt - 3_600_000 }] });
    assert.equal(supervisorRun(dir, undefined, noProc), run, 'its pid now belongs to a process that began later (after a reboot)');
    write({ pid: gone });
    assert.notEqual(supervisorRun(dir, undefined, noProc), run, 'a record without start stamps cannot tell');
  });

  test('a recorded process killed with its supervisor and not yet reaped (a zombie) is gone', async () => {
    const dir = dataDir();
    const run = 'dead0001';
    // A parent that forks a child which exits at once, and never waits for it: a zombie, as the
    // services of a SIGKILLed supervisor are until their new parent reaps them. (Not `sh -c
    // 'sleep 0 & exec sleep 60'`: sh may reap its job before the exec, and then no zombie is
    // left: CI 34.) Python leaves SIGCHLD at its default, so nothing reaps it.
    const parent = spawn('python3', ['-c', 'import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)'], { stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(parent);
    const zombie = Number.parseInt(await new Promise<string>((r) => parent.stdout!.once('data', (d) => r(String(d)))), 10);
    const state = (): string => fs.readFileSync(`/proc/${zombie}/stat`, 'utf8');
    for (let waitedMs = 0; waitedMs < 5_000 && !/^\d+ \(\S+\) Z /.test(state()); waitedMs += 50) await new Promise((r) => setTimeout(r, 50));
    assert.match(state(), /^\d+ \(python3\) Z /, 'the test made a zombie');
    fs.writeFileSync(path.join(dir, 'supervisor-run.json'), JSON.stringify({ run, pid: 2 ** 22 + 1, startedAt: Date.now() - 60_000, processes: [{ pid: zombie, startedAt: Date.now() }] }));
    assert.equal(supervisorRun(dir, undefined), run);
  });

  test('the supervisor records each process it starts until it exits', async () => {
    const dir = dataDir();
    const opened = SupervisorRun.open(dir, undefined);
    const recorded = (): { pid: number; processes: { pid: number; startedAt: number }[] } => JSON.parse(fs.readFileSync(path.join(dir, 'supervisor-run.json'), 'utf8'));
    assert.equal(recorded().pid, process.pid);
    const child = opened.track(live());
    assert.deepEqual(recorded().processes.map((p) => p.pid), [child.pid]);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.deepEqual(recorded().processes, []);
  });
});
