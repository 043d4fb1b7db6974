// Runs the compiled test suite with Node's test runner. Test files run one at a time by
// default: end-to-end files boot a whole system (nats-server, six services, Chromium) and
// two of those at once on a 2-core machine only measure contention. TEST_CONCURRENCY
// overrides. Arguments pick what runs: a layer (`unit`, `integration`, `e2e`: see
// scripts/test-layers.mjs), folders or single files (`npm test -- dist/test/e2e/map.test.js`).
// At the end it prints each layer's time and counts, then the totals as the last line.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LAYERS } from './test-layers.mjs';

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
const files = roots.flatMap((r) => (r.endsWith('.js') ? [r] : collect(r))).sort();
if (files.length === 0) {
  console.error('no test files found under', roots.join(', '));
  process.exit(1);
}
const layersOut = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-tests-')), 'layers.json');
// Every test file, supervisor and service is a node process that compiles the same modules
// again; Node's compile cache keeps their bytecode on disk (checked against each source, so a
// changed file is compiled afresh), and the 36 boots of the whole system after the first load
// from it. Only how the code is loaded changes, not what runs.
const compileCache = process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), 'trawl-node-compile-cache');
const started = Date.now();
const result = spawnSync(process.execPath, [
  '--test',
  `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 1}`,
  '--test-reporter=spec', '--test-reporter-destination=stdout',
  `--test-reporter=${path.resolve('scripts/test-layers.mjs')}`, '--test-reporter-destination=stderr',
  '--enable-source-maps',
  ...files,
], { stdio: 'inherit', env: { ...process.env, NODE_COMPILE_CACHE: compileCache, TEST_LAYERS_OUT: layersOut } });

let layers = {};
try { layers = JSON.parse(fs.readFileSync(layersOut, 'utf8')); } catch { /* the run died before its end */ }
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
console.log(`\nsuite: ${seconds(Date.now() - started)} in all`);
let pass = 0;
let fail = 0;
for (const [layer, t] of Object.entries(layers)) {
  console.log(`  ${layer.padEnd(12)} ${seconds(t.ms).padStart(9)}  ${String(t.files).padStart(3)} files  ${t.pass} passed, ${t.fail} failed`);
  pass += t.pass;
  fail += t.fail;
}
if (Object.keys(layers).length) console.log(`${pass} passed, ${fail} failed`);
process.exit(result.status ?? 1);
