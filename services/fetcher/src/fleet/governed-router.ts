// The engine router behind the fleet's host governor: a bulk page (crawl, batch) waits for
// its host's place and pace across every fetcher replica, and its answer (429/503 with
// Retry-After, or a success) is reported back. Interactive pages (scrape, map: a user is
// waiting) go straight through, as they do past the per-process host bound (slots.ts).
import type { EngineRouter, RoutedPage } from '../engine/engine-router.js';
import type { HostGovernor } from './host-governor.js';

type Router = Pick<EngineRouter, 'fetch'>;

export function governedRouter(router: Router, governor: HostGovernor): Router {
  return {
    // Waiting here is covered by the message's one heartbeat (the consumer's).
    async fetch(kind, url, options, ctx, conditional): Promise<RoutedPage> {
      if (ctx.priority !== 'bulk') return router.fetch(kind, url, options, ctx, conditional);
      const host = new URL(url).host;
      const leave = await governor.enter(host, ctx.signal, ctx.receivedAt);
      const startedAt = Date.now();
      try {
        const page = await router.fetch(kind, url, options, ctx, conditional);
        await governor.report(host, page.statusCode, page.outcomeHeaders?.['retry-after'], startedAt).catch(() => undefined);
        return page;
      } finally {
        await leave();
      }
    },
  };
}
