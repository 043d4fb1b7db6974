// The browser pool: bounded concurrency with a queue that honours abort signals, nothing
// left open after many captures (successes and failures mixed), a killed Chromium
// restarted with only its own captures failing, and no Chromium left after stop().
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BrowserError } from '../../../shared/src/domain/errors.js';
import { startSite, type TestSite } from '../../support/site.js';
import { browserPids, chromiumProcesses, ctx, opts, startCapturer } from './helpers.js';
import { until } from '../../support/wait.js';

let site: TestSite;
let inflight = 0;
let maxInflight = 0;

before(async () => {
  site = await startSite({
    '/': '<!doctype html><html><body><h1>ok</h1></body></html>',
    '/slow': (_req, res) => {
      inflight++;
      maxInflight = Math.max(maxInflight, inflight);
      setTimeout(() => {
        inflight--;
        res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>slow</body></html>');
      }, 400);
    },
    // Never answers (until the site closes its connections): no timer keeps the process alive.
    '/hang': () => undefined,
  });
});

after(async () => {
  await site.close();
});

describe('browser pool', () => {
  test('at most poolSize pages at once; the rest queue', async () => {
    const capturer = await startCapturer({ poolSize: 2, spareContexts: 0 });
    try {
      maxInflight = 0;
      const jobs = Array.from({ length: 5 }, (_, i) => capturer.capture(site.url(`/slow?${i}`), opts(), ctx()));
      await until(() => capturer.stats().queued === 3);
      assert.equal(capturer.stats().active, 2);
      await Promise.all(jobs);
      assert.equal(maxInflight, 2);
    } finally {
      await capturer.stop();
    }
  });

  test('a scrape waiting for a slot goes before crawl pages that queued earlier', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
    try {
      const bulk = { ...ctx(), priority: 'bulk' as const };
      const first = capturer.capture(site.url('/slow?lane=bulk-0'), opts(), bulk);
      await until(() => site.hits.has('/slow?lane=bulk-0'));
      const queuedBulk = [1, 2].map((n) => capturer.capture(site.url(`/?lane=bulk-${n}`), opts(), bulk));
      await until(() => capturer.stats().queued === 2);
      const scrape = capturer.capture(site.url('/?lane=scrape'), opts(), { ...ctx(), priority: 'interactive' });
      await Promise.all([first, scrape, ...queuedBulk]);
      const order = [...site.hits.keys()].filter((k) => k.includes('lane='));
      assert.deepEqual(order, ['/slow?lane=bulk-0', '/?lane=scrape', '/?lane=bulk-1', '/?lane=bulk-2']);
    } finally {
      await capturer.stop();
    }
  });

  test('crawl and batch pages of one host stay within hostMaxInFlight', async () => {
    const capturer = await startCapturer({ poolSize: 3, hostMaxInFlight: 1, spareContexts: 0 });
    try {
      maxInflight = 0;
      const bulk = { ...ctx(), priority: 'bulk' as const };
      await Promise.all([1, 2, 3].map((n) => capturer.capture(site.url(`/slow?host-bound=${n}`), opts(), bulk)));
      assert.equal(maxInflight, 1);
    } finally {
      await capturer.stop();
    }
  });

  test('a queued capture leaves the queue when its signal aborts', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
    try {
      const first = capturer.capture(site.url('/slow?first'), opts(), ctx());
      const controller = new AbortController();
      const second = capturer.capture(site.url('/?second'), opts(), { signal: controller.signal });
      await until(() => capturer.stats().queued === 1);
      controller.abort(new Error('shutting down'));
      await assert.rejects(second, /shutting down/);
      assert.equal(capturer.stats().queued, 0);
      await first;
      assert.equal(site.hits.get('/?second'), undefined);
    } finally {
      await capturer.stop();
    }
  });

  test('aborting a running capture closes its page', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
    try {
      const controller = new AbortController();
      const running = capturer.capture(site.url('/hang?abort'), opts(), { signal: controller.signal });
      await until(() => site.hits.has('/hang?abort'));
      controller.abort(new Error('job cancelled'));
      await assert.rejects(running, /job cancelled/);
      await capturer.idle();
      const stats = capturer.stats();
      assert.equal(stats.openContexts + stats.browserContexts + stats.openPages, 0);
    } finally {
      await capturer.stop();
    }
  });

  test('many captures, failing ones included, leave no context, page or proxy open', async () => {
    const capturer = await startCapturer({ poolSize: 2, spareContexts: 0 });
    try {
      const rounds = 30;
      for (let round = 0; round < rounds; round++) {
        await Promise.allSettled([
          capturer.capture(site.url(`/?n=${round}`), opts(), ctx()),
          // fails fast: SELECTOR_NOT_FOUND (clip) / NETWORK_ERROR (DNS)
          round % 2 === 0
            ? capturer.capture(site.url(`/?n=${round}`), opts({ formats: ['screenshot'], screenshotOptions: { clip: '#none' } }), ctx())
            : capturer.capture('http://does-not-exist.invalid/', opts(), ctx()),
        ]);
      }
      await capturer.idle();
      const stats = capturer.stats();
      assert.equal(stats.captures.started, rounds * 2);
      assert.equal(stats.captures.succeeded, rounds);
      assert.equal(stats.captures.failed, rounds);
      assert.deepEqual(
        { active: stats.active, queued: stats.queued, openContexts: stats.openContexts, openPages: stats.openPages, browserContexts: stats.browserContexts, browserPages: stats.browserPages, openProxies: stats.openProxies },
        { active: 0, queued: 0, openContexts: 0, openPages: 0, browserContexts: 0, browserPages: 0, openProxies: 0 },
      );
      assert.equal(stats.browserLaunches, 1);
    } finally {
      await capturer.stop();
    }
  });

  test('a killed Chromium fails only its captures (BROWSER_ERROR) and is relaunched', async () => {
    // Browsers of the tests before may still be exiting: start from none.
    await until(() => browserPids().length === 0);
    const capturer = await startCapturer({ poolSize: 2, spareContexts: 0 });
    try {
      const pids = browserPids();
      assert.equal(pids.length, 1, `one Chromium browser process descends from this process: ${JSON.stringify(chromiumProcesses())}`);
      const victim = capturer.capture(site.url('/hang?crash'), opts(), ctx());
      await until(() => site.hits.has('/hang?crash'));
      process.kill(pids[0]!, 'SIGKILL');
      await assert.rejects(victim, (err: unknown) => {
        assert.ok(err instanceof BrowserError, `expected BrowserError, got ${String(err)}`);
        assert.equal(err.retryable, true);
        return true;
      });
      const after = await capturer.capture(site.url('/?after-crash'), opts(), ctx());
      assert.equal(after.statusCode, 200);
      assert.equal(capturer.stats().browserLaunches, 2);
      await capturer.idle();
      assert.equal(capturer.stats().openContexts, 0);
    } finally {
      await capturer.stop();
    }
  });

  test('Chromium runs its network service and compositor in the browser process: browser, zygotes and renderers only', async () => {
    await until(() => browserPids().length === 0);
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
    try {
      const page = capturer.capture(site.url('/slow?process-types'), opts(), ctx());
      await until(() => site.hits.has('/slow?process-types'));
      const types = new Set(chromiumProcesses().map((p) => /--type=(\S+)/.exec(p.cmdline)?.[1] ?? 'browser'));
      assert.equal((await page).statusCode, 200);
      assert.ok(types.has('renderer'), `a renderer is running: ${JSON.stringify([...types])}`);
      assert.deepEqual([...types].filter((t) => !['browser', 'zygote', 'renderer'].includes(t)), [], `no other Chromium process: ${JSON.stringify(chromiumProcesses())}`);
    } finally {
      await capturer.stop();
    }
  });

  test('stop() fails running captures and leaves no Chromium process', async () => {
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0 });
    assert.ok(chromiumProcesses().length > 0);
    const running = capturer.capture(site.url('/hang?stop'), opts(), ctx());
    const queued = capturer.capture(site.url('/?queued'), opts(), ctx());
    await until(() => site.hits.has('/hang?stop'));
    const outcomes = [assert.rejects(running, BrowserError), assert.rejects(queued, BrowserError)];
    await capturer.stop();
    await Promise.all(outcomes);
    await assert.rejects(capturer.capture(site.url('/'), opts(), ctx()), BrowserError);
    await until(() => chromiumProcesses().length === 0);
  });

  test('an untaken spare is closed after spareIdleMs, and an idle Chromium after browserIdleCloseMs, then relaunched on demand', async () => {
    const capturer = await startCapturer({ poolSize: 2, spareContexts: 1, spareBusyWindowMs: 60_000, spareIdleMs: 2_000, browserIdleCloseMs: 4_000 });
    try {
      // Two captures close together: the second makes a spare.
      await capturer.capture(site.url('/?idle=1'), opts(), ctx());
      await capturer.capture(site.url('/?idle=2'), opts(), ctx());
      await until(() => capturer.stats().openContexts === 1, { timeoutMs: 1_500 });
      // Nobody takes it: it is closed, and later Chromium too.
      await until(() => capturer.stats().openContexts === 0, { timeoutMs: 5_000 });
      assert.equal(capturer.stats().browserLaunches, 1);
      await until(() => browserPids().length === 0 && capturer.browserVersion() === undefined, { timeoutMs: 10_000 });
      // The next capture launches it again.
      const again = await capturer.capture(site.url('/?idle=3'), opts(), ctx());
      assert.equal(again.statusCode, 200);
      assert.equal(capturer.stats().browserLaunches, 2);
    } finally {
      await capturer.stop();
    }
  });

  test('sequential captures make a spare when each starts soon after the last answer, even when renders outlast the window', async () => {
    // Each /slow page takes 400 ms: starts are further apart than the 300 ms window, answers are not.
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 1, spareBusyWindowMs: 300, spareIdleMs: 10_000 });
    try {
      await capturer.capture(site.url('/slow?seq=1'), opts(), ctx());
      // Started well past the window after the last answer: not close together, no spare.
      await new Promise((r) => setTimeout(r, 600));
      await capturer.capture(site.url('/slow?seq=2'), opts(), ctx());
      await capturer.idle();
      await new Promise((r) => setTimeout(r, 1_000)); // time enough to make a spare, were one due
      assert.equal(capturer.stats().openContexts, 0);
      // Started right after the last answer: a spare is made for the next one (its own context closes).
      await capturer.capture(site.url('/slow?seq=3'), opts(), ctx());
      await capturer.capture(site.url('/slow?seq=4'), opts(), ctx());
      await capturer.idle();
      await until(() => capturer.stats().openContexts === 1, { timeoutMs: 5_000 });
    } finally {
      await capturer.stop();
    }
  });

  test('a browser is retired after retireAfterPages: later pages get a new one, the old one closes once its running page is done', async () => {
    await until(() => browserPids().length === 0);
    const capturer = await startCapturer({ poolSize: 2, spareContexts: 0, browserRetireAfterPages: 3 });
    try {
      // A slow page holds the first browser while its page count runs out.
      const slow = capturer.capture(site.url('/slow?retire'), opts(), ctx());
      for (let i = 0; i < 3; i++) assert.equal((await capturer.capture(site.url(`/?retire=${i}`), opts(), ctx())).statusCode, 200);
      // Three pages on the first browser (the slow one still running): the third quick page went to a second.
      assert.equal(capturer.stats().browserLaunches, 2);
      assert.equal((await slow).statusCode, 200);
      const rest = await Promise.all([3, 4, 5, 6].map((i) => capturer.capture(site.url(`/?retire=${i}`), opts(), ctx())));
      assert.deepEqual(rest.map((r) => r.statusCode), [200, 200, 200, 200]);
      assert.equal(capturer.stats().browserLaunches, 3);
      await capturer.idle();
      // Retired browsers close once their pages are done: one browser process is left.
      await until(() => browserPids().length === 1, { timeoutMs: 10_000 });
      assert.equal(capturer.stats().openContexts, 0);
    } finally {
      await capturer.stop();
    }
  });

  test('a spare context serves the next default job, is never reused, and is closed by stop()', async () => {
    const capturer = await startCapturer({ poolSize: 2, spareContexts: 1 });
    try {
      for (let i = 0; i < 5; i++) {
        const result = await capturer.capture(site.url(`/?spare=${i}`), opts(), ctx());
        assert.equal(result.statusCode, 200);
      }
      // Captures starting together never share the spare: each loads its page once.
      await Promise.all([1, 2, 3].map((n) => capturer.capture(site.url(`/?spare=together-${n}`), opts(), ctx())));
      for (const n of [1, 2, 3]) assert.equal(site.hits.get(`/?spare=together-${n}`), 1);
      // A job the spare does not fit (custom headers) gets its own context.
      const custom = await capturer.capture(site.url('/?spare=headers'), opts({ headers: { 'x-a': '1' } }), ctx());
      assert.equal(custom.statusCode, 200);
      await capturer.idle();
      const stats = capturer.stats();
      assert.ok(stats.browserContexts <= 1, `at most the one spare stays open, got ${stats.browserContexts}`);
      assert.equal(stats.captures.succeeded, 9);
      // Each capture had a context of its own: six jobs, six distinct proxies were used and closed.
      assert.ok(stats.openProxies <= 1);
    } finally {
      await capturer.stop();
    }
    assert.equal(capturer.stats().openContexts, 0);
    assert.equal(capturer.stats().openProxies, 0);
  });
});
