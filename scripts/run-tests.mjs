// Runs the compiled test suite with Node's test runner, one layer after another, each with
// its own concurrency (TEST_CONCURRENCY overrides them all): unit files are pure CPU in one
// process each, so two run at once on a 2-core machine; integration files start their own
// nats-server (and Chromium for the fetcher's) on free ports and mostly wait on it, so two
// run at once too; in both, the few files that check a bound while their own work takes
// both cores (ALONE in scripts/test-layers.mjs) run alone after the others; end-to-end
// files boot a whole system (nats-server, six services, Chromium), and two of those at once
// only measure contention, so one at a time, while the files that mostly wait (PAIRED in
// scripts/test-layers.mjs) run one at a time in a second lane beside them; the heaviest
// (ALONE) after both. Arguments pick what runs: a layer (`unit`,
// `integration`, `e2e`: see scripts/test-layers.mjs), folders or single files
// (`npm test -- dist/test/e2e/map.test.js`).
// At the end it prints each layer's wall time and counts, then the totals as the last line.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ALONE, LAYERS, LONG_FIRST, PAIRED, layerOf } from './test-layers.mjs';

// npm start's nats-server takes 4222 when it is free. Held for the run, so that no test's
// system has it: a system whose nats-server is SIGKILLed and restarted on its port
// (faults.test) would otherwise find 4222 taken by a system booting beside it during the
// restart's delay, and its services would reconnect to that other system's server (CI 40).
const natsDefaultPort = await new Promise((resolve) => {
  const server = net.createServer();
  server.once('error', () => resolve(undefined));
  server.listen(4222, '127.0.0.1', () => resolve(server));
});
natsDefaultPort?.unref();

/** Test files run at once in each layer (see above); a layer not named here runs one at a time. */
const CONCURRENCY = { unit: 2, integration: 2, e2e: 1 };

function collect(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return collect(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

const args = process.argv.slice(2);
const roots = args.length ? args.flatMap((a) => LAYERS[a] ?? [a]) : ['dist/test'];
const relative = (f) => path.relative('.', f).split(path.sep).join('/');
const runsAlone = (f) => ALONE.some((prefix) => relative(f).startsWith(prefix));
const runsPaired = (f) => PAIRED.includes(relative(f));
// The longest files start first, so that two at a time the short ones fill the other slot
// beside them instead of one long file running alone at the end: by the times of the last
// run on this machine (kept beside the compile cache), else LONG_FIRST; unknown files first.
const timesFile = path.join(os.tmpdir(), 'trawl-test-times.json');
let lastMs = {};
try { lastMs = JSON.parse(fs.readFileSync(timesFile, 'utf8')); } catch { /* no run yet */ }
const expectedMs = (f) => lastMs[relative(f)] ?? (LONG_FIRST.includes(relative(f)) ? Infinity : undefined);
const byExpected = (a, b) => (expectedMs(b) ?? Infinity) - (expectedMs(a) ?? Infinity);
const files = roots.flatMap((r) => (r.endsWith('.js') ? [r] : collect(r))).sort((a, b) => byExpected(a, b) || a.localeCompare(b));
if (files.length === 0) {
  console.error('no test files found under', roots.join(', '));
  process.exit(1);
}
const byLayer = new Map();
for (const file of files) {
  const layer = layerOf(file);
  byLayer.set(layer, [...(byLayer.get(layer) ?? []), file]);
}
const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-tests-'));
// Every test file, supervisor and service is a node process that compiles the same modules
// again; Node's compile cache keeps their bytecode on disk (checked against each source, so a
// changed file is compiled afresh), and the 36 boots of the whole system after the first load
// from it. Only how the code is loaded changes, not what runs.
const compileCache = process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'trawl-node-compile-cache');
const started = Date.now();
const layers = {};
let status = 0;
/** One `node --test` run of `testFiles`, `concurrency` at once; its passes, failures and exit status. */
async function runFiles(testFiles, concurrency, name) {
  const out = path.join(outDir, `${name}.json`);
  const child = spawn(process.execPath, [
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    `--test-reporter=${path.resolve('scripts/test-layers.mjs')}`, '--test-reporter-destination=stderr',
    '--enable-source-maps',
    ...testFiles,
  ], { stdio: 'inherit', env: { ...process.env, NODE_COMPILE_CACHE: compileCache, TEST_LAYERS_OUT: out } });
  const exitStatus = await new Promise((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (code) => resolve(code ?? 1));
  });
  let counts = { pass: 0, fail: 1, fileMs: {} }; // unless the run got to its end
  try { counts = JSON.parse(fs.readFileSync(out, 'utf8')); } catch { /* it did not */ }
  Object.assign(lastMs, counts.fileMs);
  return { ...counts, status: exitStatus };
}

// The quick layers first: a unit failure shows in seconds, not after the system boots.
for (const layer of [...Object.keys(LAYERS), 'other'].filter((l) => byLayer.has(l))) {
  const layerStarted = Date.now();
  const layerFiles = byLayer.get(layer);
  // Each step's runs go at once (the layer's files and, beside them, the PAIRED lane); the
  // steps one after another. TEST_CONCURRENCY set: every run is a step of its own.
  const main = { files: layerFiles.filter((f) => !runsAlone(f) && !runsPaired(f)), concurrency: process.env.TEST_CONCURRENCY ?? CONCURRENCY[layer] ?? 1 };
  const paired = { files: layerFiles.filter((f) => runsPaired(f) && !runsAlone(f)), concurrency: process.env.TEST_CONCURRENCY ?? 1 };
  const alone = { files: layerFiles.filter(runsAlone), concurrency: process.env.TEST_CONCURRENCY ?? 1 };
  const steps = process.env.TEST_CONCURRENCY ? [[main], [paired], [alone]] : [[main, paired], [alone]];
  const counts = { pass: 0, fail: 0 };
  for (const [i, step] of steps.entries()) {
    const runs = step.filter((r) => r.files.length);
    for (const r of await Promise.all(runs.map((run, j) => runFiles(run.files, run.concurrency, `${layer}-${i}-${j}`)))) {
      counts.pass += r.pass;
      counts.fail += r.fail;
      if (r.status !== 0) status = r.status;
    }
  }
  // Wall time: with files running at once, the sum of their times would count a second twice.
  layers[layer] = { ...counts, files: layerFiles.length, ms: Date.now() - layerStarted };
}

try { fs.writeFileSync(timesFile, JSON.stringify(lastMs)); } catch { /* only an order for next time */ }
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(`\nsuite: ${seconds(Date.now() - started)} in all`);
let pass = 0;
let fail = 0;
for (const [layer, t] of Object.entries(layers)) {
  console.log(`  ${layer.padEnd(12)} ${seconds(t.ms).padStart(9)}  ${String(t.files).padStart(3)} files  ${t.pass} passed, ${t.fail} failed`);
  pass += t.pass;
  fail += t.fail;
}
console.log(`${pass} passed, ${fail} failed`);
process.exit(status);
