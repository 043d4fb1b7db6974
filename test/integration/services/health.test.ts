// Every worker serves /healthz, /readyz and /metrics on HEALTH_PORT for Kubernetes probes
// and Prometheus; readiness follows the NATS connection; SIGTERM stops the process cleanly
// (exit 0).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { until } from '../../support/wait.js';

const root = process.cwd();

describe('worker health endpoints', () => {
  let nats: NatsServerHandle;
  let proc: ChildProcess;
  let port: number;
  let dir: string;

  let output = '';

  before(async () => {
    nats = await startNatsServer();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-health-'));
    // HEALTH_PORT 0 and the port read from the service's own "started" line: a port picked
    // free beforehand can be taken by another test's service in between, and then the
    // probes below would be answered by that process.
    proc = spawn(process.execPath, [path.join(root, 'dist/services/projector/src/main.js')], {
      env: { ...process.env, NATS_URL: nats.url, HEALTH_PORT: '0', DATA_DIR: dir, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    proc.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
    proc.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    await until(() => /"healthPort":(\d+)/.test(output), { timeoutMs: 20_000 });
    port = Number(/"healthPort":(\d+)/.exec(output)![1]);
  });
  after(async () => {
    if (proc.exitCode === null) proc.kill('SIGKILL');
    await nats.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('/healthz and /readyz answer, readiness follows NATS, SIGTERM exits 0', async () => {
    const url = `http://127.0.0.1:${port}`;
    await until(async () => (await fetch(`${url}/readyz`)).status === 200, { timeoutMs: 20_000 });
    assert.deepEqual(await (await fetch(`${url}/healthz`)).json(), { status: 'ok' });
    const ready = await (await fetch(`${url}/readyz`)).json();
    assert.deepEqual(ready.checks, { nats: true, store: true });
    const metrics = await fetch(`${url}/metrics`);
    assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    assert.match(text, /# TYPE trawl_projector_applied_seq gauge/);
    assert.match(text, /trawl_projector_lag_events\{service="projector"\} 0\b/);
    assert.match(text, /trawl_process_cpu_seconds_total\{service="projector"\} [\d.]+/);

    await nats.restart(); // a blip: not ready while disconnected, ready again after
    await until(async () => (await fetch(`${url}/readyz`)).status === 200, { timeoutMs: 20_000 });

    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    proc.kill('SIGTERM');
    assert.equal(await exited, 0, `the projector's output:\n${output.slice(-4000)}`);
  });
});
