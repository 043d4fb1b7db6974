// What a new user sees after `npm start`: a banner that is not buried under the services'
// log lines (they go to DATA_DIR/logs/services.log), and a printed curl that answers with
// the page itself, not {"status":"PENDING"}.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startSite, type TestSite } from '../support/site.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';

const run = promisify(execFile);

describe('npm start, the first minutes', () => {
  let site: TestSite;
  let system: TrawlSystem;

  before(async () => {
    site = await startSite({
      '/story': `<!doctype html><html><head><title>A true story</title></head><body><main><article><h1>A true story</h1>
<p>${'Every word of this paragraph is about the sea and the herring that live in it. '.repeat(4)}</p></article></main></body></html>`,
    });
    // npm start's defaults: service logs to a file, at info level.
    system = await startSystem({ env: { SERVICE_LOGS: '', LOG_LEVEL: 'info' } });
  });
  after(async () => {
    await system?.stop();
    await site?.close();
  });

  test('the services log to DATA_DIR/logs/services.log, and the banner says where', async () => {
    const file = path.join(system.dataDir, 'logs', 'services.log');
    await until(() => fs.existsSync(file) && /"service":"gateway"/.test(fs.readFileSync(file, 'utf8')), { timeoutMs: 20_000 });
    await until(() => /\[trawl\] try: /.test(system.logs()));
    const out = system.logs();
    assert.match(out, new RegExp(`service logs: ${file.replace(/[.]/g, '\\.')}`));
    assert.doesNotMatch(out, /"service":"(gateway|fetcher|transformer|projector)"/, 'no service log line on the supervisor\'s stdout');
    assert.match(out, /Trawl is running at /);
  });

  test('the printed curl answers with the page, on the first request', async () => {
    const tryLine = (): string | undefined => /\[trawl\] try: (curl .*)$/m.exec(system.logs())?.[1];
    await until(() => tryLine() !== undefined); // printed just after "Trawl is running"
    const curl = tryLine();
    assert.ok(curl, 'a curl is printed');
    assert.match(curl, /"waitMs":30000/);
    const command = curl.replace('https://example.com', site.url('/story')).replace('<API_KEY>', system.apiKey);
    const { stdout } = await run('sh', ['-c', command], { timeout: 60_000 });
    const job = JSON.parse(stdout) as { status: string; markdown: string };
    assert.equal(job.status, 'COMPLETED', stdout);
    assert.match(job.markdown, /herring that live in it/);
  });
});
