// The crawler-frontier service: runs crawls (the crawl decider against the log) and map
// jobs. Both hand their pages to the one page pipeline (fetcher, transformer).
import { runService } from '../../../shared/src/service.js';
import { startCrawlWorker } from './crawl/worker.js';
import { startMapWorker } from './map/worker.js';

await runService('crawler-frontier', async (ctx) => {
  const map = await startMapWorker(ctx);
  const crawl = await startCrawlWorker(ctx);
  return {
    ready: async () => ({ ...(await map.ready?.()), ...(await crawl.ready?.()) }),
    stop: async () => {
      await Promise.all([map.stop(), crawl.stop()]);
    },
  };
});
