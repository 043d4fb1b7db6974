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
 * End-to-end: the files that use more than a core and a third over their run (CPU seconds of
 * all their processes against their wall seconds: document-bombs 1.75, mcp 1.66, cohost
 * 1.65, the CLI 1.44, documents 1.40; docs/benchmarks.md, "Test-suite time (h-suite8)"), the
 * chaos drill (a cluster of three nats-servers and two processes of every service), and those
 * that check a bound a second system's load stretches (transform-bounds' budgets,
 * fleet-politeness's Crawl-delay gaps, transformer-heap-limits' heap, restart's 5 s ack wait:
 * its SIGTERM test's page "gave up after 3 deliveries" beside another file at load 35-40, in
 * h-suite8's pairs and in the lanes alike, and passed alone at the same load).
 */
export const ALONE = [
  'dist/test/unit/transformer/pool-bounds.test.js',
  'dist/test/integration/fetcher/browser-pool.test.js',
  'dist/test/e2e/chaos-drill.test.js',
  'dist/test/e2e/document-bombs.test.js',
  'dist/test/e2e/transform-bounds.test.js',
  'dist/test/e2e/fleet-politeness.test.js',
  'dist/test/e2e/transformer-heap-limits.test.js',
  'dist/test/e2e/documents.test.js',
  'dist/test/e2e/cohost.test.js',
  'dist/test/clients/mcp.test.js',
  'dist/test/clients/cli.test.js',
  'dist/test/e2e/restart.test.js',
];

/**
 * End-to-end files that mostly wait on the system they boot (pages that take seconds to
 * answer, monitor ticks, kills and restarts): under a core over their run (CPU seconds of all
 * their processes against their wall seconds in CI 29: change-tracking 0.30, waiting 0.37,
 * monitors 0.45, recrawl 0.70, sdk 0.71, scrape-options 0.73, faults 0.90,
 * console-monitors 0.93), and no tight bound on time. They run one at a time in a lane of
 * their own, beside the layer's other files (the one-at-a-time lane, up to about a core and
 * a third each), so the two lanes together keep within the two cores; the ALONE files follow.
 * The SDK's checks of order are between pages of its own slow site (1.5 s and 5 s answers),
 * its 429s those of its own system's keys: nothing a system beside it changes.
 */
export const PAIRED = [
  'dist/test/e2e/change-tracking.test.js',
  'dist/test/e2e/monitors.test.js',
  'dist/test/e2e/waiting.test.js',
  'dist/test/e2e/recrawl.test.js',
  'dist/test/e2e/scrape-options.test.js',
  'dist/test/e2e/console-monitors.test.js',
  'dist/test/e2e/faults.test.js',
  'dist/test/clients/sdk.test.js',
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
