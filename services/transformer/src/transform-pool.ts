// A fixed pool of worker threads running transformPage, so that parsing and converting a
// large page (tens to hundreds of milliseconds of CPU) never blocks the service's event
// loop, where NATS heartbeats and JetStream acks must keep flowing.
//
// Behaviour:
//   - `size` workers, each doing one transform at a time; extra calls wait in a FIFO queue.
//   - A transform that throws rejects with an Error carrying the message (ValidationError /
//     InvalidUrlError are rebuilt with their class and field, so callers can map them).
//   - A worker that dies (uncaught error, out of memory past `maxOldGenerationSizeMb`)
//     rejects only its own task and is replaced; queued work continues on the new worker.
//   - An aborted signal rejects with the signal's reason: a queued task leaves the queue, a
//     running one has its worker terminated (the only way to stop synchronous CPU work) and
//     replaced.
//   - close() rejects queued and running tasks and terminates every worker.
import { Worker } from 'node:worker_threads';
import {
  DocumentEncryptedError, DocumentParseTimeoutError, DocumentTooLargeError, DocumentUnreadableError, InvalidUrlError, ValidationError,
} from '../../../shared/src/errors.js';
import type { TransformInput, TransformOutput } from './types.js';

export interface TransformPoolOptions {
  /** Number of worker threads at most (at least 1). */
  size: number;
  /**
   * Threads kept while there is no work (default: size). Threads above it are started when
   * work queues up and stop after `idleTimeoutMs` without work: each holds its own V8 heap.
   */
  idleThreads?: number;
  idleTimeoutMs?: number;
  /** V8 old-generation limit per worker; a page that needs more fails alone. Default 1024. */
  maxOldGenerationSizeMb?: number;
}

export interface WorkerRequest {
  id: number;
  input: TransformInput;
}
export type WorkerReply =
  | { id: number; ok: true; output: TransformOutput }
  | { id: number; ok: false; error: { name: string; message: string; field?: string } };

