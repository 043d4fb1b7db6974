// Chromium dies with its fetcher: a fetcher killed with SIGKILL cannot close its browser,
// and Playwright starts the browser in a process group of its own, so only the kernel's
// parent-death signal (browser-pool.ts) can take it down. The browser is stopped (SIGSTOP)
// before the kill, as a hung browser would be: it cannot notice its closed pipe, so only
// that signal ends it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startSite, type TestSite } from '../../support/site.js';
import { alive, descendants, type Proc } from '../../support/processes.js';
import { until } from '../../support/wait.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'capturer-child.js');

describe('Chromium process lifetime', { skip: process.platform !== 'linux' }, () => {
  let site: TestSite;
  before(async () => { site = await startSite({ '/': '<html><body><p>alive</p></body></html>' }); });
  after(async () => { await site.close(); });

  test('SIGKILL of the fetcher takes its Chromium with it, even a hung one', async () => {
    const child = spawn(process.execPath, [CHILD, site.url('/')], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let chromium: Proc[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (d: Buffer) => { if (d.toString().includes('ready')) resolve(); });
        child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
      });
      chromium = descendants(child.pid!).filter((p) => /chrom/i.test(p.cmdline));
      const browser = chromium.filter((p) => p.ppid === child.pid);
      assert.equal(browser.length, 1, `one browser process, child of the fetcher: ${JSON.stringify(chromium)}`);
      assert.match(browser[0]!.cmdline, /chromium/);
      process.kill(browser[0]!.pid, 'SIGSTOP');
      child.kill('SIGKILL');
      await exited;
      await until(() => chromium.every((p) => !alive(p.pid)), { timeoutMs: 15_000 });
    } finally {
      child.kill('SIGKILL');
      for (const p of chromium) {
        if (alive(p.pid)) {
          try { process.kill(p.pid, 'SIGKILL'); } catch { /* gone */ }
        }
      }
    }
  });
});
