// The batch worker: the job runner (../job/runner.ts) with the batch policy.
import type { RunningService, ServiceContext } from '../../../../shared/src/infra/service.js';
import { startJobWorker, type JobRunnerOptions, type JobSpec } from '../job/runner.js';
import { batchDecider, type BatchState, type DecideContext } from './decider.js';

export const batchJob: JobSpec<BatchState, DecideContext> = {
  kind: 'batch',
  decider: batchDecider,
  failedBy: 'the batch worker',
  durable: 'crawler-frontier-batch',
};

export function startBatchWorker(ctx: ServiceContext, options: JobRunnerOptions = {}): Promise<RunningService> {
  return startJobWorker(ctx, batchJob, { maxInFlight: ctx.config.batchMaxInFlight, ...options });
}