interface Task {
  id: number;
  input: TransformInput;
  resolve: (output: TransformOutput) => void;
  reject: (err: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  task?: Task;
  /** Being terminated (abort): takes no work, replaced on exit. */
  stopping?: boolean;
  /** Pending retirement of an idle thread above idleThreads. */
  idleTimer?: NodeJS.Timeout;
}

const DEFAULT_MAX_OLD_GENERATION_MB = 1024;
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
const RESTART_AFTER_FAILED_START_MS = 1000;

// Compiled: transform-thread.js beside this file. Under tsx (tests, dev): the .ts source,
// which the worker can load because it inherits tsx's loader through process.execArgv.
const THREAD_URL = new URL(`./transform-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

export class TransformPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly maxOldGenerationSizeMb: number;
  private readonly size: number;
  private readonly idleThreads: number;
  private readonly idleTimeoutMs: number;
  private nextId = 1;
  private closed = false;

  constructor(opts: TransformPoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new RangeError(`TransformPool size must be an integer >= 1, got ${opts.size}`);
    this.maxOldGenerationSizeMb = opts.maxOldGenerationSizeMb ?? DEFAULT_MAX_OLD_GENERATION_MB;
    this.size = opts.size;
    this.idleThreads = Math.min(opts.size, Math.max(1, opts.idleThreads ?? opts.size));
    this.idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    for (let i = 0; i < this.idleThreads; i++) this.slots.push(this.spawn());
  }

  /** Workers, transforms running now, transforms waiting (health checks, tests, metrics). */
  stats(): { size: number; busy: number; queued: number } {
    return { size: this.slots.length, busy: this.slots.filter((s) => s.task).length, queued: this.queue.length };
  }

  run(input: TransformInput, signal?: AbortSignal): Promise<TransformOutput> {
    if (this.closed) return Promise.reject(new Error('TransformPool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<TransformOutput>((resolve, reject) => {
      const task: Task = { id: this.nextId++, input, resolve, reject, signal };
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.queue.push(task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new Error('TransformPool is closed');
    for (const task of this.queue.splice(0)) this.settle(task, () => task.reject(error));
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.idleTimer);
        const task = slot.task;
        slot.task = undefined;
        if (task) this.settle(task, () => task.reject(error));
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(THREAD_URL, { resourceLimits: { maxOldGenerationSizeMb: this.maxOldGenerationSizeMb } });
    const slot: Slot = { worker };
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    // 'error' (an uncaught exception, out of memory) is always followed by 'exit'.
    let crash: Error | undefined;
    let online = false;
    worker.once('online', () => {
      online = true;
    });
    worker.on('error', (err) => {
      crash = err;
    });
    worker.on('exit', (code) => this.onExit(slot, code, crash, online));
    return slot;
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.task || slot.stopping) continue;
      const task = this.queue.shift();
      if (!task) break;
      this.give(slot, task);
    }
    // More work than threads: grow up to size (a new thread takes its message once online).
    while (this.queue.length > 0 && this.slots.length < this.size && !this.closed) {
      const slot = this.spawn();
      this.slots.push(slot);
      this.give(slot, this.queue.shift()!);
    }
    for (const slot of this.slots) if (!slot.task && !slot.stopping) this.retireWhenIdle(slot);
  }

  private give(slot: Slot, task: Task): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.task = task;
    const request: WorkerRequest = { id: task.id, input: task.input };
    slot.worker.postMessage(request);
  }

  /** A free thread above idleThreads stops after idleTimeoutMs without work. */
  private retireWhenIdle(slot: Slot): void {
    if (slot.idleTimer || this.slots.length <= this.idleThreads) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      const index = this.slots.indexOf(slot);
      if (slot.task || index === -1 || this.slots.length <= this.idleThreads) return;
      this.slots.splice(index, 1); // onExit finds no slot: nothing is replaced
      void slot.worker.terminate();
    }, this.idleTimeoutMs);
    slot.idleTimer.unref();
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const task = slot.task;
    if (!task || task.id !== reply.id) return; // an aborted task's late answer
    slot.task = undefined;
    if (reply.ok) this.settle(task, () => task.resolve(reply.output));
    else this.settle(task, () => task.reject(rebuildError(reply.error)));
    this.dispatch();
  }

  private onExit(slot: Slot, code: number, crash: Error | undefined, wasOnline: boolean): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    const reason = crash ? `${crash.name}: ${crash.message}` : `exit code ${code}`;
    const task = slot.task;
    slot.task = undefined;
    if (task) this.settle(task, () => task.reject(new Error(`transform worker died (${reason})`, { cause: crash })));
    if (this.closed) return;
    if (wasOnline) {
      this.slots[index] = this.spawn();
      this.dispatch();
      return;
    }
    // The thread could not even start (a broken install): fail what waits instead of
    // spinning, and try again a little later.
    const error = new Error(`transform worker failed to start (${reason})`, { cause: crash });
    for (const queued of this.queue.splice(0)) this.settle(queued, () => queued.reject(error));
    setTimeout(() => {
      if (this.closed) return;
      this.slots[index] = this.spawn();
      this.dispatch();
    }, RESTART_AFTER_FAILED_START_MS).unref();
  }

  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued !== -1) {
      this.queue.splice(queued, 1);
      this.settle(task, () => task.reject(task.signal?.reason));
      return;
    }
    const slot = this.slots.find((s) => s.task === task);
    if (!slot) return;
    // Synchronous work cannot be interrupted: stop the thread, onExit replaces it.
    slot.task = undefined;
    slot.stopping = true;
    this.settle(task, () => task.reject(task.signal?.reason));
    void slot.worker.terminate();
  }

  private settle(task: Task, finish: () => void): void {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    finish();
  }
}

/** Errors that decide the message's fate, rebuilt with their class (ackDecision reads it). */
const DOCUMENT_ERRORS: Record<string, new (message: string) => Error> = {
  DocumentEncryptedError, DocumentUnreadableError, DocumentTooLargeError, DocumentParseTimeoutError,
};

function rebuildError(error: { name: string; message: string; field?: string }): Error {
  if (error.name === 'InvalidUrlError') return new InvalidUrlError(error.message, error.field);
  if (error.name === 'ValidationError') return new ValidationError(error.message, error.field);
  const DocumentError = DOCUMENT_ERRORS[error.name];
  if (DocumentError) return new DocumentError(error.message);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
