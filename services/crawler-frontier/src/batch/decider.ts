// The batch scrape policy of the multi-page job decider (../job/decider.ts): the gateway
// records batch_requested with its pages already deduplicated; batch_started queues them in
// request order, and the job requests them under the same bounds as a crawl's pages. The
// batch ends COMPLETED when at least one page completed, FAILED when every page failed.
import type { BatchRequested } from '../../../../shared/src/domain/events/job.js';
import { jobDecider, jobState, type DecideContext, type JobCommand, type JobState } from '../job/decider.js';

export { isFinished, jobWebhookBody } from '../job/decider.js';
export type { DecideContext, Emitted, LogEvent } from '../job/decider.js';
export type BatchCommand = JobCommand;
export type BatchState = JobState<BatchRequested>;

export const batchDecider = jobDecider<BatchRequested, BatchState, DecideContext>({
  kind: 'batch',
  initialState: jobState<BatchRequested>,
  start: (s) => ({ ...s, queue: s.request!.pages.map((p) => ({ ...p, depth: 0 })) }),
  outcome: (s) => (s.completed === 0 ? { status: 'FAILED', reason: `all ${s.failed} pages failed` } : { status: 'COMPLETED' }),
  pageOptions: (r) => r.options,
  totalUrls: (s) => s.request!.pages.length,
});

export const { decide, evolve, initialState, rehydrate } = batchDecider;
