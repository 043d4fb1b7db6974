// The auto engine's verification extractions made by a transformer
// (shared/src/infra/nats/verify-extract.ts): the fetcher's router sends a verified page's two
// HTMLs over core NATS, a transform pool answers with each one's markdown and links, under
// the page's API key; with no transformer answering, the fetcher extracts them itself. Real
// nats-server, real Chromium, a real TransformPool (worker threads), real HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connect, type NatsConnection, type Subscription } from 'nats';
import { TransformPool } from '../../../services/transformer/src/transform-pool.js';
import type { PageCapturer } from '../../../services/fetcher/src/engine/browser/page-capturer.js';
import { EngineRouter } from '../../../services/fetcher/src/engine/engine-router.js';
import { requestVerifyExtract, serveVerifyExtract, VERIFY_EXTRACT_SUBJECT } from '../../../shared/src/infra/nats/verify-extract.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { startNatsServer, type NatsServerHandle } from '../../support/nats-server.js';
import { startSite, type TestSite } from '../../support/site.js';
import { opts, startCapturer, testRouter } from './helpers.js';

const article = (n: number) => `<!doctype html><html><head><title>Page ${n}</title></head><body><article><h1>Page ${n}</h1>${'<p>Server-rendered text of a static page, the same with or without JavaScript.</p>'.repeat(6)}<a href="/p${n + 1}">next</a></article></body></html>`;

describe('auto: verification extractions made by a transformer', () => {
  let server: NatsServerHandle;
  let nc: NatsConnection;
  let site: TestSite;
  let capturer: PageCapturer;
  let pool: TransformPool;
  let serving: Subscription | undefined;
  /** The extractions the transformer made: url and API key of each. */
  const served: { url: string; key: string | undefined }[] = [];

  const serve = (): Subscription => serveVerifyExtract(nc, async (page, options, apiKeyId) => {
    served.push({ url: page.url, key: apiKeyId });
    const out = await pool.run({ ...page, options }, { key: apiKeyId, budgetMs: 15_000 });
    return { markdown: out.markdown ?? '', links: out.links };
  }, createLogger('verify-extract-test', 'silent'));

  // The router as the fetcher wires it (engine/index.ts), on the test's NATS; K = 4, so that
  // the host's third identical page (K - 1 = 3 identical make it static) is still verified.
  const router = (): EngineRouter => testRouter(nc, (url, options, cctx) => capturer.capture(url, options, cctx), 4, {
    verifyExtract: (pages, options, apiKeyId) => requestVerifyExtract(nc, { pages, options, apiKeyId }, 10_000),
  });

  before(async () => {
    server = await startNatsServer();
    nc = await connect({ servers: server.url });
    const routes: Record<string, string> = {};
    for (let n = 0; n < 8; n++) routes[`/p${n}`] = article(n);
    site = await startSite(routes);
    capturer = await startCapturer();
    pool = new TransformPool({ size: 1 });
  });
  after(async () => {
    serving?.unsubscribe();
    await pool.close();
    await capturer.stop();
    await nc.close();
    await site.close();
    await server.stop();
  });

  test('given a transformer answering, when an unknown host\'s page is verified, then both of its extractions are made there under the page\'s API key, and the pages agree', async () => {
    serving = serve();
    await nc.flush();
    const page = await router().fetch('crawl', site.url('/p0'), opts({ formats: ['markdown'] }), { signal: new AbortController().signal, apiKeyId: 'key-a' });
    assert.equal(page.engine.used, 'browser');
    assert.match(page.engine.reason, /host unverified/);
    assert.ok(page.engine.verification?.agreed, JSON.stringify(page.engine.verification));
    assert.equal(page.engine.verification?.identical, true);
    assert.deepEqual(served.map((s) => [new URL(s.url).pathname, s.key]), [['/p0', 'key-a'], ['/p0', 'key-a']]);
  });

  test('given no transformer answering, when a page is verified, then the fetcher makes the extractions itself and the verdict is the same', async () => {
    serving?.unsubscribe();
    serving = undefined;
    served.length = 0;
    await nc.flush();
    const started = performance.now();
    const page = await router().fetch('crawl', site.url('/p1'), opts({ formats: ['markdown'] }), { signal: new AbortController().signal, apiKeyId: 'key-a' });
    assert.ok(page.engine.verification?.agreed, JSON.stringify(page.engine.verification));
    assert.equal(page.engine.verification?.identical, true);
    assert.equal(served.length, 0);
    // No responders is answered at once, not after the request's timeout.
    assert.ok(performance.now() - started < 10_000);
  });

  test('given a transformer that cannot make the extractions (its pool closing), when a page is verified, then the fetcher makes them itself', async () => {
    let asked = 0;
    const failing = serveVerifyExtract(nc, async () => {
      asked++;
      throw new Error('TransformPool is closed');
    }, createLogger('verify-extract-test', 'silent'));
    try {
      await nc.flush();
      const page = await router().fetch('crawl', site.url('/p2'), opts({ formats: ['markdown'] }), { signal: new AbortController().signal, apiKeyId: 'key-a' });
      assert.ok(page.engine.verification?.agreed, JSON.stringify(page.engine.verification));
      assert.equal(page.engine.verification?.identical, true);
      assert.equal(asked, 2);
    } finally {
      failing.unsubscribe();
    }
  });

  test('given pages larger than a NATS message, then the request is not sent and the caller extracts them itself', async () => {
    let seen = 0;
    const probe = nc.subscribe(VERIFY_EXTRACT_SUBJECT, { callback: () => { seen++; } });
    try {
      const html = `<html><body><p>${'x'.repeat(nc.info!.max_payload)}</p></body></html>`;
      const got = await requestVerifyExtract(nc, { pages: [{ html, url: site.url('/big'), statusCode: 200 }], options: opts({ formats: ['markdown'] }) }, 2_000);
      assert.equal(got, undefined);
      await nc.flush();
      assert.equal(seen, 0);
    } finally {
      probe.unsubscribe();
    }
  });
});
