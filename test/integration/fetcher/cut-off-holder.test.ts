// A fetcher cut off with its nats-server (SIGSTOP) while its page is in flight at the site is
// not judged gone by the fetcher the page is redelivered to: that one waits until the cut-off
// server is back in the cluster and the holder has had time to show itself, and the holder,
// reconnected, stores the page it was served. The site is asked once. (Before, the holder's
// liveness key expired during the freeze and the other fetcher asked the site again: the
// chaos drill's "served in a freeze".) Real 3-node JetStream cluster at R3, two real fetcher
// workers with their real slot-holder keys, a real HTTP site counting its requests. The
// holder knows only its own server, so it is cut off for the whole freeze (the worst case).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect } from 'nats';
import { makeEvent } from '../../../shared/src/domain/events/index.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { loadConfig, type Config } from '../../../shared/src/infra/config.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { createLogger } from '../../../shared/src/infra/logger.js';
import { NATS_CLIENT_DEFAULTS } from '../../../shared/src/infra/nats/connect.js';
import { EventLog } from '../../../shared/src/infra/nats/event-log.js';
import { ensureInfrastructure } from '../../../shared/src/infra/nats/infrastructure.js';
import { PayloadStore } from '../../../shared/src/infra/nats/payloads.js';
import { connectService, type ServiceContext } from '../../../shared/src/infra/service.js';
import { STREAM_NAME, subjectOf } from '../../../shared/src/infra/subjects.js';
import { createEngineRouter } from '../../../services/fetcher/src/engine/index.js';
import { SlotHolders } from '../../../services/fetcher/src/fleet/slot-holders.js';
import { FetchWorker } from '../../../services/fetcher/src/worker.js';
import { startNatsCluster, type NatsClusterHandle } from '../../support/nats-cluster.js';
import { startSite, type TestSite } from '../../support/site.js';
import { until } from '../../support/wait.js';
import { startCapturer } from './helpers.js';

const PAGE = '<!doctype html><html><head><title>Once</title></head><body><main><h1>Once</h1><p>A page the site wants to be asked for once.</p></main></body></html>';
/** How long the page takes: the holder's server is frozen while it is in flight. */
const PAGE_DELAY_MS = 2_000;
/**
 * How long the holder's server stays frozen: past the fetcher's ack wait (15 s, when the page
 * is redelivered to the other fetcher), the holder key's TTL (12 s) and the gone-confirm (6 s)
 * that judged the holder gone before.
 */
const FREEZE_MS = 26_000;

