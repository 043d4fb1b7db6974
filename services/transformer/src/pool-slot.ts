// The transform pool's records (transform-pool.ts): a task, and a worker thread's slot.
import type { Worker } from 'node:worker_threads';
import type { TransformInput, TransformOutput } from './types.js';

export interface Task {
  id: number;
  input?: TransformInput;
  load?: () => Promise<TransformInput>;
  loading?: Promise<void>;
  key: string;
  heavy: boolean;
  budgetMs?: number;
  resolve: (output: TransformOutput) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export interface Slot {
  worker: Worker;
  task?: Task;
  budgetTimer?: NodeJS.Timeout;
  /** The thread has loaded its modules (its first message): a task's budget runs from then at the earliest. */
  ready?: boolean;
  /** The slot's task has been posted to the thread (its input loaded). */
  posted?: boolean;
  /** When its task started (preempt() stops the newest). */
  startedAt?: number;
  /** Being terminated (abort, budget, recycling): takes no work, replaced on exit. */
  stopping?: boolean;
  /** Pending retirement of an idle thread above idleThreads. */
  idleTimer?: NodeJS.Timeout;
}
