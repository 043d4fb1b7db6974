// Probe: Chromium's own memory, CPU and context start with the shared flags alone (what the
// naive script launches) and with the fetcher's, one after the other in this process:
// PROBE_CONTEXTS new contexts, each loading a small local page, PSS of the Chromium tree
// after each load. PROBE_EXTRA_FLAGS (space separated) adds a third row to try other flags.
// Not named chromium-*: bench/lib/proc.ts counts a command line with "chrom" in it as Chromium.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, resolveChromiumPath } from '../../shared/src/infra/chromium.js';
import { FETCHER_CHROMIUM_ARGS } from '../../services/fetcher/src/engine/browser/browser-pool.js';
import { snapshotTree } from '../lib/proc.js';

const contexts = Number(process.env.PROBE_CONTEXTS ?? 12);
const html = `<!doctype html><html><body><h1>Probe</h1>${'<p>A paragraph of the probe page, some words long. </p>'.repeat(250)}<script>document.body.append('built')</script></body></html>`;
const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

const rows: Array<[string, string[]]> = [['shared flags (the naive script)', []], ['+ the fetcher\'s flags', FETCHER_CHROMIUM_ARGS]];
const extra = (process.env.PROBE_EXTRA_FLAGS ?? '').split(' ').filter(Boolean);
if (extra.length > 0) rows.push([`+ ${extra.join(' ')}`, extra]);

for (const [label, flags] of rows) {
  const browser = await chromium.launch({ executablePath: resolveChromiumPath(process.env.CHROMIUM_PATH), args: [...CHROMIUM_ARGS, ...flags] });
  const cpuBefore = snapshotTree(process.pid).byName.chromium?.cpuMs ?? 0;
  const pssMb: number[] = [];
  const startMs: number[] = [];
  for (let i = 0; i < contexts; i++) {
    const started = performance.now();
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(url);
    startMs.push(Math.round(performance.now() - started));
    pssMb.push((snapshotTree(process.pid).byName.chromium?.pssKb ?? 0) / 1024);
    await context.close();
  }
  const cpuMs = (snapshotTree(process.pid).byName.chromium?.cpuMs ?? 0) - cpuBefore;
  const sorted = [...startMs].sort((a, b) => a - b);
  const mean = pssMb.reduce((a, b) => a + b, 0) / pssMb.length;
  console.log(`${label}: Chromium PSS mean ${mean.toFixed(0)} MB, peak ${Math.max(...pssMb).toFixed(0)} MB; CPU ${Math.round(cpuMs)} ms; context + goto median ${sorted[Math.floor(sorted.length / 2)]} ms`);
  await browser.close();
}
server.close();
