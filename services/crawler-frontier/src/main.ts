// The crawler-frontier service: runs crawls (the crawl decider against the log), batch
// scrapes (the batch decider) and map jobs. All hand their pages to the one page pipeline
// (fetcher, transformer).
import { runService } from '../../../shared/src/infra/service.js';
import { startCrawlerFrontier } from './service.js';

await runService('crawler-frontier', startCrawlerFrontier);
