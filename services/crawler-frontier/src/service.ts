// The crawler-frontier on a connected service context: main.ts runs it in its own process,
// and `npm start`'s service host (scripts/service-host.ts) beside the other light services.
import type { RunningService, ServiceContext } from '../../../shared/src/infra/service.js';
import { startBatchWorker } from './batch/worker.js';
import { startCrawlWorker } from './crawl/worker.js';
import { startMapWorker } from './map/worker.js';
import { startMonitorScheduler } from './monitors/scheduler.js';

export async function startCrawlerFrontier(ctx: ServiceContext): Promise<RunningService> {
  const map = await startMapWorker(ctx);
  const crawl = await startCrawlWorker(ctx);
  const batch = await startBatchWorker(ctx);
  const monitors = await startMonitorScheduler(ctx);
  return {
    ready: async () => ({ ...(await map.ready?.()), ...(await crawl.ready?.()), ...(await batch.ready?.()) }),
    stop: async () => {
      await Promise.all([map.stop(), crawl.stop(), batch.stop(), monitors.stop()]);
    },
  };
}
