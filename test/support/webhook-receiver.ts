// A webhook receiver for tests: records every delivery per path, and can answer with an
// error for the first N deliveries to a path (to exercise retries).
import type http from 'node:http';
import { startSite, type TestSite } from './site.js';

export interface ReceivedHook {
  headers: Record<string, string>;
  body: string;
}

export interface WebhookReceiver {
  site: TestSite;
  url(path: string): string;
  /** Deliveries per path, in arrival order. */
  received: Map<string, ReceivedHook[]>;
  /** Path -> how many first deliveries are answered with `failStatus`. */
  failFirst: Map<string, number>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(paths: string[], failStatus = 500): Promise<WebhookReceiver> {
  const site = await startSite();
  const received = new Map<string, ReceivedHook[]>();
  const failFirst = new Map<string, number>();
  const receive = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const path = req.url ?? '/';
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const list = received.get(path) ?? [];
      list.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString() });
      received.set(path, list);
      res.writeHead(list.length <= (failFirst.get(path) ?? 0) ? failStatus : 200).end();
    });
  };
  for (const p of paths) site.route(p, receive);
  return { site, url: (p) => site.url(p), received, failFirst, close: () => site.close() };
}
