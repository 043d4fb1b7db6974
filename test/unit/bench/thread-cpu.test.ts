// The per-thread CPU sampler of the crawl probe: a service's threads by name, a thread that
// starts after the sampler counted from its start, and its CPU kept after it exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { ThreadCpu } from '../../../bench/lib/thread-cpu.js';

// A process named like the transformer's entry: its main thread spins ~300 ms, then a worker thread ~600 ms.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'thread-cpu-'));
const entry = path.join(dir, 'dist/services/transformer/src/main.mjs');
fs.mkdirSync(path.dirname(entry), { recursive: true });
fs.writeFileSync(entry, `
import { Worker } from 'node:worker_threads';
const spin = (ms) => { const end = performance.now() + ms; while (performance.now() < end); };
setTimeout(() => {
  spin(300);
  new Worker('const end = performance.now() + 600; while (performance.now() < end);', { eval: true }).on('exit', () => process.exit(0));
}, 300);
`);

describe('ThreadCpu', () => {
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('given a service whose worker thread starts and exits while sampled, then each thread name has its CPU, the exited one too', async () => {
    const child = spawn(process.execPath, [entry], { stdio: 'ignore' });
    await new Promise((resolve) => setTimeout(resolve, 150)); // the process is up, its worker not yet
    const sampler = new ThreadCpu(process.pid, ['transformer']).start(20);
    await new Promise((resolve) => child.on('exit', resolve));
    const byThread = sampler.stop();
    const worker = byThread['transformer:WorkerThread'] ?? 0;
    const main = byThread['transformer:MainThread'] ?? 0;
    // CPU time under load is at most the wall time spun; at least some of it on a 2-core machine.
    assert.ok(worker > 50 && worker <= 700, `worker thread ${worker} ms`);
    assert.ok(main > 50 && main < 1000, `main thread ${main} ms (its start-up before the sampler is not counted)`);
    assert.equal(Object.keys(byThread).some((k) => !k.startsWith('transformer:')), false);
  });
});
