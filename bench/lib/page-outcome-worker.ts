// One shard of the page-outcome run on the dev sets, in a worker thread (runOutcomeDevInThreads).
import { parentPort, workerData } from 'node:worker_threads';
import { outcomeDevPages, runOutcomeDev, type Shard } from './page-outcome.js';

parentPort!.postMessage(runOutcomeDev(outcomeDevPages(workerData as Shard)));
