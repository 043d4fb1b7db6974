// The transform pool's gauges, read when Prometheus scrapes: how busy the threads are, how
// much waits, and how often a thread had to be stopped (a stall cut at its budget, a page
// that killed its thread, a preemption for another key, a recycle, a cancel). A rising
// trawl_transform_threads_stopped_budget is a tenant sending stalling pages or schemas.
import { observedGauge } from '../../../shared/src/infra/metrics.js';
import type { TransformPool } from './transform-pool.js';

export function observePool(pool: Pick<TransformPool, 'stats' | 'stoppedThreads' | 'threadHeapLimitBytes'>): void {
  observedGauge('trawl_transform_threads', 'Transform worker threads started', () => pool.stats().size);
  observedGauge('trawl_transform_threads_busy', 'Transform threads running a transform now', () => pool.stats().busy);
  observedGauge('trawl_transform_queued', 'Transforms waiting for a thread (all keys)', () => pool.stats().queued);
  // What one thread may hold: TRANSFORMER_MAX_HEAP_MB plus three TRANSFORMER_SEMI_SPACE_MB.
  observedGauge('trawl_transform_thread_heap_limit_bytes', 'V8 heap limit of a transform thread (old + young generation)', () => pool.threadHeapLimitBytes());
  for (const reason of ['budget', 'died', 'preempted', 'recycled', 'aborted'] as const) {
    observedGauge(`trawl_transform_threads_stopped_${reason}`, `Transform threads stopped since start: ${reason}`, () => pool.stoppedThreads()[reason]);
  }
}
