// /healthz (the process is alive) and /readyz (its dependencies answer) for Kubernetes
// probes, and /metrics for Prometheus. Every service serves these on its own small server
// (HEALTH_PORT); the gateway also mounts the two probes, not the metrics, on its API port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { renderMetrics } from './metrics.js';

export type ReadinessCheck = () => Promise<Record<string, boolean>>;

export async function readiness(check: ReadinessCheck): Promise<{ ready: boolean; checks: Record<string, boolean> }> {
  let checks: Record<string, boolean>;
  try {
    checks = await check();
  } catch {
    checks = { check: false };
  }
  return { ready: Object.values(checks).every(Boolean), checks };
}

export async function startHealthServer(host: string, port: number, check: ReadinessCheck): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.url === '/healthz') return reply(200, { status: 'ok' });
    if (req.url === '/metrics') {
      void renderMetrics().then(
        ({ contentType, body }) => { res.writeHead(200, { 'content-type': contentType }).end(body); },
        (err: unknown) => { res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err)); },
      );
      return;
    }
    if (req.url === '/readyz') {
      void readiness(check).then(({ ready, checks }) => reply(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', checks }));
      return;
    }
    reply(404, { status: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
