// Starts a baseline (the naive browser script dist/bench/baseline.js, or the no-browser
// HTTP crawler dist/bench/http-crawler.js) as its own process, samples its process tree
// (Node, and Chromium for the script) like the system's, and returns both.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BaselineInput, BaselineOutput } from '../baseline.js';
import type { HttpCrawlerInput, HttpCrawlerOutput } from '../http-crawler.js';
import { TreeSampler, type TreeUsage } from './proc.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface MeasuredRun<O> {
  output: O;
  /** CPU and memory of the baseline's process tree after its warm-up. */
  usage: TreeUsage;
}

export type BaselineRun = MeasuredRun<BaselineOutput>;
export type HttpCrawlerRun = MeasuredRun<HttpCrawlerOutput>;

export function runBaseline(input: BaselineInput): Promise<BaselineRun> {
  return runMeasured(path.join(here, '..', 'baseline.js'), 'BASELINE_READY', input); // baseline.ts writes it after launch and warm-up
}

export function runHttpCrawler(input: HttpCrawlerInput): Promise<HttpCrawlerRun> {
  return runMeasured(path.join(here, '..', 'http-crawler.js'), 'HTTP_CRAWLER_READY', input);
}

/** Runs `entry` with `input` on stdin; measures from `ready` on stderr to its one result line on stdout. */
async function runMeasured<O>(entry: string, ready: string, input: unknown): Promise<MeasuredRun<O>> {
  const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'] });
  let sampler: TreeSampler | undefined;
  let usage: TreeUsage | undefined;
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
    if (!sampler && stderr.includes(ready)) sampler = new TreeSampler(child.pid!).start();
  });
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    // Stop at the result line, while the tree is still alive (the script closes Chromium next).
    if (!usage && sampler && stdout.includes('\n')) usage = sampler.stop();
  });
  child.stdin.end(JSON.stringify(input));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0 || !usage) throw new Error(`${path.basename(entry)} exited with ${code}: ${stderr.trim()}`);
  return { output: JSON.parse(stdout.trim()) as O, usage };
}
