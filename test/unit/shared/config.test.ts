import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../../shared/src/infra/config.js';

test('defaults', () => {
  const c = loadConfig({});
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 3000);
  assert.equal(c.natsUrl, undefined);
  assert.equal(c.natsReplicas, 1);
  assert.equal(c.mongodbUrl, undefined);
  assert.match(c.dataDir, /\.data$/);
  assert.deepEqual(c.bootstrapApiKeys, []);
  assert.deepEqual(c.ssrfAllowCidrs, []);
  assert.equal(c.logLevel, 'info');
  assert.equal(c.cacheTtlMs, 3_600_000);
  assert.equal(c.mapMaxCrawlPages, 100);
  assert.equal(c.publicBaseUrl, 'http://127.0.0.1:3000');
});

test('parses every documented variable', () => {
  const c = loadConfig({
    PORT: '8080', HOST: '0.0.0.0', NATS_URL: 'nats://n:4222', MONGODB_URL: 'mongodb://m/trawl', DATA_DIR: '/tmp/x',
    BOOTSTRAP_API_KEYS: 'abcdefghijklmnop:pro, qrstuvwxyz123456:team', SSRF_ALLOW_CIDRS: '127.0.0.0/8,::1', CHROMIUM_PATH: '/bin/sh', LOG_LEVEL: 'debug',
  });
  assert.equal(c.port, 8080);
  assert.equal(c.publicBaseUrl, 'http://127.0.0.1:8080');
  assert.deepEqual(c.bootstrapApiKeys, [{ key: 'abcdefghijklmnop', plan: 'pro' }, { key: 'qrstuvwxyz123456', plan: 'team' }]);
  assert.equal(c.ssrfAllowCidrs.length, 2);
  assert.equal(c.dataDir, '/tmp/x');
  assert.equal(loadConfig({ NATS_REPLICAS: '3' }).natsReplicas, 3);
});

test('bad values name the variable', () => {
  const bad: Record<string, string>[] = [
    { PORT: 'abc' }, { PORT: '70000' }, { NATS_URL: 'http://x' }, { MONGODB_URL: 'nope' }, { LOG_LEVEL: 'loud' },
    { BOOTSTRAP_API_KEYS: 'short:pro' }, { BOOTSTRAP_API_KEYS: 'abcdefghijklmnop:gold' }, { SSRF_ALLOW_CIDRS: '10.0.0.0/99' },
    { CACHE_TTL_MS: '-5' }, { FETCHER_CONCURRENCY: '0' }, { MAP_MAX_CRAWL_PAGES: 'many' },
    { NATS_REPLICAS: '0' }, { NATS_REPLICAS: '7' },
  ];
  for (const env of bad) {
    const name = Object.keys(env)[0]!;
    assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && err.variable === name && err.message.startsWith(name), name);
  }
});

test('a key without a plan is on the free plan', () => {
  assert.deepEqual(loadConfig({ BOOTSTRAP_API_KEYS: 'abcdefghijklmnop' }).bootstrapApiKeys, [{ key: 'abcdefghijklmnop', plan: 'free' }]);
});

test('a crawl or batch GET answers 10 MB of content at most (spec), JOB_DATA_MAX_BYTES otherwise', () => {
  assert.equal(loadConfig({}).jobDataMaxBytes, 10 * 1024 * 1024);
  assert.equal(loadConfig({ JOB_DATA_MAX_BYTES: '262144' }).jobDataMaxBytes, 256 * 1024);
  assert.throws(() => loadConfig({ JOB_DATA_MAX_BYTES: '1000' }), ConfigError);
});

test('engine defaults per job kind, changed by the server settings; bad values name the variable', () => {
  const d = loadConfig({});
  assert.deepEqual(d.engineDefaults, { scrape: 'browser', crawl: 'auto', batch: 'auto', map: 'browser' });
  assert.deepEqual([d.engineAutoAgreements, d.engineAutoRecheckEvery, d.httpEngineMaxBytes], [3, 25, 10 * 1024 * 1024]);
  const c = loadConfig({ SCRAPE_ENGINE: 'auto', CRAWL_ENGINE: 'HTTP', BATCH_ENGINE: 'browser', ENGINE_AUTO_AGREEMENTS: '5', ENGINE_AUTO_RECHECK_EVERY: '10' });
  assert.deepEqual(c.engineDefaults, { scrape: 'auto', crawl: 'http', batch: 'browser', map: 'browser' });
  assert.deepEqual([c.engineAutoAgreements, c.engineAutoRecheckEvery], [5, 10]);
  assert.throws(() => loadConfig({ CRAWL_ENGINE: 'fast' }), (err: unknown) => err instanceof ConfigError && /CRAWL_ENGINE: must be one of browser\|http\|auto/.test(err.message));
  assert.throws(() => loadConfig({ ENGINE_AUTO_RECHECK_EVERY: '1' }), ConfigError);
});
