// The suite's layers, by folder, and a test reporter that counts and times them: unit tests need
// nothing running; integration tests start a real nats-server (and Chromium for the
// fetcher's); end-to-end tests boot the whole system (npm start's supervisor), and so do
// the security and client tests. Used by scripts/run-tests.mjs, which runs each layer apart.
import fs from 'node:fs';
import path from 'node:path';

export const LAYERS = {
  unit: ['dist/test/unit'],
  integration: ['dist/test/integration'],
  e2e: ['dist/test/e2e', 'dist/test/security', 'dist/test/clients'],
};

/**
 * Files that take far longer than the rest of their layer, started first when no earlier
 * run's times are known (scripts/run-tests.mjs orders by those): two at a time, the others
 * then fill the second slot beside them instead of leaving it idle at the end. The
 * extraction dev sets' transform (about two thirds of the unit layer's time).
 */
export const LONG_FIRST = ['dist/test/unit/transformer/dev-sets.test.js'];

/**
 * Files (or folders, by prefix) that run one at a time, after the others, even in a layer
 * that runs two at a time: they check that a thread or a browser context is there within a
 * bound while their own stalls or renders take both cores (the transform pool's fairness and
 * budgets, the browser pool's 300 ms windows), and another file beside them (the dev sets'
 * two threads, another Chromium) stretches that. Both failed so two at a time at load
 * average 24; the layers' other files passed.
 */
export const ALONE = ['dist/test/unit/transformer/pool-bounds.test.js', 'dist/test/integration/fetcher/browser-pool.test.js'];

/**
 * End-to-end files that run two at a time, after the rest of their layer (one at a time):
 * each boots a whole system but mostly waits on it (pages that take seconds to answer,
 * monitor ticks, kills and restarts): a third to two thirds of one core over its run (CPU
 * seconds of all its processes against its wall seconds in CI), and no tight bound on
 * time. A file that renders, stalls or checks a time stays one at a time
 * (docs/benchmarks.md, "Test-suite time (h-suite8)").
 */
export const PAIRED = [
  'dist/test/e2e/change-tracking.test.js',
  'dist/test/e2e/monitors.test.js',
  'dist/test/e2e/restart.test.js',
  'dist/test/e2e/waiting.test.js',
];

/** The layer of a test file, compiled or (as source maps report it) its TypeScript source. */
export function layerOf(file) {
  const rel = path.relative(process.cwd(), file).split(path.sep).join('/').replace(/^dist\//, '');
  for (const [layer, roots] of Object.entries(LAYERS)) if (roots.some((r) => rel.startsWith(`${r.replace(/^dist\//, '')}/`))) return layer;
  return 'other';
}

/** A test file's compiled path, relative, from the path an event names (its source, with source maps). */
export function compiledPath(file) {
  const rel = path.relative(process.cwd(), file).split(path.sep).join('/');
  return rel.startsWith('dist/') ? rel : `dist/${rel.replace(/\.ts$/, '.js')}`;
}

/**
 * A node:test reporter for one run of scripts/run-tests.mjs: counts the passes and failures
 * of leaf tests, as node's own summary does (a suite is not a test), sums each file's
 * top-level tests (their hooks included) into its time, and writes them as JSON to
 * TEST_LAYERS_OUT.
 */
export default async function* layerCounts(source) {
  const counts = { pass: 0, fail: 0, fileMs: {} };
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file) continue;
    if (nesting === 0) counts.fileMs[compiledPath(file)] = (counts.fileMs[compiledPath(file)] ?? 0) + (details.duration_ms ?? 0);
    if (details.type === 'suite') continue;
    counts[event.type === 'test:pass' ? 'pass' : 'fail'] += 1;
  }
  if (process.env.TEST_LAYERS_OUT) fs.writeFileSync(process.env.TEST_LAYERS_OUT, JSON.stringify(counts));
  yield '';
}
