// Crash and restart: every process of the system is killed (SIGKILL) while a page is being
// loaded; started again on the same data, the job finishes (JetStream redelivers the
// unacknowledged work) instead of staying PENDING or PROCESSING forever. A graceful stop
// (SIGTERM) hands in-flight work back at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import { connect } from 'nats';
import { LEASE_BUCKET } from '../../shared/src/infra/nats/partition-leases.js';
import { PROJECTION_PARTITIONS } from '../../shared/src/infra/subjects.js';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';

// Each test scrapes its own URL: a repeated one would be answered from the cache.
const PAGE = '<html><head><title>Slow page</title></head><body><article><h1>Finally</h1><p>This page took its time to arrive, and that is the point of this test of restarts.</p></article></body></html>';

/**
 * The fetcher's ack wait: the page a SIGKILLed fetcher held comes back after it, 15 s by
 * default (heartbeats, every third of it, keep a page that loads longer).
 */
const KILLED_PAGE_BACK_MS = '5000';

describe('restart mid-job', () => {
  let site: TestSite;
  let system: TrawlSystem | undefined;
  let dataDir: string | undefined;
  let port: number | undefined;

  before(async () => {
    site = await startSite({ '/slow': { body: PAGE, delayMs: 4000 }, '/fast': PAGE });
  });
  after(async () => {
    await system?.stop();
    await site.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function boot(): Promise<TrawlSystem> {
    system = await startSystem({ ...(dataDir ? { dataDir } : {}), ...(port ? { port } : {}), env: { TRAWL_SERVICES: 'projector,fetcher,transformer,gateway', FETCHER_ACK_WAIT_MS: KILLED_PAGE_BACK_MS } });
    dataDir = system.dataDir;
    port = system.port;
    return system;
  }

  test('SIGKILL of everything while a page loads: after restart the job completes, under the same ids', async () => {
    let sys = await boot();
    try {
      const { body } = await sys.api('POST', '/api/v1/scrape', { url: site.url('/slow') });
      await sys.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'PROCESSING', 30_000, { stepMs: 250 });
      let holders: string[] = [];
      await until(async () => (holders = await leaseHolders(sys)).length === 3, { timeoutMs: 30_000, intervalMs: 250 });
      await sys.kill();
      sys = await boot();
      const job = await sys.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED', 120_000);
      assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
      assert.match(job.markdown, /Finally/);
      // The projector came back under the id it had (the supervisor's run is kept in DATA_DIR
      // once nothing of the old run lives), so it took its own leases back without their TTL.
      let back: string[] = [];
      await until(async () => (back = await leaseHolders(sys)).length === 3, { timeoutMs: 30_000, intervalMs: 250 });
      assert.deepEqual(back, holders, 'the projector\'s leases held under its old INSTANCE_ID');
    } finally {
      await sys.stop({ keepData: true }); // even after a failure: the next test boots on the same data
    }
  });

  test('SIGTERM while a page loads: the work is handed back and finishes after restart', async () => {
    let sys = await boot();
    const { body } = await sys.api('POST', '/api/v1/scrape', { url: site.url('/slow?after-sigterm') });
    await sys.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'PROCESSING', 30_000, { stepMs: 250 });
    await sys.stop({ keepData: true });
    sys = await boot();
    const job = await sys.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED', 60_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    // The read models survive a restart too: earlier jobs are still listed.
    const list = await sys.api('GET', '/api/v1/scrape?limit=100');
    assert.ok(list.body.length >= 2);
  });
});

/** The holders of the projector's partition leases, sorted (an id per held partition). */
async function leaseHolders(system: TrawlSystem): Promise<string[]> {
  const url = /nats-server with JetStream at (\S+)/.exec(system.logs())?.[1];
  assert.ok(url, 'no nats-server URL in the banner');
  const nc = await connect({ servers: url });
  try {
    const kv = await nc.jetstream().views.kv(LEASE_BUCKET);
    const held: string[] = [];
    for (const partition of PROJECTION_PARTITIONS) {
      const entry = await kv.get(`projector.lease.${partition}`);
      if (entry && entry.length > 0) held.push(entry.string());
    }
    return held.sort();
  } finally {
    await nc.close();
  }
}
