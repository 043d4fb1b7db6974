// Runs autocannon as its own process (so the load generator's CPU is not the bench's, and
// not the system's) and reads its JSON result.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  durationSec?: number;
  /** Total requests instead of a duration. */
  amount?: number;
}

export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  total: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
}

function binary(): string {
  let dir = path.dirname(new URL(import.meta.url).pathname);
  while (!fs.existsSync(path.join(dir, 'node_modules/.bin/autocannon'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('node_modules/.bin/autocannon not found: npm install');
    dir = up;
  }
  return path.join(dir, 'node_modules/.bin/autocannon');
}

/** autocannon's -j output, reduced to what the report shows. */
export function parseAutocannon(json: string): LoadResult {
  const r = JSON.parse(json);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries<any>(r.statusCodeStats ?? {})) statusCodes[code] = stat.count;
  return {
    requestsPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    meanMs: r.latency.average,
    total: r.requests.total,
    non2xx: r.non2xx ?? 0,
    errors: r.errors ?? 0,
    timeouts: r.timeouts ?? 0,
    statusCodes,
  };
}

export async function runAutocannon(opts: LoadOptions): Promise<LoadResult> {
  const args = ['-j', '-n', '-c', String(opts.connections), '-m', opts.method ?? 'GET'];
  if (opts.amount !== undefined) args.push('-a', String(opts.amount));
  else args.push('-d', String(opts.durationSec ?? 10));
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (opts.body !== undefined) args.push('-b', opts.body);
  args.push(opts.url);
  const child = spawn(process.execPath, [binary(), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0 || !stdout.trim()) throw new Error(`autocannon exited with ${code}: ${stderr.trim()}`);
  return parseAutocannon(stdout.trim().split('\n').at(-1)!);
}
