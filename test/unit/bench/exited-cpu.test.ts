// The sampler's account of processes that leave the tree: CPU reaped by a parent in the tree
// is not counted twice, CPU that leaves with orphans reaped outside is added back.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ExitedCpu } from '../../../bench/lib/exited-cpu.js';
import type { ProcStat } from '../../../bench/lib/proc.js';

const proc = (pid: number, ppid: number, own: number, children = 0): ProcStat =>
  ({ pid, comm: 'p', ppid, cpuTicks: own + children, childTicks: children, startTime: pid * 10 });
const table = (...procs: ProcStat[]): Map<number, ProcStat> => new Map([[1, proc(1, 0, 0)], ...procs.map((p) => [p.pid, p] as const)]);
const lost = (e: ExitedCpu): number => [...e.lostTicksByName.values()].reduce((a, b) => a + b, 0);
const name = (pid: number): string => (pid >= 20 ? 'chromium' : 'service');

describe('CPU of exited processes', () => {
  test('given a child reaped by its parent in the tree, when it vanishes, then nothing is added (the parent cutime has it)', () => {
    const e = new ExitedCpu();
    e.update(10, table(proc(10, 1, 5), proc(20, 10, 30)), name);
    const members = e.update(10, table(proc(10, 1, 6, 32)), name);
    assert.deepEqual([...members], [10]);
    assert.equal(lost(e), 0);
  });

  test('given a browser killed with its children orphaned, when they are reaped outside the tree, then their CPU is added back', () => {
    const e = new ExitedCpu();
    // fetcher 10 -> browser 20 -> zygote 21 -> renderer 22
    e.update(10, table(proc(10, 1, 5), proc(20, 10, 40), proc(21, 20, 2), proc(22, 21, 100)), name);
    // The browser is killed and reaped by the fetcher; the zygote and renderer now belong to init.
    const members = e.update(10, table(proc(10, 1, 5, 41), proc(21, 1, 2), proc(22, 21, 110)), name);
    assert.deepEqual([...members].sort(), [10, 21, 22], 'orphans are still followed');
    assert.equal(lost(e), 0);
    // Then init reaps them: what they used leaves the tree.
    e.update(10, table(proc(10, 1, 5, 41)), name);
    assert.equal(lost(e), 112);
    assert.equal(e.lostTicksByName.get('chromium'), 112);
  });

  test('given a process and its parent gone together, when the grandparent reaped the parent with the child, then only the shortfall is added', () => {
    const e = new ExitedCpu();
    e.update(10, table(proc(10, 1, 5), proc(20, 10, 10), proc(21, 20, 50)), name);
    // The parent reaped the child (its cutime 50) and was reaped by 10: 10 gained 60, all of it.
    e.update(10, table(proc(10, 1, 5, 60)), name);
    assert.equal(lost(e), 0);
    // Another pair where the grandparent gains only the parent's own time: the child was orphaned.
    e.update(10, table(proc(10, 1, 5, 60), proc(30, 10, 10), proc(31, 30, 50)), name);
    e.update(10, table(proc(10, 1, 5, 70)), name);
    assert.equal(lost(e), 50);
  });

  test('given a pid reused by a new process, then the old one counts as gone', () => {
    const e = new ExitedCpu();
    e.update(10, table(proc(10, 1, 5), proc(20, 1, 0)), name);
    e.update(10, table(proc(10, 1, 5), proc(25, 10, 7)), name);
    const reused = { ...proc(25, 1, 1), startTime: 9999 };
    const members = e.update(10, table(proc(10, 1, 5), reused), name);
    assert.deepEqual([...members], [10]);
    assert.equal(lost(e), 7);
  });
});
