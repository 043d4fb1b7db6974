// The fetcher's engines wired from the service's config: the browser (a PageCapturer), the
// HTTP engine, the shared host profiles, the auto policy and the transformers that make a
// verification's extractions.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Clock } from '../../../../shared/src/infra/ids.js';
import type { ServiceContext } from '../../../../shared/src/infra/service.js';
import type { PageCapturer } from './browser/page-capturer.js';
import { EngineRouter } from './engine-router.js';
import { KvHostProfiles } from './host-profile-store.js';
import { KvFleetPriors } from './fleet-prior-store.js';
import { FLEET_POLICY_DEFAULTS } from './fleet-prior.js';
import { HttpEngine } from './http-engine.js';
import { requestVerifyExtract } from '../../../../shared/src/infra/nats/verify-extract.js';

export { EngineRouter, type RoutedPage, type EngineRecord } from './engine-router.js';

/**
 * The Chrome major version the HTTP engine's user agent names before any browser has been
 * launched: the one Playwright was built for (the running Chromium's once there is one).
 */
function playwrightChromeVersion(): string {
  try {
    const require = createRequire(import.meta.url);
    const file = path.join(path.dirname(require.resolve('playwright-core/package.json')), 'browsers.json');
    const browsers = JSON.parse(readFileSync(file, 'utf8')) as { browsers: { name: string; browserVersion?: string }[] };
    return browsers.browsers.find((b) => b.name === 'chromium')?.browserVersion ?? '140';
  } catch {
    return '140';
  }
}

export function createEngineRouter(ctx: ServiceContext, capturer: PageCapturer, clock: Clock): EngineRouter {
  const { config } = ctx;
  const fallbackVersion = playwrightChromeVersion();
  const policy = { agreements: config.engineAutoAgreements, recheckEvery: config.engineAutoRecheckEvery };
  return new EngineRouter({
    capture: (url, options, cctx) => capturer.capture(url, options, cctx),
    http: new HttpEngine({
      allowCidrs: config.ssrfAllowCidrs,
      maxBytes: config.httpEngineMaxBytes,
      documentMaxBytes: config.documentMaxBytes,
      chromeVersion: () => capturer.browserVersion() ?? fallbackVersion,
    }),
    profiles: new KvHostProfiles(ctx.js, policy, ctx.logger),
    ...(config.engineAutoFleetHosts > 0 ? { fleet: new KvFleetPriors(ctx.js, { ...FLEET_POLICY_DEFAULTS, hosts: config.engineAutoFleetHosts }, ctx.logger) } : {}),
    policy,
    defaults: config.engineDefaults,
    clock,
    logger: ctx.logger,
    // Both pages may wait for a transform thread, then each runs under its budget.
    verifyExtract: (pages, options, apiKeyId) => requestVerifyExtract(ctx.nc, { pages, options, apiKeyId }, 2 * config.transformTimeoutMs),
  });
}
