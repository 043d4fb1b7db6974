// A pool of worker threads running transformPage / transformDocument, so that parsing and
// converting a large page never blocks the service's event loop (NATS heartbeats and acks),
// and so that no page, schema or tenant can hold the transformer hostage (issue 20).
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { TRANSFORMER_DEFAULTS } from '../../../shared/src/infra/config.js';
import { TransformTimeoutError } from '../../../shared/src/domain/errors.js';
import { FairQueue } from './fair-queue.js';
import { KeyActivity } from './key-activity.js';
import { workerResourceLimits, type TransformPoolOptions, type TransformRunOptions, type TransformSource } from './pool-options.js';
import { deathError, rebuildError, type ThreadMessage, type WorkerReply, type WorkerRequest } from './thread-protocol.js';
import type { Slot, Task } from './pool-slot.js';
import type { TransformInput, TransformOutput } from './types.js';

export type { TransformPoolOptions, TransformRunOptions, TransformSource } from './pool-options.js';

const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
const DEFAULT_SHARED_WINDOW_MS = 10 * 60_000;
const RESTART_AFTER_FAILED_START_MS = 1000;
/** Work run without a key (tests, tools) shares one queue and has no thread share. */
const NO_KEY = '';

// Compiled: transform-thread.js beside this file; under tsx, the .ts (its loader is inherited via execArgv).
const THREAD_URL = new URL(`./transform-thread${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

// Behaviour:
//   - `size` transforms at once at most, one per worker thread; extra calls wait in a
//     FairQueue: one FIFO per `key` (the API key), served round-robin across keys.
//   - A key's share is `threadsPerKey` threads (default: all but one). Alone, a key may use
//     every thread. Another key's page then starts on a thread of its own (started for it,
//     or the spare kept warm while more than one key gave work within `sharedWindowMs`), and
//     the newest transform of the key over its share is stopped and queued again (preempt),
//     back to `size` running: whatever one key's pages do, another key's page never waits
//     for them. Documents (`heavy`) run at most `heavyThreads` at once.
//   - `budgetMs`: a transform still running after it has its thread terminated (the only way
//     to stop synchronous CPU work) and replaced, and rejects with TransformTimeoutError.
//     It runs from when the thread has loaded its modules (its `ready`), not from the post:
//     a thread started for the page can take seconds to load on a saturated machine, and
//     that is the pool's cost, not the page's.
//   - A worker that dies (past its heap limit, a crash) rejects its task with
//     PageTooComplexError (DocumentTooComplexError for `heavy`) and is replaced: the same
//     input would kill the next thread, so both are final (never redelivered).
//   - A worker holding more than `recycleAboveMb` (V8 heap + external) after a transform is
//     replaced, so the memory one big page or document took is given back to the system.
//   - An aborted signal rejects with the signal's reason: a queued task leaves the queue, a
//     running one has its worker terminated and replaced (a cancelled job frees its threads).
//   - An error thrown in the worker comes back as the same kind of error (thread-protocol.ts):
//     a document parser that throws one of our errors (DocumentTooComplexError for a bomb,
//     say) decides the message's fate; it needs nothing else from the pool.
//   - close() rejects queued and running tasks and terminates every worker.
export class TransformPool {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Task>();
  private readonly running = new Map<string, number>();
  private heavyRunning = 0;
  private readonly resourceLimits: ResourceLimits;
  private readonly size: number;
  private readonly idleThreads: number;
  private readonly idleTimeoutMs: number;
  private readonly threadsPerKey: number;
  private readonly heavyThreads: number;
  private readonly recycleAboveMb: number;
  private readonly keys: KeyActivity;
  private nextId = 1;
  private closed = false;
  /** Threads stopped since the start, by why (metrics: trawl_transform_threads_stopped). */
  private readonly stopped = { budget: 0, died: 0, preempted: 0, recycled: 0, aborted: 0 };

  constructor(opts: TransformPoolOptions) {
    if (!Number.isInteger(opts.size) || opts.size < 1) throw new RangeError(`TransformPool size must be an integer >= 1, got ${opts.size}`);
    this.resourceLimits = workerResourceLimits(opts);
    this.size = opts.size;
    this.idleThreads = Math.min(opts.size, Math.max(1, opts.idleThreads ?? opts.size));
    this.idleTimeoutMs = opts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.threadsPerKey = Math.max(1, Math.min(opts.size, opts.threadsPerKey || opts.size - 1));
    this.heavyThreads = Math.max(1, opts.heavyThreads ?? TRANSFORMER_DEFAULTS.documentThreads);
    this.recycleAboveMb = opts.recycleAboveMb ?? TRANSFORMER_DEFAULTS.recycleAboveMb;
    this.keys = new KeyActivity(opts.sharedWindowMs ?? DEFAULT_SHARED_WINDOW_MS);
    for (let i = 0; i < this.idleThreads; i++) this.slots.push(this.spawn());
  }

  /** Workers, transforms running now, transforms waiting (health checks, tests, metrics). */
  stats(): { size: number; busy: number; queued: number } {
    return { size: this.slots.length, busy: this.slots.filter((s) => s.task).length, queued: this.queue.size };
  }

  /** The largest V8 heap limit (old + young generation) among the running threads, in bytes. */
  async threadHeapLimitBytes(): Promise<number> {
    return Math.max(0, ...(await Promise.all(this.slots.map((s) => s.worker.getHeapStatistics()))).map((h) => h.heap_size_limit));
  }

  /** The worker threads' ids (tests: a replaced thread has a new one). */
  threadIds(): number[] {
    return this.slots.map((s) => s.worker.threadId);
  }

  /** Threads stopped since the start: past a budget, dead, preempted, recycled, aborted (metrics). */
  stoppedThreads(): Readonly<typeof this.stopped> {
    return { ...this.stopped };
  }

  /** Transforms running now per key (tests, metrics). */
  runningByKey(): Record<string, number> {
    return Object.fromEntries(this.running);
  }

  run(source: TransformSource, opts: TransformRunOptions = {}): Promise<TransformOutput> {
    const { signal } = opts;
    if (this.closed) return Promise.reject(new Error('TransformPool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<TransformOutput>((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        ...(typeof source === 'function' ? { load: source } : { input: source }),
        key: opts.key ?? NO_KEY, heavy: opts.heavy ?? false, budgetMs: opts.budgetMs, resolve, reject, signal,
      };
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      if (task.key !== NO_KEY) this.keys.seen(task.key, performance.now());
      this.queue.push(task.key, task);
      this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new Error('TransformPool is closed');
    for (const task of this.queue.drain()) this.settle(task, () => task.reject(error));
    await Promise.all(
      this.slots.map(async (slot) => {
        clearTimeout(slot.idleTimer);
        const task = this.release(slot);
        if (task) this.settle(task, () => task.reject(error));
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(): Slot {
    const worker = new Worker(THREAD_URL, { resourceLimits: this.resourceLimits });
    const slot: Slot = { worker };
    worker.on('message', (message: ThreadMessage) => {
      if ('ready' in message) this.onReady(slot);
      else this.onReply(slot, message);
    });
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

  /** A document may start while fewer than heavyThreads run. */
  private heavyOk = (task: Task): boolean => !task.heavy || this.heavyRunning < this.heavyThreads;
  /** A task within its key's share of the threads (work without a key has no share). */
  private fair = (task: Task): boolean =>
    (task.key === NO_KEY || (this.running.get(task.key) ?? 0) < this.threadsPerKey) && this.heavyOk(task);

  private busy(): number {
    return this.slots.filter((s) => s.task).length;
  }

  /** Whether some key runs more transforms than its share (then another key may have one more thread). */
  private someKeyOverShare(): boolean {
    for (const [key, n] of this.running) if (key !== NO_KEY && n > this.threadsPerKey) return true;
    return false;
  }

  /**
   * The next task for a free thread. While fewer than `size` transforms run: one within its
   * key's share first (round-robin by key), else one over its share, so a key alone uses
   * every thread. At `size`, only a task within its share, and only while a key runs over its
   * share (the spare thread is for it; preempt() then stops the over-share transform).
   */
  private next(): Task | undefined {
    if (this.busy() < this.size) return this.queue.take(this.fair) ?? this.queue.take(this.heavyOk);
    return this.someKeyOverShare() ? this.queue.take(this.fair) : undefined;
  }

  private dispatch(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.task || slot.stopping) continue;
      const task = this.next();
      if (!task) break;
      this.give(slot, task);
    }
    // Grow up to size, or size + 1 for another key's page while a key runs over its share.
    while (this.slots.length < (this.someKeyOverShare() ? this.size + 1 : this.size)) {
      const task = this.next();
      if (!task) break;
      const slot = this.spawn();
      this.slots.push(slot);
      this.give(slot, task);
    }
    this.preempt();
    // Keep one started thread free (module loading takes a second or more) only for another
    // key's page, while a key runs over its share and other keys are about. Otherwise a thread
    // starts when work waits for one (above): one transform at a time holds one (40 MB).
    if (this.slots.length < this.spares() && !this.slots.some((s) => !s.task && !s.stopping)) this.slots.push(this.spawn());
    while (this.slots.length < this.idleThreads) this.slots.push(this.spawn());
    for (const slot of this.slots) if (!slot.task && !slot.stopping) this.retireWhenIdle(slot);
  }

  /**
   * More than `size` transforms run (another key's task took the spare thread), or every
   * thread is busy while a task within its key's share waits, and some key runs over its
   * share: that key's newest transform is stopped (its thread terminated) and put back at the
   * head of its key's queue, to run again (with its whole budget) when a thread is free. The
   * cost of sharing is one restarted transform, and only under contention.
   */
  private preempt(): void {
    const busy = this.busy();
    const overloaded = busy > this.size;
    const starving = busy >= this.size && !this.slots.some((s) => !s.task || s.stopping) && this.queue.some(this.fair);
    if (!overloaded && !starving) return;
    let victim: Slot | undefined;
    for (const slot of this.slots) {
      const task = slot.task!;
      if (task.key === NO_KEY || (this.running.get(task.key) ?? 0) <= this.threadsPerKey) continue;
      if (!victim || slot.startedAt! > victim.startedAt!) victim = slot;
    }
    if (!victim) return;
    this.stopped.preempted += 1;
    const task = this.release(victim)!;
    victim.stopping = true;
    void victim.worker.terminate();
    this.queue.unshift(task.key, task);
  }

  private give(slot: Slot, task: Task): void {
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    slot.task = task;
    slot.startedAt = performance.now();
    this.running.set(task.key, (this.running.get(task.key) ?? 0) + 1);
    if (task.heavy) this.heavyRunning += 1;
    if (task.input) return this.post(slot, task);
    // Loaded once, even if the task is preempted and given again.
    task.loading ??= task.load!().then((input) => {
      task.input = input;
    });
    task.loading.then(
      () => {
        if (slot.task === task) this.post(slot, task);
      },
      (err: unknown) => {
        if (slot.task !== task) return;
        this.release(slot);
        this.settle(task, () => task.reject(err));
        this.dispatch();
      },
    );
  }

  /** Sends the task to its thread (a thread still loading gets it once ready); its budget runs once both are done. */
  private post(slot: Slot, task: Task): void {
    slot.posted = true;
    const request: WorkerRequest = { id: task.id, input: task.input! };
    slot.worker.postMessage(request);
    this.armBudget(slot);
  }

  private onReady(slot: Slot): void {
    slot.ready = true;
    this.armBudget(slot);
  }

  /** Starts the budget of the slot's task once it is posted to a thread that is ready. */
  private armBudget(slot: Slot): void {
    const task = slot.task;
    if (!task || task.budgetMs === undefined || !slot.posted || !slot.ready || slot.budgetTimer) return;
    slot.budgetTimer = setTimeout(() => this.overBudget(slot, task), task.budgetMs);
  }

  /** The slot's task leaves it (answered, failed, aborted): its key's and the heavy counts go down. */
  private release(slot: Slot): Task | undefined {
    const task = slot.task;
    clearTimeout(slot.budgetTimer);
    slot.budgetTimer = undefined;
    slot.posted = false;
    slot.task = undefined;
    if (!task) return undefined;
    const left = (this.running.get(task.key) ?? 1) - 1;
    if (left > 0) this.running.set(task.key, left);
    else this.running.delete(task.key);
    if (task.heavy) this.heavyRunning -= 1;
    return task;
  }

  /** Stops the slot's thread (replaced in onExit) and gives its task `error`. */
  private stop(slot: Slot, error: unknown): void {
    const task = this.release(slot);
    slot.stopping = true;
    if (task) this.settle(task, () => task.reject(error));
    void slot.worker.terminate();
    this.dispatch();
  }

  private overBudget(slot: Slot, task: Task): void {
    if (slot.task !== task) return;
    this.stopped.budget += 1;
    const what = task.heavy ? `the ${task.input?.document?.kind ?? 'document'} document's parse` : `the transform of ${task.input?.url ?? 'a page'}`;
    this.stop(slot, new TransformTimeoutError(`${what} ran longer than ${task.budgetMs} ms; its thread was stopped`));
  }

  /** A free thread above idleThreads stops after idleTimeoutMs without work, but not the spare dispatch() would start again. */
  private retireWhenIdle(slot: Slot): void {
    if (slot.idleTimer || this.slots.length <= this.idleThreads) return;
    slot.idleTimer = setTimeout(() => {
      slot.idleTimer = undefined;
      const index = this.slots.indexOf(slot);
      if (slot.task || index === -1 || this.slots.length <= this.idleThreads) return;
      if (this.isKeptSpare(slot)) return this.retireWhenIdle(slot);
      this.slots.splice(index, 1); // onExit finds no slot: nothing is replaced
      void slot.worker.terminate();
    }, this.idleTimeoutMs);
    slot.idleTimer.unref();
  }

  /** Threads dispatch() keeps started, one of them free (see there); 0: none kept ahead of work. */
  private spares(): number {
    return this.someKeyOverShare() && this.keys.shared(performance.now()) ? this.size + 1 : 0;
  }

  /** Whether dispatch() would start a spare again at once if `slot` stopped (a second of module loading per idleTimeoutMs of a crawl). */
  private isKeptSpare(slot: Slot): boolean {
    if (this.busy() === 0 || this.slots.some((s) => s !== slot && !s.task && !s.stopping)) return false;
    return this.slots.length - 1 < this.spares();
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    if (!slot.task || slot.task.id !== reply.id) return; // an aborted task's late answer
    const task = this.release(slot)!;
    if (reply.ok) this.settle(task, () => task.resolve(reply.output));
    else this.settle(task, () => task.reject(rebuildError(reply.error)));
    // A thread that kept a big heap (a huge page) gives it back by being replaced; so does one
    // that parsed a document over a quarter of that, or failed one (a bomb leaves its buffers).
    const heldMb = reply.memoryMb ?? 0;
    const heavyLeftovers = task.heavy && (!reply.ok || heldMb > this.recycleAboveMb / 4);
    if ((heldMb > this.recycleAboveMb || heavyLeftovers) && !this.closed) {
      this.stopped.recycled += 1;
      slot.stopping = true;
      void slot.worker.terminate();
    }
    this.dispatch();
  }

  private onExit(slot: Slot, code: number, crash: Error | undefined, wasOnline: boolean): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    const reason = crash ? `${crash.name}: ${crash.message}` : `exit code ${code}`;
    const task = this.release(slot);
    if (task) {
      this.stopped.died += 1;
      this.settle(task, () => task.reject(deathError(task.heavy, task.input, reason, crash)));
    }
    if (this.closed) return;
    // A thread stopped (budget, abort, preemption, recycling) or dead: dispatch replaces it as needed.
    if (wasOnline || slot.stopping) {
      this.slots.splice(index, 1);
      this.dispatch();
      return;
    }
    // The thread could not even start (a broken install): fail what waits, try again later.
    const error = new Error(`transform worker failed to start (${reason})`, { cause: crash });
    for (const queued of this.queue.drain()) this.settle(queued, () => queued.reject(error));
    setTimeout(() => {
      if (this.closed) return;
      this.slots[index] = this.spawn();
      this.dispatch();
    }, RESTART_AFTER_FAILED_START_MS).unref();
  }

  private abort(task: Task): void {
    if (this.queue.remove(task)) {
      this.settle(task, () => task.reject(task.signal?.reason));
      return;
    }
    const slot = this.slots.find((s) => s.task === task);
    // Synchronous work cannot be interrupted: stop the thread, onExit replaces it.
    if (!slot) return;
    this.stopped.aborted += 1;
    this.stop(slot, task.signal?.reason);
  }

  private settle(task: Task, finish: () => void): void {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    finish();
  }
}
