// Every read model the projector maintains. A new one is a folder plus a line here.
import { apiKeysReadModel } from './api-keys/index.js';
import { batchJobsReadModel } from './batch-jobs/index.js';
import { batchPagesReadModel } from './batch-pages/index.js';
import { crawlJobsReadModel } from './crawl-jobs/index.js';
import { crawlPagesReadModel } from './crawl-pages/index.js';
import { keyUsageReadModel } from './key-usage/index.js';
import { scrapeCacheReadModel } from './scrape-cache/index.js';
import { scrapeJobsReadModel } from './scrape-jobs/index.js';
import { accountsReadModel } from './accounts/index.js';
import { invitesReadModel } from './invites/index.js';
import { sessionsReadModel } from './sessions/index.js';
import { keyDailyPagesReadModel } from './key-daily-pages/index.js';
import { mapJobsReadModel } from './map-jobs/index.js';
import type { AnyReadModel } from './types.js';

// Order matters where one model reads another: key-usage finds a job's key in the job's own model.
export const READ_MODELS: AnyReadModel[] = [apiKeysReadModel, scrapeJobsReadModel, scrapeCacheReadModel, crawlJobsReadModel, crawlPagesReadModel, batchPagesReadModel, batchJobsReadModel, keyUsageReadModel,
  accountsReadModel, invitesReadModel, sessionsReadModel, keyDailyPagesReadModel, mapJobsReadModel];
