// The crawler-frontier service: runs crawls (the crawl decider against the log), batch
// scrapes (the batch decider) and map jobs. All hand their pages to the one page pipeline
// (fetcher, transformer).
import { runService } from '../../../shared/src/service.js';
import { startBatchWorker } from './batch/worker.js';
import { startCrawlWorker } from './crawl/worker.js';
import { startMapWorker } from './map/worker.js';

await runService('crawler-frontier', async (ctx) => {
  const map = await startMapWorker(ctx);
  const crawl = await startCrawlWorker(ctx);
  const batch = await startBatchWorker(ctx);
  return {
    ready: async () => ({ ...(await map.ready?.()), ...(await crawl.ready?.()), ...(await batch.ready?.()) }),
    stop: async () => {
      await Promise.all([map.stop(), crawl.stop(), batch.stop()]);
    },
  };
});
