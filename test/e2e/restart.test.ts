// Crash and restart: every process of the system is killed (SIGKILL) while a page is being
// loaded; started again on the same data, the job finishes (JetStream redelivers the
// unacknowledged work) instead of staying PENDING or PROCESSING forever. A graceful stop
// (SIGTERM) hands in-flight work back at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fs from 'node:fs';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';

// Each test scrapes its own URL: a repeated one would be answered from the cache.
const PAGE = '<html><head><title>Slow page</title></head><body><article><h1>Finally</h1><p>This page took its time to arrive, and that is the point of this test of restarts.</p></article></body></html>';

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
    system = await startSystem({ ...(dataDir ? { dataDir } : {}), ...(port ? { port } : {}), env: { TRAWL_SERVICES: 'projector,fetcher,transformer,gateway' } });
    dataDir = system.dataDir;
    port = system.port;
    return system;
  }

  test('SIGKILL of everything while a page loads: after restart the job completes', async () => {
    let sys = await boot();
    const { body } = await sys.api('POST', '/api/v1/scrape', { url: site.url('/slow') });
    await sys.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'PROCESSING', 30_000, { stepMs: 250 });
    await sys.kill();
    sys = await boot();
    const job = await sys.poll(`/api/v1/scrape/${body.id}`, (b: any) => b.status === 'COMPLETED' || b.status === 'FAILED', 120_000);
    assert.equal(job.status, 'COMPLETED', JSON.stringify(job));
    assert.match(job.markdown, /Finally/);
    await sys.stop({ keepData: true });
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
