// A tiny web site on 127.0.0.1 for tests: routes map a path to a body (or a handler), and
// every request is counted so tests can assert what was fetched and how often.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Route =
  | string
  | { body: string | Buffer; status?: number; contentType?: string; headers?: Record<string, string>; delayMs?: number }
  | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

export interface TestSite {
  origin: string;
  port: number;
  url(path: string): string;
  /** Number of requests per path (query string included). */
  hits: Map<string, number>;
  requests: { path: string; headers: http.IncomingHttpHeaders }[];
  route(path: string, route: Route): void;
  close(): Promise<void>;
}

export async function startSite(routes: Record<string, Route> = {}, host = '127.0.0.1'): Promise<TestSite> {
  const table = new Map<string, Route>(Object.entries(routes));
  const hits = new Map<string, number>();
  const requests: TestSite['requests'] = [];
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    requests.push({ path, headers: req.headers });
    const route = table.get(path) ?? table.get(path.split('?')[0] ?? path);
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body><h1>Not found</h1></body></html>');
      return;
    }
    if (typeof route === 'function') return route(req, res);
    const spec = typeof route === 'string' ? { body: route } : route;
    const send = (): void => {
      res.writeHead(spec.status ?? 200, { 'content-type': spec.contentType ?? 'text/html; charset=utf-8', ...spec.headers }).end(spec.body);
    };
    if (spec.delayMs) setTimeout(send, spec.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://${host}:${port}`;
  return {
    origin,
    port,
    url: (p) => `${origin}${p}`,
    hits,
    requests,
    route: (p, r) => { table.set(p, r); },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
