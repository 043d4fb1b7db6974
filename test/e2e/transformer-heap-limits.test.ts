// The transformer under `npm start` runs with TRANSFORMER_SEMI_SPACE_MB and
// TRANSFORMER_MAX_HEAP_MB as its process flags (which override a worker thread's own
// limits), and a transform thread's V8 heap limit, read back from the thread on the
// transformer's /metrics, is the old generation plus a young one of three semi-spaces.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePortRange } from '../support/nats-server.js';
import { descendants } from '../support/processes.js';
import { startSystem, type TrawlSystem } from '../support/system.js';
import { until } from '../support/wait.js';

const SEMI_SPACE_MB = 2;
const MAX_HEAP_MB = 256;
const MB = 2 ** 20;

describe('the transformer\'s V8 limits under the supervisor', () => {
  let system: TrawlSystem;
  let healthPort: number;

  before(async () => {
    // Service i of those chosen answers its health and metrics on HEALTH_PORT + i.
    const base = await freePortRange(3);
    healthPort = base + 1;
    system = await startSystem({
      env: { TRAWL_SERVICES: 'projector,transformer,gateway', HEALTH_PORT: String(base), TRANSFORMER_SEMI_SPACE_MB: String(SEMI_SPACE_MB), TRANSFORMER_MAX_HEAP_MB: String(MAX_HEAP_MB) },
    });
  });
  after(async () => {
    await system?.stop();
  });

  test('the process runs with the semi-space, and a transform thread with old + three semi-spaces', async () => {
    const transformer = descendants(system.pid).find((p) => p.ppid === system.pid && /dist\/services\/transformer\//.test(p.cmdline));
    assert.ok(transformer, 'the transformer runs under the supervisor');
    const flags = transformer.cmdline.split(' ');
    assert.ok(flags.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`) && flags.includes(`--max-old-space-size=${MAX_HEAP_MB}`), transformer.cmdline);

    let limitBytes = 0;
    await until(async () => {
      const metrics = await (await fetch(`http://127.0.0.1:${healthPort}/metrics`)).text();
      limitBytes = Number(/^trawl_transform_thread_heap_limit_bytes(?:\{[^}]*\})? (\d+)$/m.exec(metrics)?.[1] ?? 0);
      return limitBytes > 0;
    }, { timeoutMs: 30_000 });
    assert.equal((limitBytes - MAX_HEAP_MB * MB) / MB, 3 * SEMI_SPACE_MB, `heap limit ${limitBytes / MB} MB`);
  });
});
