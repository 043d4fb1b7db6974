// The auto engine's verification renders (services/fetcher/src/engine/engine-router.ts):
// however many pages of a host are being verified at once, this fetcher renders one of
// them at a time and prepares no spare context for them, while a page that needs the
// browser (client-side rendering) keeps every slot and the spare policy. Real nats-server
// (the host profiles' KV bucket), real Chromium, real HTTP against pages served here.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from 'nats';
import { EngineRouter, VERIFY_RENDERS_AT_ONCE } from '../../../services/fetcher/src/engine/engine-router.js';
import { identicalAgreements } from '../../../services/fetcher/src/engine/host-profile.js';
import type { CaptureContext, PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';
import { ctx, opts, startCapturer, testRouter } from './helpers.js';

const article = (n: number) => `<!doctype html><html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1>${'<p>Server-rendered text of a static page, the same with or without JavaScript.</p>'.repeat(6)}</article></body></html>`;
// Client-side rendered: an empty app root, filled by a script.
const app = '<!doctype html><html><head><title>App</title></head><body><div id="root"></div><script>document.getElementById("root").innerHTML = "<h1>Built</h1><p>" + "Text built by JavaScript. ".repeat(20) + "</p>"</script></body></html>';
// Server-rendered, with a marker that changes nothing: an empty element a script looks up by id (it only sets a class).
const harmless = (n: number) => `<!doctype html><html><head><title>Harmless ${n}</title></head><body><article><h1>Harmless ${n}</h1>${'<p>Server-rendered text beside a widget slot that stays empty.</p>'.repeat(6)}</article><div id="widget"></div><script>document.getElementById('widget').className = 'ready'</script></body></html>`;

describe('auto: verification renders', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let site: TestSite;
  let capturer: PageCapturer;
  const seen: CaptureContext[] = [];
  let active = 0;
  let mostAtOnce = 0;
  /** Contexts still open (the previous capture's closing in the background) when each capture began. */
  const openAtStart: number[] = [];

  // The real capturer, counted: how many captures run at once, and with what context.
  /** Verifications that teach the router's host (K = 3): its pages are identical both ways, so K - 1. */
  const LEARNT = identicalAgreements({ agreements: 3, recheckEvery: 25 });
  const router = (): EngineRouter => testRouter(nc, async (url, options, cctx) => {
    seen.push(cctx);
    openAtStart.push(capturer.stats().openContexts);
    mostAtOnce = Math.max(mostAtOnce, ++active);
    try {
      return await capturer.capture(url, options, cctx);
    } finally {
      active--;
    }
  });
  const reset = () => { seen.length = 0; openAtStart.length = 0; active = 0; mostAtOnce = 0; };

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const routes: Record<string, string> = { '/app1': app, '/app2': app, '/app3': app };
    for (let n = 0; n < 4; n++) routes[`/p${n}`] = article(n);
    for (let n = 0; n < 6; n++) routes[`/h${n}`] = harmless(n);
    site = await startSite(routes);
    // A spare would be made for any capture close to another (a 60 s window).
    capturer = await startCapturer({ poolSize: 3, spareContexts: 1, spareBusyWindowMs: 60_000, spareIdleMs: 60_000 });
  });
  after(async () => {
    await capturer.stop();
    await nc.close();
    await site.close();
    await server.stop();
  });

  test('given an unknown host, when four of its pages are fetched at once, then K - 1 (identical pages) are verified one render at a time, each after the previous one\'s context closed, with no spare, and the others take their GET', async () => {
    reset();
    const r = router();
    const pages = await Promise.all([0, 1, 2, 3].map((n) => r.fetch('crawl', site.url(`/p${n}`), opts({ formats: ['markdown'] }), ctx())));
    for (const page of pages) assert.match(page.html, /Server-rendered text/);
    // Each waited for the verdict before it: the agreeing ones made the host static for the others.
    const verified = pages.filter((page) => page.engine.verification);
    assert.equal(verified.length, LEARNT, pages.map((page) => page.engine.reason).join('; '));
    for (const page of verified) {
      assert.equal(page.engine.used, 'browser');
      assert.ok(page.engine.verification?.agreed, page.engine.reason);
    }
    const served = pages.find((page) => !page.engine.verification);
    assert.equal(served?.engine.used, 'http');
    assert.match(served!.engine.reason, /verified static/);
    assert.equal(seen.length, LEARNT);
    assert.equal(mostAtOnce, VERIFY_RENDERS_AT_ONCE);
    assert.ok(seen.every((c) => c.refillsSpare === false));
    assert.deepEqual(openAtStart, Array(LEARNT).fill(0), 'each verification began once the previous one\'s context had closed');
    // A spare is prepared in the background in a few hundred ms: none has come after 1.5 s.
    await capturer.idle();
    await sleep(1_500);
    assert.equal(capturer.stats().openContexts, 0, 'no spare context was prepared');
  });

  test('given pages that build their content with JavaScript, when fetched at once, then they render side by side, spare policy as usual', async () => {
    reset();
    const r = router();
    const pages = await Promise.all([1, 2, 3].map((n) => r.fetch('crawl', site.url(`/app${n}`), opts({ formats: ['markdown'] }), ctx())));
    for (const page of pages) {
      assert.equal(page.engine.used, 'browser');
      assert.match(page.engine.reason, /client-side rendering markers/);
      assert.match(page.html, /Text built by JavaScript/);
    }
    assert.ok(mostAtOnce > 1, `renders at once: ${mostAtOnce}`);
    assert.ok(seen.every((c) => c.refillsSpare === undefined));
    await capturer.idle();
    // The spare context, made while renders came close together.
    await until(() => capturer.stats().openContexts === 1, { timeoutMs: 10_000 });
  });

  test('given a marker kind that verified identical K - 1 times on a host, then its next pages are served over HTTP', async () => {
    reset();
    const r = router();
    const engines: string[] = [];
    for (let n = 0; n < 5; n++) {
      const page = await r.fetch('crawl', site.url(`/h${n}`), opts({ formats: ['markdown'] }), ctx());
      engines.push(`${page.engine.used}: ${page.engine.reason}`);
      assert.match(page.html, /widget slot/);
    }
    for (const e of engines.slice(0, LEARNT)) assert.match(e, /^browser: client-side rendering markers unverified on this host: script fills empty #widget/);
    for (const e of engines.slice(LEARNT)) assert.match(e, /^http: host verified static .*markers verified harmless on this host: script fills empty #widget/);
    assert.equal(seen.length, LEARNT, 'only the verifications rendered');
  });
});
