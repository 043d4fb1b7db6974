// Every read model the projector maintains. A new one is a folder plus a line here.
import { apiKeysReadModel } from './api-keys/index.js';
import { scrapeJobsReadModel } from './scrape-jobs/index.js';
import type { AnyReadModel } from './types.js';

export const READ_MODELS: AnyReadModel[] = [apiKeysReadModel, scrapeJobsReadModel];
