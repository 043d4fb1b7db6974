// When a rendered page has settled: its DOM has stopped changing and nothing it started
// that usually ends in a change is still pending. Network quiet alone is not enough:
// content built after a timer, a second round of requests or in an idle callback comes
// later, with the network quiet all along. An init script keeps that state in the page and
// CaptureRun polls it (docs/architecture.md "Fetch engines and host profiles", "When a
// rendered page is taken").
import crypto from 'node:crypto';
import type { Page } from 'playwright-core';

export interface SettleWatchOptions {
  /** Timers of at most this delay are waited for. */
  timerMaxMs: number;
  /** Callbacks scheduled by callbacks are waited for this many levels deep. */
  chainMax: number;
}

export interface SettleState {
  /** Fetches, XHRs, timers and idle/animation callbacks the page still has pending. */
  pending: number;
  /** Milliseconds since the last DOM change after DOMContentLoaded (null: none yet). */
  sinceChangeMs: number | null;
}

// What the init script keeps: the time of the last DOM change after DOMContentLoaded (nodes
// and text; attributes are not content, a carousel toggling classes would never be still)
// and what is pending: fetches until their body is read, XHRs, timers of at most
// `timerMaxMs`, idle and animation callbacks, those a callback schedules only `chainMax` deep
// (a polling loop must not hold the page to the cap); never setInterval (a clock ticks
// forever). The wrapped APIs behave as before; the state hangs on a non-enumerable window
// property named with a random key.
/** Runs in the page (stringified into the init script). */
function watch(key: string, timerMaxMs: number, chainMax: number): void {
  if (window !== window.top) return;
  const now = () => performance.now();
  let pending = 0;
  let lastChange: number | null = null;
  let parsed = false;
  /** How deep in a chain of counted callbacks the running code is (0: not in one). */
  let depth = 0;
  const done = (): void => { pending = Math.max(0, pending - 1); };

  const observer = new MutationObserver(() => { if (parsed) lastChange = now(); });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
  // The parser's records not yet delivered are the served document, not changes.
  document.addEventListener('DOMContentLoaded', () => { observer.takeRecords(); parsed = true; }, { once: true, capture: true });

  /** Wraps a callback API: counts the callback while it is scheduled, runs it one level deeper. */
  type Schedule = (...a: unknown[]) => unknown;
  type Cancel = (id: unknown) => void;
  function counting(schedule: Schedule, cancel: Cancel | undefined, counts: (rest: unknown[]) => boolean): { wrapped: Schedule; wrappedCancel: Cancel | undefined } {
    const live = new Set<unknown>();
    const wrapped = (cb: unknown, ...rest: unknown[]): unknown => {
      const level = depth + 1;
      if (typeof cb !== 'function' || level > chainMax || !counts(rest)) return schedule.call(window, cb, ...rest);
      let id: unknown;
      const run = function (this: unknown, ...args: unknown[]): unknown {
        if (live.delete(id)) done();
        const outer = depth;
        depth = level;
        try { return (cb as Schedule).apply(this, args); } finally { depth = outer; }
      };
      id = schedule.call(window, run, ...rest);
      live.add(id);
      pending++;
      return id;
    };
    const wrappedCancel = cancel && ((id: unknown): void => {
      if (live.delete(id)) done();
      cancel.call(window, id);
    });
    return { wrapped, wrappedCancel };
  }
  const w = window as unknown as Record<string, Schedule | Cancel | undefined>;
  const wrap = (scheduleName: string, cancelName: string, counts: (rest: unknown[]) => boolean): void => {
    const schedule = w[scheduleName] as Schedule | undefined;
    if (!schedule) return;
    const { wrapped, wrappedCancel } = counting(schedule, w[cancelName] as Cancel | undefined, counts);
    w[scheduleName] = wrapped;
    if (wrappedCancel) w[cancelName] = wrappedCancel;
  };
  wrap('setTimeout', 'clearTimeout', ([delay]) => (Number(delay) || 0) <= timerMaxMs);
  wrap('requestAnimationFrame', 'cancelAnimationFrame', () => true);
  wrap('requestIdleCallback', 'cancelIdleCallback', () => true);

  // A fetch is pending until its body has been read: the page's code that uses the data
  // runs in the same microtask checkpoint as the read's end, before any poll can look.
  const fetch = window.fetch;
  window.fetch = function (...args: Parameters<typeof window.fetch>) {
    pending++;
    return fetch.apply(window, args).finally(done);
  } as typeof window.fetch;
  for (const method of ['json', 'text', 'arrayBuffer', 'blob', 'formData'] as const) {
    const read = Response.prototype[method] as (this: Response) => Promise<unknown>;
    Object.defineProperty(Response.prototype, method, {
      configurable: true,
      writable: true,
      value: function (this: Response) {
        pending++;
        return read.call(this).finally(done);
      },
    });
  }
  const send = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest['send']>) {
    pending++;
    // loadend comes after load/error and the page's readystatechange handlers.
    this.addEventListener('loadend', done, { once: true });
    try {
      return send.apply(this, args);
    } catch (err) {
      done();
      throw err;
    }
  };

  Object.defineProperty(window, key, {
    value: () => ({ pending, sinceChangeMs: lastChange === null ? null : now() - lastChange }),
    enumerable: false,
  });
}

export class SettleWatch {
  private readonly key = `__trawl_${crypto.randomBytes(8).toString('hex')}`;

  private constructor(private readonly page: Page) {}

  /** Installs the watcher on every document the page loads from now on. */
  static async install(page: Page, options: SettleWatchOptions): Promise<SettleWatch> {
    const w = new SettleWatch(page);
    await page.addInitScript({ content: `(${watch.toString()})(${JSON.stringify(w.key)}, ${options.timerMaxMs}, ${options.chainMax});` });
    return w;
  }

  /** The page's state now; undefined when the watcher is not there (a document it could not reach). */
  async state(): Promise<SettleState | undefined> {
    return this.page.evaluate(`(() => { const read = window[${JSON.stringify(this.key)}]; return read ? read() : undefined; })()`)
      .then((s) => s as SettleState | undefined, () => undefined);
  }
}
