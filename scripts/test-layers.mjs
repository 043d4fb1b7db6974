// The suite's layers, by folder, and a test reporter that times them: unit tests need
// nothing running; integration tests start a real nats-server (and Chromium for the
// fetcher's); end-to-end tests boot the whole system (npm start's supervisor), and so do
// the security and client tests. Used by scripts/run-tests.mjs.
import fs from 'node:fs';
import path from 'node:path';

export const LAYERS = {
  unit: ['dist/test/unit'],
  integration: ['dist/test/integration'],
  e2e: ['dist/test/e2e', 'dist/test/security', 'dist/test/clients'],
};

/** The layer of a test file, compiled or (as source maps report it) its TypeScript source. */
export function layerOf(file) {
  const rel = path.relative(process.cwd(), file).split(path.sep).join('/').replace(/^dist\//, '');
  for (const [layer, roots] of Object.entries(LAYERS)) if (roots.some((r) => rel.startsWith(`${r.replace(/^dist\//, '')}/`))) return layer;
  return 'other';
}

/**
 * A node:test reporter: sums each file's top-level tests and suites (their hooks included)
 * per layer, counts passes and failures, and writes them as JSON to TEST_LAYERS_OUT.
 */
export default async function* layerTimes(source) {
  const layers = {};
  let current = 'other';
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (!file) continue;
    // Tests declared in a shared module (test/support/store-contract.ts) belong to the file
    // that runs them: files run one at a time, so that is the layer seen last.
    const layer = layerOf(file);
    if (layer !== 'other') current = layer;
    const entry = (layers[current] ??= { ms: 0, pass: 0, fail: 0, files: new Set() });
    if (layer !== 'other') entry.files.add(file);
    if (nesting === 0) entry.ms += details.duration_ms ?? 0;
    // Leaves only, as node's own summary counts them (a suite is not a test).
    if (details.type === 'suite') continue;
    if (event.type === 'test:pass') entry.pass += 1;
    else entry.fail += 1;
  }
  const out = Object.fromEntries(Object.entries(layers).map(([k, v]) => [k, { ms: Math.round(v.ms), pass: v.pass, fail: v.fail, files: v.files.size }]));
  if (process.env.TEST_LAYERS_OUT) fs.writeFileSync(process.env.TEST_LAYERS_OUT, JSON.stringify(out));
  yield '';
}