describe('a fetcher cut off with its frozen nats-server', { timeout: 150_000 }, () => {
  let cluster: NatsClusterHandle;
  let site: TestSite;
  let dir: string;
  let holderCtx: ServiceContext;
  let otherCtx: ServiceContext;
  const asked = Promise.withResolvers<void>();
  const frozen = Promise.withResolvers<void>();
  const closers: (() => Promise<unknown>)[] = [];
  const at = { kind: 'crawl' as const, id: 'cut-off', part: 'p0' };

  before(async () => {
    cluster = await startNatsCluster(3);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-cut-off-'));
    const urlOf = (i: number): string => `nats://127.0.0.1:${cluster.nodes[i]!.clientPort}`;
    const config = (url: string): Config => loadConfig({ NATS_URL: url, NATS_REPLICAS: '3', DATA_DIR: dir, SSRF_ALLOW_CIDRS: '127.0.0.0/8' });
    // The other fetcher reaches the cluster through the two servers that stay up.
    otherCtx = await connectService('other-fetcher', config(`${urlOf(1)},${urlOf(2)}`), createLogger('other-fetcher', 'silent'));
    holderCtx = await pinnedContext(urlOf(0), config(urlOf(0)));
    site = await startSite({
      // The first ask waits until the holder's server is frozen: the page is in flight then.
      '/page': (_req, res) => {
        asked.resolve();
        void frozen.promise.then(() => setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE), PAGE_DELAY_MS));
      },
    });
  });
  after(async () => {
    cluster?.thaw(0);
    for (const close of closers.reverse()) await close().catch(() => undefined);
    await holderCtx?.nc.close().catch(() => undefined);
    await otherCtx?.nc.close();
    await site?.close();
    await cluster?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A fetcher worker with its slot-holder key renewed, as the service makes it (main.ts). */
  async function fetcher(ctx: ServiceContext, name: string): Promise<FetchWorker> {
    const holders = new SlotHolders(ctx.js, { holderId: name });
    await until(() => holders.start().then(() => true, () => false), { timeoutMs: 30_000, intervalMs: 250 });
    const capturer = await startCapturer({ poolSize: 1, spareContexts: 0, launchAtStart: false });
    const worker = new FetchWorker({
      ctx, router: createEngineRouter(ctx, capturer, systemClock), newId, clock: systemClock,
      workerName: name, workerLiveness: (worker, since) => holders.liveness(worker, since),
    });
    closers.push(() => holders.stop(), () => capturer.stop(), () => worker.stop());
    await worker.start();
    return worker;
  }

  test('the page is asked of the site once and fetched once', async () => {
    await fetcher(holderCtx, 'holder-fetcher');
    const now = new Date();
    const options = normalizeScrapeOptions({ formats: ['markdown'], engine: 'http' });
    await otherCtx.log.append(makeEvent('page_requested', at, { url: site.url('/page'), options, apiKeyId: 'k', depth: 0, requestedAt: now.toISOString() }, { eventId: newId(), now }), { once: true });
    // The holder has claimed the page and asked the site; the other fetcher starts (it is
    // handed the page only once the holder's delivery is given up on), then the holder's
    // server stops for FREEZE_MS.
    await asked.promise;
    await fetcher(otherCtx, 'other-fetcher');
    cluster.freeze(0);
    frozen.resolve();
    await sleep(FREEZE_MS);
    cluster.thaw(0);
    await until(() => otherCtx.log.exists({ ...at, event: 'page_fetched' }), { timeoutMs: 60_000, intervalMs: 250 });
    // Both deliveries over (the other one waits for the holder's result, then ends).
    await until(async () => (await otherCtx.jsm.consumers.info(STREAM_NAME, 'fetcher-crawl')).num_ack_pending === 0, { timeoutMs: 30_000, intervalMs: 250 });
    assert.equal(site.hits.get('/page'), 1, 'the site was asked for the page once');
    const starts = await otherCtx.log.read(subjectOf({ ...at, event: 'page_started' }));
    assert.equal(starts.length, 1, `one claim: ${JSON.stringify(starts.map((s) => s.data))}`);
    assert.equal((await otherCtx.log.read(subjectOf({ ...at, event: 'page_fetched' }))).length, 1);
  });
});

/**
 * A service context whose connection knows only `url` (no servers learned from the cluster),
 * otherwise connected as connectNats does: cut off for as long as its server is.
 */
async function pinnedContext(url: string, config: Config): Promise<ServiceContext> {
  const nc = await connect({
    servers: url, name: 'trawl-holder-fetcher', ignoreClusterUpdates: true, maxReconnectAttempts: -1,
    reconnectTimeWait: NATS_CLIENT_DEFAULTS.reconnectTimeWaitMs, pingInterval: NATS_CLIENT_DEFAULTS.pingIntervalMs,
    maxPingOut: NATS_CLIENT_DEFAULTS.maxPingOut, timeout: NATS_CLIENT_DEFAULTS.connectTimeoutMs,
  });
  const jsm = await ensureInfrastructure(nc, { eventRetentionMs: config.eventRetentionMs, payloadTtlMs: config.payloadTtlMs, baselineTtlMs: config.baselineTtlMs, replicas: 3 });
  const js = nc.jetstream();
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      if (s.type === 'reconnect') connected = true;
    }
  })();
  return { name: 'holder-fetcher', config, logger: createLogger('holder-fetcher', 'silent'), nc, js, jsm, log: new EventLog(js, jsm, () => connected), payloads: new PayloadStore(js) };
}
