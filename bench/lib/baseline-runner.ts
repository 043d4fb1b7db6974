// Starts the naive baseline (dist/bench/baseline.js) as its own process, samples its
// process tree (Node + Chromium) like the system's, and returns both.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BaselineInput, BaselineOutput } from '../baseline.js';
import { TreeSampler, type TreeUsage } from './proc.js';

const entry = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'baseline.js');
const READY = 'BASELINE_READY'; // baseline.ts writes it to stderr after launch and warm-up

export interface BaselineRun {
  output: BaselineOutput;
  /** CPU and memory of the baseline's process tree (Node + Chromium) after its warm-up. */
  usage: TreeUsage;
}

export async function runBaseline(input: BaselineInput): Promise<BaselineRun> {
  const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'] });
  let sampler: TreeSampler | undefined;
  let usage: TreeUsage | undefined;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
    if (!sampler && stderr.includes(READY)) sampler = new TreeSampler(child.pid!).start();
  });
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    // Stop at the result line, while the tree is still alive (it closes Chromium next).
    if (!usage && sampler && stdout.includes('\n')) usage = sampler.stop();
  });
  child.stdin.end(JSON.stringify(input));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0 || !usage) throw new Error(`baseline exited with ${code}: ${stderr.trim()}`);
  return { output: JSON.parse(stdout.trim()) as BaselineOutput, usage };
}
