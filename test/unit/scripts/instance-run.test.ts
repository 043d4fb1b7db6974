// scripts/instance-run.ts: the supervisor's run id (the first part of every process's
// INSTANCE_ID) is kept in DATA_DIR for the next supervisor, but only once no process of
// the last run lives: two live processes must never share an id. Real processes.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { supervisorRun } from '../../../scripts/instance-run.js';

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
});
