// One shard of the page-outcome run on the dev sets, in a worker thread (runOutcomeDevInThreads).
import { parentPort, workerData } from 'node:worker_threads';
import { outcomeDevPages, runOutcomeDev, type OutcomeDevJob } from './page-outcome.js';

const job = workerData as OutcomeDevJob;
parentPort!.postMessage(runOutcomeDev(outcomeDevPages(job.shard, job.options.wcxbEvery), job.options));
