// The transform pool's options (transform-pool.ts): the pool's own, and each run's.
import type { ResourceLimits } from 'node:worker_threads';
import { TRANSFORMER_DEFAULTS } from '../../../shared/src/infra/config.js';
import type { TransformInput } from './types.js';

export interface TransformPoolOptions {
  /** Number of worker threads at most (at least 1). */
  size: number;
  /**
   * Threads kept while there is no work (default: size). Threads above it are started when
   * work queues up and stop after `idleTimeoutMs` without work: each holds its own V8 heap.
   */
  idleThreads?: number;
  idleTimeoutMs?: number;
  /** V8 old-generation limit per worker; a page that needs more fails alone. */
  maxOldGenerationSizeMb?: number;
  /** V8 semi-space per worker (its young generation is three of them; default TRANSFORMER_DEFAULTS.semiSpaceMb). */
  semiSpaceMb?: number;
  /** A key's share of the threads (default: size - 1, at least 1); alone, a key may use more (transform-pool.ts). */
  threadsPerKey?: number;
  /**
   * A spare thread (size + 1) is kept warm for another key's page while a key runs over its
   * share and at least two keys gave work within this window (default 10 minutes).
   */
  sharedWindowMs?: number;
  /** `heavy` transforms (documents) running at once at most. */
  heavyThreads?: number;
  /** A worker holding more than this (MiB of V8 heap + external memory) after a transform is replaced. */
  recycleAboveMb?: number;
}

export interface TransformRunOptions {
  /** Cancels the transform (queued: removed; running: its thread terminated). */
  signal?: AbortSignal;
  /** Fairness key (the API key): queues are served round-robin by key, threads shared by key (none without one). */
  key?: string;
  /** Running time at most; past it the thread is terminated and the run fails with TransformTimeoutError. */
  budgetMs?: number;
  /** A document parse: bounded by heavyThreads, a dead worker means DocumentTooComplexError. */
  heavy?: boolean;
}

/**
 * What to transform, or how to get it: a loader runs only when a thread takes the task, so
 * documents waiting for a thread hold no bytes (a transformer prefetches many messages).
 */
export type TransformSource = TransformInput | (() => Promise<TransformInput>);

/** Each worker's V8 heap limits; a young generation is two semi-spaces and a large-object space of one. */
export function workerResourceLimits(opts: Pick<TransformPoolOptions, 'maxOldGenerationSizeMb' | 'semiSpaceMb'>): ResourceLimits {
  return {
    maxOldGenerationSizeMb: opts.maxOldGenerationSizeMb ?? TRANSFORMER_DEFAULTS.maxHeapMb,
    maxYoungGenerationSizeMb: 3 * (opts.semiSpaceMb ?? TRANSFORMER_DEFAULTS.semiSpaceMb),
  };
}
