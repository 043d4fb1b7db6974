// A bad configuration stops `npm start` (and any service) at once, naming the variable.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const cases: [string, Record<string, string>, RegExp][] = [
  ['supervisor', { PORT: 'abc' }, /invalid configuration: PORT: must be an integer/],
  ['supervisor', { BOOTSTRAP_API_KEYS: 'abcdefghijklmnopq:platinum' }, /BOOTSTRAP_API_KEYS: plan must be one of free\|basic\|pro\|team/],
  ['gateway', { SSRF_ALLOW_CIDRS: 'not-a-cidr', NATS_URL: 'nats://127.0.0.1:1' }, /SSRF_ALLOW_CIDRS/],
];

for (const [what, env, message] of cases) {
  test(`${what} exits non-zero on ${Object.keys(env)[0]}`, () => {
    const entry = what === 'supervisor' ? 'dist/scripts/start.js' : 'dist/services/gateway/src/main.js';
    const res = spawnSync(process.execPath, [path.join(process.cwd(), entry)], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 20_000 });
    assert.equal(res.status, 2, res.stderr);
    assert.match(res.stderr, message);
  });
}
