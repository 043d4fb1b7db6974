// Boots the whole system for an end-to-end test exactly as `npm start` does (the compiled
// supervisor: nats-server, six services, embedded store), on free ports and a temp
// DATA_DIR, with SSRF_ALLOW_CIDRS=127.0.0.0/8 so tests can scrape pages they serve.
// Needs a build (`npx tsc -p tsconfig.json`); `npm test` builds first.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './nats-server.js';

export interface SystemOptions {
  env?: Record<string, string>;
  /** Reuse a DATA_DIR (restart tests). */
  dataDir?: string;
  port?: number;
  /** Arguments of the supervisor, e.g. `--cluster --nats-nodes 3 --replicas 2` (npm run cluster). */
  args?: string[];
}

export interface TrawlSystem {
  baseUrl: string;
  apiKey: string;
  dataDir: string;
  port: number;
  /** The supervisor's pid (nats-server and the services are its children). */
  pid: number;
  /** Authenticated JSON request; returns status, headers and parsed body. */
  api<T = any>(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  /**
   * GET urlPath (a job) until `done(body)` or the timeout; returns that body. Each GET is a
   * long-poll (`waitMs` up to `stepMs`, default 20 s): it answers when the job finishes, so
   * waiting for a final state costs a request or two, not one per 100 ms (every request
   * counts against the key's rate limit). For a state before the end (PROCESSING), pass a
   * short `stepMs`: the state is then looked at that often. A 429 waits its Retry-After.
   * `headers` (another key's authorization) go with every GET.
   */
  poll<T = any>(urlPath: string, done: (body: T) => boolean, timeoutMs?: number, opts?: { stepMs?: number; headers?: Record<string, string> }): Promise<T>;
  logs(): string;
  /** The supervisor's exit code once it has exited (null while it runs or if a signal ended it). */
  exitCode(): number | null;
  /** Graceful stop (SIGTERM to the supervisor) and removal of the data dir unless keepData. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
  /** SIGKILL to every process of the system at once (a crash). */
  kill(): Promise<void>;
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

const root = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

export const TEST_API_KEY = 'test_key_0123456789abcdef';
export const OTHER_API_KEY = 'other_key_0123456789abcdef';

export async function startSystem(opts: SystemOptions = {}): Promise<TrawlSystem> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-e2e-'));
  const port = opts.port ?? await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let output = '';
  const proc: ChildProcess = spawn(process.execPath, [path.join(root, 'dist/scripts/start.js'), ...(opts.args ?? [])], {
    cwd: root,
    detached: true, // its own process group, so kill() reaches nats-server and every service
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      BOOTSTRAP_API_KEYS: `${TEST_API_KEY}:team,${OTHER_API_KEY}:team`,
      SSRF_ALLOW_CIDRS: '127.0.0.0/8',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
      // The services' lines in logs() beside the supervisor's (npm start's default is a file).
      SERVICE_LOGS: 'stdout',
      // A stop with a page still loading hands it back after 1 s, not after npm start's 10 s
      // (a test's after() or a restart on the same data waited the whole grace for a slow page).
      STOP_GRACE_MS: '1000',
      ...opts.env,
    },
  });
  const append = (d: Buffer): void => { output = (output + d.toString()).slice(-200_000); };
  proc.stdout?.on('data', append);
  proc.stderr?.on('data', append);

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`system did not start in 90 s:\n${output.slice(-5000)}`)), 90_000);
    const check = (): void => {
      if (output.includes('Trawl is running')) { clearTimeout(timer); resolve(); }
    };
    proc.stdout?.on('data', check);
    proc.once('exit', (code) => { clearTimeout(timer); reject(new Error(`supervisor exited with ${code}:\n${output.slice(-5000)}`)); });
  });

  const api = async <T>(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> => {
    const res = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed as T };
  };

  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  return {
    baseUrl,
    apiKey: TEST_API_KEY,
    dataDir,
    port,
    pid: proc.pid!,
    api,
    poll: async <T>(urlPath: string, done: (body: T) => boolean, timeoutMs = 60_000, { stepMs = 20_000, headers }: { stepMs?: number; headers?: Record<string, string> } = {}): Promise<T> => {
      const deadline = Date.now() + timeoutMs;
      let last: T | undefined;
      while (Date.now() < deadline) {
        const waitMs = Math.max(0, Math.min(stepMs, deadline - Date.now()));
        const asked = Date.now();
        const res = await api<T>('GET', `${urlPath}${urlPath.includes('?') ? '&' : '?'}waitMs=${waitMs}`, undefined, headers).catch((err: unknown) => {
          // A gateway restarting under the supervisor (a test killed it) refuses connections for seconds: asked again.
          if ((err as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED') return undefined;
          throw err;
        });
        if (!res) { await sleep(250); continue; }
        last = res.body;
        if (res.status === 200 && done(res.body)) return res.body;
        if (res.status === 429) {
          await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
        } else if (Date.now() - asked < waitMs - 50) {
          // Answered before its deadline (finished, or an error) yet not what we wait for.
          await sleep(250);
        }
      }
      throw new Error(`timed out polling ${urlPath}; last: ${JSON.stringify(last)?.slice(0, 2000)}\nlogs:\n${output.slice(-4000)}`);
    },
    logs: () => output,
    exitCode: () => proc.exitCode,
    stop: async ({ keepData = false } = {}) => {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        await exited;
      }
      if (!keepData && !opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
    kill: async () => {
      try { process.kill(-proc.pid!, 'SIGKILL'); } catch { /* already gone */ }
      await exited;
      // Give the kernel a moment to release the ports and the store lock.
      await new Promise((r) => setTimeout(r, 300));
    },
  };
}
