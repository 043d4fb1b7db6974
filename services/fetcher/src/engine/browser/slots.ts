// The page slots of the browser pool: at most `size` pages render at once, and who gets
// the next free slot is decided here, so that
//   - interactive work (a scrape or map a user is waiting for) goes before bulk work
//     (crawl and batch pages): a big crawl delays a scrape by one page at most, it never
//     starves it;
//   - bulk work is polite per host: at most `hostMaxInFlight` bulk pages of one host
//     render at once in this fetcher, whichever crawls or batches they belong to. Bulk
//     pages of other hosts go ahead of a waiting one meanwhile.
// Within a priority, waiters are served first come, first served. A waiter leaves the
// queue when its signal aborts.

export type CapturePriority = 'interactive' | 'bulk';

export interface SlotRequest {
  priority: CapturePriority;
  /** The page's host, for the per-host bound on bulk work. */
  host: string;
}

interface Waiter extends SlotRequest {
  grant: () => void;
  fail: (err: unknown) => void;
}

export class Slots {
  private active = 0;
  private readonly queue: Waiter[] = [];
  /** Bulk pages rendering per host. */
  private readonly bulkByHost = new Map<string, number>();

  constructor(private readonly size: number, private readonly hostMaxInFlight: number = Infinity) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`poolSize must be a positive integer, got ${size}`);
    if (!(hostMaxInFlight >= 1)) throw new Error(`hostMaxInFlight must be at least 1, got ${hostMaxInFlight}`);
  }

  get activeCount(): number {
    return this.active;
  }
  get queuedCount(): number {
    return this.queue.length;
  }

  /** Resolves with a release function once a slot is granted. */
  acquire(signal: AbortSignal, request: SlotRequest = { priority: 'interactive', host: '' }): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const release = once(() => {
        this.active--;
        if (request.priority === 'bulk') this.countBulk(request.host, -1);
        this.next();
      });
      const waiter: Waiter = {
        ...request,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          this.active++;
          if (request.priority === 'bulk') this.countBulk(request.host, +1);
          resolve(release);
        },
        fail: (err) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      };
      const onAbort = (): void => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      this.next();
    });
  }

  /** Fails every queued waiter (on stop). */
  rejectQueued(err: unknown): void {
    for (const waiter of this.queue.splice(0)) waiter.fail(err);
  }

  private countBulk(host: string, delta: number): void {
    const n = (this.bulkByHost.get(host) ?? 0) + delta;
    if (n > 0) this.bulkByHost.set(host, n);
    else this.bulkByHost.delete(host);
  }

  /** The waiter to serve next: the first interactive one, else the first bulk one whose host has room. */
  private pick(): number {
    const interactive = this.queue.findIndex((w) => w.priority === 'interactive');
    if (interactive >= 0) return interactive;
    return this.queue.findIndex((w) => (this.bulkByHost.get(w.host) ?? 0) < this.hostMaxInFlight);
  }

  private next(): void {
    while (this.active < this.size) {
      const index = this.pick();
      if (index < 0) return;
      this.queue.splice(index, 1)[0]!.grant();
    }
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
