// The transform pool's gauges on /metrics (a real pool): threads, busy, queued and the
// threads stopped by reason, here one stall cut at its budget.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMetrics } from '../../../shared/src/infra/metrics.js';
import { normalizeScrapeOptions } from '../../../shared/src/domain/scrape-options.js';
import { observePool } from '../../../services/transformer/src/metrics.js';
import { TransformPool } from '../../../services/transformer/src/transform-pool.js';

test('given a pool that cut one stall at its budget, then /metrics shows its threads and the stopped thread', async () => {
  const pool = new TransformPool({ size: 1 });
  try {
    observePool(pool);
    const html = `<html><body>${'<div>'.repeat(300)}<span>x</span>${'</div>'.repeat(300)}</body></html>`;
    const options = { ...normalizeScrapeOptions({ formats: ['markdown'] }), formats: ['extract' as const], extract: { schema: { fields: { x: { selector: 'section div div div div div div span' } } } } };
    await pool.run({ html, url: 'https://example.com/', options }, { budgetMs: 200 }).catch(() => undefined);
    const { body } = await renderMetrics();
    assert.match(body, /^trawl_transform_threads 1$/m);
    assert.match(body, /^trawl_transform_threads_busy 0$/m);
    assert.match(body, /^trawl_transform_queued 0$/m);
    assert.match(body, /^trawl_transform_threads_stopped_budget 1$/m);
    assert.match(body, /^trawl_transform_threads_stopped_died 0$/m);
  } finally {
    await pool.close();
  }
});
