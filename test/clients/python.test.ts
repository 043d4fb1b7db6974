// The Python client (clients/python, standard library only) against the real system: the
// system's python3 runs test/clients/python/test_trawl.py (unittest) with the API URL, a key
// and the test site's URL.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { TestSite } from '../support/site.js';
import type { TrawlSystem } from '../support/system.js';
import { startClientSite, startClientSystem } from './helpers.js';

describe('the Python client against the running system', () => {
  let site: TestSite;
  let system: TrawlSystem;

  before(async () => {
    site = await startClientSite(800);
    system = await startClientSystem();
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  test('python3 -m unittest: scrape, errors, streaming crawl, batch, map, jobs, events, key, webhooks', async () => {
    const script = path.resolve('test/clients/python/test_trawl.py');
    // Asynchronously: a blocking spawn would stop this process's event loop, and the test site with it.
    const run = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = execFile('python3', [script], {
        env: { PATH: process.env.PATH, TRAWL_API_URL: system.baseUrl, TRAWL_API_KEY: system.apiKey, SITE_URL: site.url('/') },
        timeout: 300_000,
      }, (err, stdout, stderr) => resolve({ code: err ? (err as { code?: number }).code ?? 1 : 0, out: `${stdout}${stderr}` }));
      child.stdin?.end();
    });
    assert.equal(run.code, 0, run.out);
    assert.match(run.out, /Ran 5 tests/);
    assert.match(run.out, /\nOK\n?$/);
  });

  test('the package compiles on this python3', () => {
    const res = spawnSync('python3', ['-m', 'compileall', '-q', path.resolve('clients/python/trawl')], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
  });
});
