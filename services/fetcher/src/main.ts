// Fetcher service: loads pages in Chromium (through the SSRF-filtering proxy) or with one
// HTTP GET (engine/), and records what it saw. One browser pool per process, launched when
// the first page needs a browser; scale out with replicas.
import os from 'node:os';
import { resolveChromiumPath } from '../../../shared/src/infra/chromium.js';
import { newId, systemClock } from '../../../shared/src/infra/ids.js';
import { runService } from '../../../shared/src/infra/service.js';
import { createEngineRouter } from './engine/index.js';
import { governedRouter } from './fleet/governed-router.js';
import { HostGovernor } from './fleet/host-governor.js';
import { observeCapturer } from './metrics.js';
import { PageCapturer } from './engine/browser/page-capturer.js';
import { ShareFollower } from './share-follower.js';
import { FetchWorker } from './worker.js';

await runService('fetcher', async (ctx) => {
  const capturer = new PageCapturer({
    ...(ctx.config.chromiumPath ? { chromiumPath: ctx.config.chromiumPath } : {}),
    allowCidrs: ctx.config.ssrfAllowCidrs,
    poolSize: ctx.config.fetcherConcurrency,
    hostMaxInFlight: ctx.config.fetcherHostMaxInFlight,
    browserIdleCloseMs: ctx.config.browserIdleCloseMs,
    browserRetireAfterPages: ctx.config.browserRetireAfterPages,
    logger: ctx.logger,
    // No Chromium until a page needs one; a missing binary still fails at start.
    launchAtStart: false,
  });
  resolveChromiumPath(ctx.config.chromiumPath);
  await capturer.start();
  observeCapturer(capturer);
  // One id for this process in the host slots it holds and in the page_started it writes.
  const holderId = ctx.config.instanceId ?? `${os.hostname()}-${process.pid}-${newId()}`;
  const governor = new HostGovernor(ctx.js, {
    maxInFlight: ctx.config.fleetHostMaxInFlight, intervalMs: ctx.config.fleetHostIntervalMs,
    holderId, logger: ctx.logger,
    // Every server the connection was told of (itself included).
    clusterServers: () => ctx.nc.info?.connect_urls?.length ?? 1,
  });
  const router = governedRouter(createEngineRouter(ctx, capturer, systemClock), governor);
  const worker = new FetchWorker({ ctx, router, newId, clock: systemClock, workerName: holderId,
    workerLiveness: (worker, since) => governor.slots.holders.liveness(worker, since),
  });
  await worker.start();
  const follower = new ShareFollower({ ctx, newId, clock: systemClock });
  await follower.consumer.start();
  return {
    ready: async () => ({ consumer: worker.ready && follower.consumer.ready }),
    stop: async () => {
      await Promise.all([worker.stop(), follower.consumer.stop()]);
      await governor.stop();
      await capturer.stop();
    },
  };
});
