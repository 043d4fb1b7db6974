// Starts a real nats-server with JetStream on a free port and a temp store, for one test file.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { connect, type NatsConnection } from 'nats';

export interface NatsServerHandle {
  url: string;
  port: number;
  storeDir: string;
  stop(): Promise<void>;
  /** Kill and start again on the same port and store (restart tests). */
  restart(): Promise<void>;
  /** Kill only, keeping port and store, so a test can act while the server is down; `start` brings it back. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Sends the server a signal (SIGSTOP/SIGCONT: a server that stops answering, connections kept). */
  signal(sig: NodeJS.Signals): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

async function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = net.createServer();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/**
 * `count` consecutive free ports (for HEALTH_PORT, which `npm start` hands out as base + i).
 * Taken below the kernel's ephemeral range (32768+), where the ports other tests get from
 * freePort() live, so they cannot be handed to someone else in between.
 */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => canListen(base + i)));
    if (free.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => { sock.end(); resolve(true); });
      sock.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nats-server did not listen on ${port}`);
}

export async function startNatsServer(): Promise<NatsServerHandle> {
  const port = await freePort();
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-nats-'));
  let proc: ChildProcess;
  const launch = async (): Promise<void> => {
    proc = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', storeDir], { stdio: 'ignore' });
    await waitForPort(port);
  };
  const kill = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  };
  await launch();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    stop: async () => {
      await kill();
      fs.rmSync(storeDir, { recursive: true, force: true });
    },
    restart: async () => {
      await kill();
      await launch();
    },
    kill,
    start: launch,
    signal: (sig) => void proc.kill(sig),
  };
}

/**
 * A nats-server and a plain connection to it for the describe block this is called in:
 * started before the block's tests, closed and stopped after them. Call it first in the
 * block, so that the block's own hooks find them up (and have closed theirs) in time.
 */
export function natsPerSuite(): { readonly server: NatsServerHandle; readonly nc: NatsConnection } {
  const held = {} as { server: NatsServerHandle; nc: NatsConnection };
  before(async () => {
    held.server = await startNatsServer();
    held.nc = await connect({ servers: held.server.url });
  });
  after(async () => {
    await held.nc?.close();
    await held.server?.stop();
  });
  return held;
}
