// Runs the compiled test suite with Node's test runner. Test files run one at a time by
// default: end-to-end files boot a whole system (nats-server, six services, Chromium) and
// two of those at once on a 2-core machine only measure contention. TEST_CONCURRENCY
// overrides; extra arguments select files (e.g. `npm test -- dist/test/unit`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function collect(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return collect(full);
    return entry.name.endsWith('.test.js') ? [full] : [];
  });
}

const args = process.argv.slice(2);
const roots = args.length ? args : ['dist/test'];
const files = roots.flatMap((r) => (r.endsWith('.js') ? [r] : collect(r))).sort();
if (files.length === 0) {
  console.error('no test files found under', roots.join(', '));
  process.exit(1);
}
const result = spawnSync(process.execPath, [
  '--test',
  `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 1}`,
  '--test-reporter=spec',
  '--enable-source-maps',
  ...files,
], { stdio: 'inherit' });
process.exit(result.status ?? 1);
